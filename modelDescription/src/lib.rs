//! The model description of a hydraulic-circuit FMU: one variable table and
//! its metadata ([`ModelDescription`]), checked ([`ModelDescription::validate`]),
//! written as FMI 2.0 and FMI 3.0 `modelDescription.xml`
//! ([`ModelDescription::to_fmi2_xml`], [`ModelDescription::to_fmi3_xml`]) with
//! a content-derived instantiation token
//! ([`ModelDescription::instantiation_token`]), read back for tests and tools
//! ([`parse_model_description`]), and documented as an HTML page
//! ([`ModelDescription::documentation_html`]). Units come from one catalogue
//! ([`units::UNITS`]).

mod doc;
pub use doc::escape_html;
mod fmi2;
mod fmi3;
pub mod model;
pub mod read;
pub mod terminals;
mod token;
pub mod units;
pub mod validate;
mod xml_out;

#[cfg(test)]
mod test_support;

pub use model::*;
pub use read::{
    ParseError, ParsedDescription, ParsedDisplayUnit, ParsedExperiment, ParsedType, ParsedUnit,
    ParsedUnknown, ParsedVariable, parse_model_description,
};
pub use terminals::{
    FLANGE, HYDRAULIC_PORT, MemberKind, ParsedTerminal, Side, Terminal, TerminalMember,
    parse_terminals,
};
pub use units::{BaseUnit, DisplayUnit, UNITS, Unit, find_unit};
pub use validate::ValidationError;
