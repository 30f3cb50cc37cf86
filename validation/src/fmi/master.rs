//! An FMI master for Co-Simulation FMUs of either version (2.0 and 3.0),
//! built on the `fmi` crate (0.8): it unpacks a `.fmu`, reads its model
//! description, checks that the binary of this platform exports every
//! function of the Co-Simulation interface, instantiates it and drives it
//! through the life cycle a fixed-step master needs (start values including
//! FMI 3 structural parameters, initialization, `doStep`, terminate, free),
//! with variables addressed by name.
//!
//! The variable table comes from this workspace's own reader
//! ([`model_description::parse_model_description`]); the `fmi` crate parses
//! the description too (it needs it to instantiate). fmi-schema 0.8 rejects
//! valid FMI 3.0 descriptions: float attributes such as `unit`, and the
//! `BaseUnit` exponents `A` and `K`; [`fmi3_description_for_fmi_crate`]
//! rewrites the text that parser gets (only it), and each rewrite is
//! reported in [`Fmu::notes`].
//!
//! The archive is read and unpacked by [`super::unpack`], and the binary's
//! exports are checked against the function tables of the raw importer
//! ([`super::fmi2::Fmi2`], [`super::fmi3::Fmi3`]); the calls go through the
//! `fmi` crate, an importer independent of this project's.
//!
//! Nothing here knows a model: the validation runner (`fmi-runner`) and the
//! end-to-end tests both use it.

use super::fmi2::Fmi2;
use super::fmi3::Fmi3;
use super::{Binary, unpack};
use anyhow::{Context, Result, anyhow, bail, ensure};
use fmi::fmi2::import::Fmi2Import;
use fmi::fmi2::instance::{
    CoSimulation as Fmi2CoSimulation, Common as Fmi2Common, InstanceCS as Fmi2Instance,
    InstanceME as Fmi2InstanceMe,
};
use fmi::fmi3::import::Fmi3Import;
use fmi::fmi3::instance::{InstanceCS as Fmi3Instance, InstanceME as Fmi3InstanceMe};
use fmi::fmi3::{CoSimulation as Fmi3CoSimulation, Common as Fmi3Common, Fmi3Model, GetSet};
use fmi::schema::fmi3::Fmi3ModelDescription;
use fmi::schema::minimal::MinModelDescription;
use fmi::schema::traits::FmiModelDescription;
use fmi::traits::{FmiEventHandler, FmiImport, FmiModelExchange};
use model_description::{ParsedDescription, ParsedType, ParsedVariable, parse_model_description};
use std::path::{Path, PathBuf};

pub use super::FmiVersion;

/// Why an FMU could not be loaded or instantiated.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The FMU is readable but of a kind this master does not run (FMI 1.0,
    /// a future major version).
    #[error("not supported: {0}")]
    NotSupported(String),
    /// The archive, its model description or its binary is unusable, or
    /// instantiation failed (e.g. a wrong GUID / instantiation token).
    #[error("{0}")]
    Rejected(String),
}

fn rejected(error: impl std::fmt::Display) -> LoadError {
    LoadError::Rejected(error.to_string())
}

/// `DefaultExperiment` of the model description as the `fmi` crate read it
/// (times in s; every attribute is optional).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DefaultExperiment {
    /// Start time, s.
    pub start_time: Option<f64>,
    /// Stop time, s.
    pub stop_time: Option<f64>,
    /// Relative tolerance of the FMU's solver.
    pub tolerance: Option<f64>,
    /// Communication step size, s.
    pub step_size: Option<f64>,
}

impl DefaultExperiment {
    fn of(d: &impl fmi::schema::traits::DefaultExperiment) -> Self {
        DefaultExperiment {
            start_time: d.start_time(),
            stop_time: d.stop_time(),
            tolerance: d.tolerance(),
            step_size: d.step_size(),
        }
    }
}

/// A value of a variable, typed as the FMI call that sets or gets it
/// (FMI 2 `Real`/`Integer`/`Boolean`, FMI 3 `Float64`/`Int32`/`Boolean`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    /// FMI 2 `Real`, FMI 3 `Float64` (SI unit of the variable).
    Real(f64),
    /// FMI 2 `Integer`, FMI 3 `Int32`.
    Integer(i32),
    /// `Boolean`.
    Boolean(bool),
}

impl Value {
    /// The value as a number (Booleans as 0 and 1), as written to result
    /// files.
    pub fn as_f64(self) -> f64 {
        match self {
            Value::Real(x) => x,
            Value::Integer(i) => f64::from(i),
            Value::Boolean(b) => f64::from(u8::from(b)),
        }
    }

    /// A number as a value of `variable`'s type: Integer variables need an
    /// integral number in the `i32` range, Boolean ones are true when the
    /// number is not 0.
    pub fn from_f64(variable: &ParsedVariable, x: f64) -> Result<Value> {
        let name = &variable.name;
        match &variable.kind {
            ParsedType::Real => Ok(Value::Real(x)),
            ParsedType::Integer => {
                ensure!(
                    x.fract() == 0.0 && x >= f64::from(i32::MIN) && x <= f64::from(i32::MAX),
                    "`{name}` is an Integer variable; {x} is not an integer in its range"
                );
                Ok(Value::Integer(x as i32))
            }
            ParsedType::Boolean => {
                ensure!(
                    !x.is_nan(),
                    "`{name}` is a Boolean variable; NaN is not a Boolean"
                );
                Ok(Value::Boolean(x != 0.0))
            }
            ParsedType::Other(t) => bail!("`{name}` has type {t}, which this master cannot set"),
        }
    }

    /// A JSON value (a scenario's parameter) as a value of `variable`'s type:
    /// `true`/`false`, numbers, or strings holding either.
    pub fn from_json(variable: &ParsedVariable, json: &serde_json::Value) -> Result<Value> {
        let name = &variable.name;
        match json {
            serde_json::Value::Bool(b) => match variable.kind {
                ParsedType::Boolean => Ok(Value::Boolean(*b)),
                _ => Value::from_f64(variable, f64::from(u8::from(*b))),
            },
            serde_json::Value::Number(n) => {
                let x = n
                    .as_f64()
                    .with_context(|| format!("`{name}`: {n} is not a double"))?;
                Value::from_f64(variable, x)
            }
            serde_json::Value::String(s) => {
                let word = s.trim().to_ascii_lowercase();
                let x = match word.as_str() {
                    "true" => 1.0,
                    "false" => 0.0,
                    _ => word.parse::<f64>().map_err(|_| {
                        anyhow!("`{name}`: {s:?} is neither a number nor a Boolean")
                    })?,
                };
                Value::from_f64(variable, x)
            }
            other => bail!("`{name}`: {other} is not a number or a Boolean"),
        }
    }
}

/// Attributes FMI 3.0 allows on `<Float32>`/`<Float64>` variables (the
/// schema's fmi3RealBaseAttributes and `nominal`) that fmi-schema 0.8 does
/// not declare while it parses these elements with `strict(unknown_attribute)`:
/// it then rejects the whole model description with
/// `unknown field "unit" in element "FmiFloat64"`.
pub const FMI_SCHEMA_UNDECLARED_FLOAT_ATTRIBUTES: [&str; 6] = [
    "quantity",
    "unit",
    "displayUnit",
    "relativeQuantity",
    "unbounded",
    "nominal",
];

/// Applies `edit` to every start tag of the elements `names` (the text from
/// `<Name ` to the first `>` outside quotes); everything else is left byte
/// for byte.
fn edit_start_tags(xml: &str, names: &[&str], edit: impl Fn(&mut String)) -> String {
    let openings: Vec<String> = names.iter().map(|n| format!("<{n} ")).collect();
    let mut out = String::with_capacity(xml.len());
    let mut rest = xml;
    while let Some(start) = openings.iter().filter_map(|o| rest.find(o.as_str())).min() {
        out.push_str(&rest[..start]);
        // The start tag ends at the first `>` outside quotes.
        let mut quote = None;
        let end = rest[start..]
            .char_indices()
            .find(|&(_, c)| match (quote, c) {
                (None, '"' | '\'') => {
                    quote = Some(c);
                    false
                }
                (Some(q), c) if c == q => {
                    quote = None;
                    false
                }
                (None, '>') => true,
                _ => false,
            })
            .map_or(rest.len(), |(i, _)| start + i + 1);
        let mut tag = rest[start..end].to_string();
        edit(&mut tag);
        out.push_str(&tag);
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Removes [`FMI_SCHEMA_UNDECLARED_FLOAT_ATTRIBUTES`] from every `<Float32>`
/// and `<Float64>` start tag; everything else is left byte for byte.
pub fn strip_undeclared_float_attributes(xml: &str) -> String {
    edit_start_tags(xml, &["Float64", "Float32"], |tag| {
        for attribute in FMI_SCHEMA_UNDECLARED_FLOAT_ATTRIBUTES {
            let key = format!(" {attribute}=\"");
            while let Some(a) = tag.find(&key) {
                let value_start = a + key.len();
                let value_end = tag[value_start..]
                    .find('"')
                    .map_or(tag.len(), |e| value_start + e + 1);
                tag.replace_range(a..value_end, "");
            }
        }
    })
}

/// Renames the FMI 3.0 `<BaseUnit>` exponents `A` (ampere) and `K` (kelvin)
/// to the `a` and `k` that fmi-schema 0.8 declares instead (it rejects
/// `unknown field "K" in element "BaseUnit"`); values are kept, everything
/// else is left byte for byte.
pub fn rename_base_unit_attributes(xml: &str) -> String {
    edit_start_tags(xml, &["BaseUnit"], |tag| {
        for (from, to) in [(" A=", " a="), (" K=", " k=")] {
            *tag = tag.replace(from, to);
        }
    })
}

/// A defect of fmi-schema 0.8's FMI 3.0 parser that rejects a valid model
/// description, with the rewrite that hides it from that parser.
struct SchemaDefect {
    /// Whether a parse error is this defect.
    recognizes: fn(&str) -> bool,
    /// The rewrite of the XML.
    patch: fn(&str) -> String,
    /// What the rewrite does, for the note.
    what: &'static str,
}

fn is_float_attribute_error(text: &str) -> bool {
    (text.contains("element \"FmiFloat64\"") || text.contains("element \"FmiFloat32\""))
        && FMI_SCHEMA_UNDECLARED_FLOAT_ATTRIBUTES
            .iter()
            .any(|a| text.contains(&format!("unknown field \"{a}\"")))
}

fn is_base_unit_error(text: &str) -> bool {
    text.contains("element \"BaseUnit\"")
        && (text.contains("unknown field \"A\"") || text.contains("unknown field \"K\""))
}

const FMI3_SCHEMA_DEFECTS: [SchemaDefect; 2] = [
    SchemaDefect {
        recognizes: is_float_attribute_error,
        patch: strip_undeclared_float_attributes,
        what: "fmi-schema 0.8 does not declare FMI 3.0's float attributes quantity, unit, \
               displayUnit, relativeQuantity, unbounded, nominal: they are hidden from its parser",
    },
    SchemaDefect {
        recognizes: is_base_unit_error,
        patch: rename_base_unit_attributes,
        what: "fmi-schema 0.8 declares FMI 3.0's BaseUnit exponents A and K as `a` and `k`: \
               they are renamed for its parser",
    },
];

/// The FMI 3.0 model description as the `fmi` crate's parser accepts it:
/// `xml` itself, or `xml` rewritten around the known defects of
/// fmi-schema 0.8 ([`strip_undeclared_float_attributes`],
/// [`rename_base_unit_attributes`]), with one note per rewrite. Binary,
/// instantiation token and variables are untouched; this master reads the
/// variables from the original text. An error that is no known defect is
/// returned as it is.
pub fn fmi3_description_for_fmi_crate(
    xml: &str,
) -> std::result::Result<(String, Vec<String>), fmi::schema::Error> {
    let mut text = xml.to_string();
    let mut notes = Vec::new();
    let mut applied = [false; FMI3_SCHEMA_DEFECTS.len()];
    loop {
        let error = match Fmi3ModelDescription::deserialize(&text) {
            Ok(_) => return Ok((text, notes)),
            Err(error) => error,
        };
        let message = error.to_string();
        let Some(i) = (0..FMI3_SCHEMA_DEFECTS.len())
            .find(|&i| !applied[i] && (FMI3_SCHEMA_DEFECTS[i].recognizes)(&message))
        else {
            return Err(error);
        };
        applied[i] = true;
        let defect = &FMI3_SCHEMA_DEFECTS[i];
        notes.push(format!(
            "the fmi crate rejects the model description: {message}; {}",
            defect.what
        ));
        text = (defect.patch)(&text);
    }
}

/// The `fmi` crate's import of either version.
enum Import {
    Fmi2(Fmi2Import),
    Fmi3(Fmi3Import),
}

impl Import {
    fn archive_path(&self) -> &Path {
        match self {
            Import::Fmi2(i) => i.archive_path(),
            Import::Fmi3(i) => i.archive_path(),
        }
    }

    fn shared_lib_path(&self, model_identifier: &str) -> Result<PathBuf, fmi::Error> {
        match self {
            Import::Fmi2(i) => i.shared_lib_path(model_identifier),
            Import::Fmi3(i) => i.shared_lib_path(model_identifier),
        }
    }
}

/// An FMU unpacked and imported through the `fmi` crate, with its variable
/// table; not instantiated yet.
pub struct Fmu {
    import: Import,
    description: ParsedDescription,
    default_experiment: DefaultExperiment,
    notes: Vec<String>,
}

impl Fmu {
    /// Unpacks and imports the `.fmu` at `path`. With `expected`, an FMU of
    /// another FMI version is rejected. FMI versions other than 2 and 3 are
    /// [`LoadError::NotSupported`]; an unreadable archive or model
    /// description is [`LoadError::Rejected`].
    pub fn load(path: &Path, expected: Option<FmiVersion>) -> Result<Fmu, LoadError> {
        let shown = path.display();
        let xml = unpack::read_model_description(path).map_err(|e| rejected(format!("{e:#}")))?;

        let minimal = MinModelDescription::deserialize(&xml)
            .map_err(|e| rejected(format!("{shown}: unreadable modelDescription.xml: {e}")))?;
        // (fmi-schema's `major_version` panics on majors above 3.)
        let semver = minimal.version().map_err(|e| {
            rejected(format!(
                "{shown}: fmiVersion {:?} is not understood: {e}",
                minimal.fmi_version
            ))
        })?;
        let found = u32::try_from(semver.major)
            .ok()
            .and_then(FmiVersion::from_major);
        if let Some(expected) = expected
            && found != Some(expected)
        {
            return Err(rejected(format!(
                "expected an {expected} FMU, modelDescription.xml says fmiVersion=\"{}\"",
                minimal.fmi_version
            )));
        }
        let Some(version) = found else {
            return Err(LoadError::NotSupported(format!(
                "{shown} is an FMI {} FMU; this master runs FMI 2.0 and 3.0",
                minimal.fmi_version
            )));
        };

        let description = parse_model_description(&xml)
            .map_err(|e| rejected(format!("{shown}: modelDescription.xml: {e}")))?;
        if description.fmi_version.split('.').next() != Some(&version.major().to_string()) {
            return Err(rejected(format!(
                "{shown}: the model description reads as fmiVersion {}",
                description.fmi_version
            )));
        }

        let dir = unpack::unpack_to_temp_dir(path).map_err(|e| rejected(format!("{e:#}")))?;

        let mut notes = Vec::new();
        let import = match version {
            FmiVersion::Fmi2 => Import::Fmi2(
                <Fmi2Import as FmiImport>::new(dir, &xml)
                    .map_err(|e| rejected(format!("the fmi crate cannot import {shown}: {e}")))?,
            ),
            FmiVersion::Fmi3 => {
                let (for_crate, crate_notes) = fmi3_description_for_fmi_crate(&xml)
                    .map_err(|e| rejected(format!("the fmi crate cannot import {shown}: {e}")))?;
                notes.extend(crate_notes);
                Import::Fmi3(
                    <Fmi3Import as FmiImport>::new(dir, &for_crate).map_err(|e| {
                        rejected(format!("the fmi crate cannot import {shown}: {e}"))
                    })?,
                )
            }
        };
        let default_experiment = match &import {
            Import::Fmi2(i) => DefaultExperiment::of(i.model_description()),
            Import::Fmi3(i) => DefaultExperiment::of(i.model_description()),
        };
        Ok(Fmu {
            import,
            description,
            default_experiment,
            notes,
        })
    }

    /// The FMI version of the FMU.
    pub fn version(&self) -> FmiVersion {
        match self.import {
            Import::Fmi2(_) => FmiVersion::Fmi2,
            Import::Fmi3(_) => FmiVersion::Fmi3,
        }
    }

    /// The model description (variables, units, capabilities).
    pub fn description(&self) -> &ParsedDescription {
        &self.description
    }

    /// `DefaultExperiment` as the `fmi` crate parsed it.
    pub fn default_experiment(&self) -> DefaultExperiment {
        self.default_experiment
    }

    /// What the import had to work around (see
    /// [`strip_undeclared_float_attributes`]), for the master to show.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// A variable by name.
    pub fn variable(&self, name: &str) -> Result<&ParsedVariable> {
        self.description
            .variable_by_name(name)
            .ok_or_else(|| anyhow!("the model description has no variable `{name}`"))
    }

    /// Checks that the binary of this platform is in the archive and exports
    /// every function of the version's Co-Simulation interface (the
    /// function table of [`super::fmi2`] / [`super::fmi3`]).
    pub fn check_binary(&self) -> Result<(), LoadError> {
        let identifier = &self.description.model_identifier;
        let relative = self
            .import
            .shared_lib_path(identifier)
            .map_err(|e| rejected(format!("no binary for this platform: {e}")))?;
        let binary = self.import.archive_path().join(&relative);
        if !binary.is_file() {
            let present = list_binaries(&self.import.archive_path().join("binaries"));
            return Err(rejected(format!(
                "no binary for this platform: {} is not in the archive (it has {present:?})",
                relative.display()
            )));
        }
        // Loading the binary runs its initialisers; that is what importing
        // an FMU means, and the `fmi` crate loads the same file to
        // instantiate it.
        let library = Binary::load(&binary).map_err(|e| {
            rejected(format!(
                "cannot load {}: {}",
                relative.display(),
                e.root_cause()
            ))
        })?;
        let loaded = match self.version() {
            FmiVersion::Fmi2 => Fmi2::load(&library).map(drop),
            FmiVersion::Fmi3 => Fmi3::load(&library).map(drop),
        };
        loaded.map_err(|missing| {
            rejected(format!(
                "{} does not export {missing:?}",
                relative.display()
            ))
        })
    }

    /// Checks the binary ([`Fmu::check_binary`]) and instantiates the FMU for
    /// Co-Simulation (not visible; FMI 3: no event mode, no early return).
    /// `logging_on` enables every log category of the FMU.
    pub fn instantiate(self, instance_name: &str, logging_on: bool) -> Result<Slave, LoadError> {
        self.check_binary()?;
        let instance = match &self.import {
            Import::Fmi2(import) => Instance::Fmi2(Box::new(
                import
                    .instantiate_cs(instance_name, false, logging_on)
                    .map_err(|e| instantiation_failed("fmi2Instantiate (Co-Simulation)", e))?,
            )),
            Import::Fmi3(import) => Instance::Fmi3(Box::new(
                import
                    .instantiate_cs(instance_name, false, logging_on, false, false, &[])
                    .map_err(|e| instantiation_failed("fmi3InstantiateCoSimulation", e))?,
            )),
        };
        Ok(Slave {
            instance,
            fmu: self,
        })
    }
}

impl Fmu {
    /// Checks the binary ([`Fmu::check_binary`], and the Model Exchange
    /// functions) and instantiates the FMU for Model Exchange (not
    /// visible). `logging_on` enables every log category of the FMU.
    pub fn instantiate_model_exchange(
        self,
        instance_name: &str,
        logging_on: bool,
    ) -> Result<Slave, LoadError> {
        self.check_binary()?;
        if !self.description.model_exchange {
            return Err(rejected("the FMU declares no ModelExchange interface"));
        }
        let instance = match &self.import {
            Import::Fmi2(import) => Instance::Fmi2Me(Box::new(
                import
                    .instantiate_me(instance_name, false, logging_on)
                    .map_err(|e| instantiation_failed("fmi2Instantiate (Model Exchange)", e))?,
            )),
            Import::Fmi3(import) => Instance::Fmi3Me(Box::new(
                import
                    .instantiate_me(instance_name, false, logging_on)
                    .map_err(|e| instantiation_failed("fmi3InstantiateModelExchange", e))?,
            )),
        };
        Ok(Slave {
            instance,
            fmu: self,
        })
    }
}

fn instantiation_failed(function: &str, error: fmi::Error) -> LoadError {
    match error {
        fmi::Error::Instantiation => rejected(format!(
            "{function} returned NULL (the FMU's log says why, e.g. a wrong GUID / \
             instantiation token)"
        )),
        other => rejected(format!("{function}: {other}")),
    }
}

fn list_binaries(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for platform in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        for file in std::fs::read_dir(platform.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            if let Ok(relative) = file.path().strip_prefix(dir.parent().unwrap_or(dir)) {
                found.push(relative.display().to_string());
            }
        }
    }
    found.sort();
    found
}

/// The `fmi` crate's instance of either version and interface.
enum Instance {
    Fmi2(Box<Fmi2Instance>),
    Fmi3(Box<Fmi3Instance>),
    Fmi2Me(Box<Fmi2InstanceMe>),
    Fmi3Me(Box<Fmi3InstanceMe>),
}

/// Runs `$body` with `$i` bound to a Model Exchange instance of either
/// version; an error for a Co-Simulation instance.
macro_rules! me_only {
    ($inst:expr, $i:ident => $body:expr) => {
        match $inst {
            Instance::Fmi2Me($i) => $body,
            Instance::Fmi3Me($i) => $body,
            Instance::Fmi2(_) | Instance::Fmi3(_) => {
                bail!("the instance was created for Co-Simulation, not Model Exchange")
            }
        }
    };
}

/// Runs `$fmi2` with `$i` bound to the FMI 2 instance (either interface) or
/// `$fmi3` with `$j` bound to the FMI 3 one: the functions both interfaces
/// share (get/set, initialization, terminate).
macro_rules! by_version {
    ($inst:expr, $i:ident => $fmi2:expr, $j:ident => $fmi3:expr $(,)?) => {
        match $inst {
            Instance::Fmi2($i) => $fmi2,
            Instance::Fmi2Me($i) => $fmi2,
            Instance::Fmi3($j) => $fmi3,
            Instance::Fmi3Me($j) => $fmi3,
        }
    };
}

/// What `doStep` reported besides its status. For FMI 2 (no out-arguments)
/// an OK step is complete: the flags are false and the last successful time
/// is the end of the step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepReport {
    /// FMI 3 `eventHandlingNeeded`.
    pub event_handling_needed: bool,
    /// FMI 3 `terminateSimulation`: the FMU cannot go on.
    pub terminate_simulation: bool,
    /// FMI 3 `earlyReturn`.
    pub early_return: bool,
    /// FMI 3 `lastSuccessfulTime`, s.
    pub last_successful_time: f64,
}

impl StepReport {
    /// Whether the step reached `t + h` (within 1e-9 relative).
    pub fn reached(&self, t: f64, h: f64) -> bool {
        !self.early_return
            && (self.last_successful_time - (t + h)).abs() <= 1e-9 * (t + h).abs().max(1.0)
    }
}

/// An instantiated Co-Simulation FMU; freed (`fmi2FreeInstance` /
/// `fmi3FreeInstance`) when dropped or by [`Slave::free`].
pub struct Slave {
    // Declared first so that it is dropped (freed) before the import and its
    // unpacked folder.
    instance: Instance,
    fmu: Fmu,
}

/// Turns an `fmi` crate status error into an error that names the call.
fn call<T, E: std::fmt::Debug>(what: &str, r: std::result::Result<T, E>) -> Result<()> {
    r.map(|_| ()).map_err(|e| anyhow!("{what} returned {e:?}"))
}

impl Slave {
    /// The FMI version of the FMU.
    pub fn version(&self) -> FmiVersion {
        self.fmu.version()
    }

    /// The imported FMU.
    pub fn fmu(&self) -> &Fmu {
        &self.fmu
    }

    /// The model description.
    pub fn description(&self) -> &ParsedDescription {
        &self.fmu.description
    }

    /// A variable by name.
    pub fn variable(&self, name: &str) -> Result<&ParsedVariable> {
        self.fmu.variable(name)
    }

    /// Sets one variable by value reference (`fmi2SetReal`/`Integer`/
    /// `Boolean`, `fmi3SetFloat64`/`Int32`/`Boolean`).
    pub fn set_value(&mut self, vr: u32, value: Value) -> Result<()> {
        by_version!(&mut self.instance,
            i => match value {
                Value::Real(x) => call("fmi2SetReal", i.set_real(&[vr], &[x]))?,
                Value::Integer(n) => call("fmi2SetInteger", i.set_integer(&[vr], &[n]))?,
                Value::Boolean(b) => {
                    call("fmi2SetBoolean", i.set_boolean(&[vr], &[i32::from(b)]))?
                }
            },
            i => match value {
                Value::Real(x) => call("fmi3SetFloat64", i.set_float64(&[vr], &[x]))?,
                Value::Integer(n) => call("fmi3SetInt32", i.set_int32(&[vr], &[n]))?,
                Value::Boolean(b) => call("fmi3SetBoolean", i.set_boolean(&[vr], &[b]))?,
            },
        );
        Ok(())
    }

    /// Gets one variable of type `kind` by value reference.
    pub fn get_value(&mut self, vr: u32, kind: &ParsedType) -> Result<Value> {
        if let ParsedType::Other(t) = kind {
            bail!("value reference {vr} has type {t}, not supported");
        }
        Ok(by_version!(&mut self.instance,
            i => match kind {
                ParsedType::Integer => {
                    let mut v = [0];
                    call("fmi2GetInteger", i.get_integer(&[vr], &mut v))?;
                    Value::Integer(v[0])
                }
                ParsedType::Boolean => {
                    let mut v = [0];
                    call("fmi2GetBoolean", i.get_boolean(&[vr], &mut v))?;
                    Value::Boolean(v[0] != 0)
                }
                _ => {
                    let mut v = [0.0];
                    call("fmi2GetReal", i.get_real(&[vr], &mut v))?;
                    Value::Real(v[0])
                }
            },
            i => match kind {
                ParsedType::Integer => {
                    let mut v = [0];
                    call("fmi3GetInt32", i.get_int32(&[vr], &mut v))?;
                    Value::Integer(v[0])
                }
                ParsedType::Boolean => {
                    let mut v = [false];
                    call("fmi3GetBoolean", i.get_boolean(&[vr], &mut v))?;
                    Value::Boolean(v[0])
                }
                _ => {
                    let mut v = [0.0];
                    call("fmi3GetFloat64", i.get_float64(&[vr], &mut v))?;
                    Value::Real(v[0])
                }
            },
        ))
    }

    /// Sets a variable by name; the value must have the variable's type.
    pub fn set(&mut self, name: &str, value: Value) -> Result<()> {
        let v = self.variable(name)?;
        let vr = v.value_reference;
        let matches = matches!(
            (&v.kind, value),
            (ParsedType::Real, Value::Real(_))
                | (ParsedType::Integer, Value::Integer(_))
                | (ParsedType::Boolean, Value::Boolean(_))
        );
        ensure!(matches, "`{name}` is {:?}, cannot set {value:?}", v.kind);
        self.set_value(vr, value)
            .with_context(|| format!("setting `{name}` = {value:?}"))
    }

    /// Gets a variable by name, typed after the model description.
    pub fn get(&mut self, name: &str) -> Result<Value> {
        let v = self.variable(name)?;
        let (vr, kind) = (v.value_reference, v.kind.clone());
        self.get_value(vr, &kind)
            .with_context(|| format!("getting `{name}`"))
    }

    /// Sets a Real (FMI 3 Float64) variable by name.
    pub fn set_real(&mut self, name: &str, value: f64) -> Result<()> {
        self.set(name, Value::Real(value))
    }

    /// Sets an Integer (FMI 3 Int32) variable by name.
    pub fn set_integer(&mut self, name: &str, value: i32) -> Result<()> {
        self.set(name, Value::Integer(value))
    }

    /// Sets a Boolean variable by name.
    pub fn set_boolean(&mut self, name: &str, value: bool) -> Result<()> {
        self.set(name, Value::Boolean(value))
    }

    /// Gets a Real (FMI 3 Float64) variable by name.
    pub fn get_real(&mut self, name: &str) -> Result<f64> {
        match self.get(name)? {
            Value::Real(x) => Ok(x),
            other => bail!("`{name}` is not Real: {other:?}"),
        }
    }

    /// Gets an Integer (FMI 3 Int32) variable by name.
    pub fn get_integer(&mut self, name: &str) -> Result<i32> {
        match self.get(name)? {
            Value::Integer(n) => Ok(n),
            other => bail!("`{name}` is not Integer: {other:?}"),
        }
    }

    /// Gets a Boolean variable by name.
    pub fn get_boolean(&mut self, name: &str) -> Result<bool> {
        match self.get(name)? {
            Value::Boolean(b) => Ok(b),
            other => bail!("`{name}` is not Boolean: {other:?}"),
        }
    }

    /// Gets Real (FMI 3 Float64) variables by value reference in one call.
    pub fn get_reals(&mut self, vrs: &[u32], out: &mut [f64]) -> Result<()> {
        by_version!(&mut self.instance,
            i => call("fmi2GetReal", i.get_real(vrs, out))?,
            i => call("fmi3GetFloat64", i.get_float64(vrs, out))?,
        );
        Ok(())
    }

    /// Sets start values before initialization (the instance must be in
    /// Instantiated state). FMI 3 structural parameters are set in
    /// Configuration Mode (entered and left here, only when there are
    /// some); every other value after it.
    pub fn set_start_values(&mut self, values: &[(String, Value)]) -> Result<()> {
        let fmi3 = self.version() == FmiVersion::Fmi3;
        let mut structural = Vec::new();
        let mut others = Vec::new();
        for (name, value) in values {
            if fmi3 && self.variable(name)?.structural {
                structural.push((name, *value));
            } else {
                others.push((name, *value));
            }
        }
        if !structural.is_empty() {
            self.enter_configuration_mode()?;
            for (name, value) in structural {
                self.set(name, value)?;
            }
            self.exit_configuration_mode()?;
        }
        for (name, value) in others {
            self.set(name, value)?;
        }
        Ok(())
    }

    /// FMI 3 `fmi3EnterConfigurationMode` (an error for FMI 2).
    pub fn enter_configuration_mode(&mut self) -> Result<()> {
        by_version!(&mut self.instance,
            _i => bail!("FMI 2.0 has no Configuration Mode"),
            i => call(
                "fmi3EnterConfigurationMode",
                Fmi3Common::enter_configuration_mode(i.as_mut()),
            )?,
        );
        Ok(())
    }

    /// FMI 3 `fmi3ExitConfigurationMode` (an error for FMI 2).
    pub fn exit_configuration_mode(&mut self) -> Result<()> {
        by_version!(&mut self.instance,
            _i => bail!("FMI 2.0 has no Configuration Mode"),
            i => call(
                "fmi3ExitConfigurationMode",
                Fmi3Common::exit_configuration_mode(i.as_mut()),
            )?,
        );
        Ok(())
    }

    /// Sets up the experiment (FMI 2 `fmi2SetupExperiment`) and enters
    /// Initialization Mode: start and stop time in s, the relative
    /// tolerance the FMU's solver should use.
    pub fn enter_initialization(
        &mut self,
        tolerance: Option<f64>,
        start: f64,
        stop: Option<f64>,
    ) -> Result<()> {
        by_version!(&mut self.instance,
            i => {
                call(
                    "fmi2SetupExperiment",
                    Fmi2Common::setup_experiment(i.as_mut(), tolerance, start, stop),
                )?;
                call(
                    "fmi2EnterInitializationMode",
                    Fmi2Common::enter_initialization_mode(i.as_mut()),
                )?;
            },
            i => {
                call(
                    "fmi3EnterInitializationMode",
                    Fmi3Common::enter_initialization_mode(i.as_mut(), tolerance, start, stop),
                )?;
            },
        );
        Ok(())
    }

    /// Leaves Initialization Mode (Co-Simulation: into Step Mode; Model
    /// Exchange: through the event iteration into Continuous-Time Mode).
    pub fn exit_initialization(&mut self) -> Result<()> {
        by_version!(&mut self.instance,
            i => call(
                "fmi2ExitInitializationMode",
                Fmi2Common::exit_initialization_mode(i.as_mut()),
            )?,
            i => call(
                "fmi3ExitInitializationMode",
                Fmi3Common::exit_initialization_mode(i.as_mut()),
            )?,
        );
        if self.is_model_exchange() {
            self.event_iteration()?;
            self.enter_continuous_time_mode()?;
        }
        Ok(())
    }

    /// One communication step from `t` by `h` (s). A status other than OK
    /// or Warning is an error naming the call (with the last successful
    /// time where the FMU reports one).
    pub fn do_step(&mut self, t: f64, h: f64) -> Result<StepReport> {
        match &mut self.instance {
            Instance::Fmi2Me(_) | Instance::Fmi3Me(_) => {
                bail!("doStep: the instance was created for Model Exchange")
            }
            Instance::Fmi2(i) => match i.do_step(t, h, true) {
                Ok(_) => Ok(StepReport {
                    event_handling_needed: false,
                    terminate_simulation: false,
                    early_return: false,
                    last_successful_time: t + h,
                }),
                Err(e) => {
                    let last = i
                        .last_successful_time()
                        .map_or_else(|_| String::new(), |l| format!(", lastSuccessfulTime {l}"));
                    bail!("fmi2DoStep(t = {t}, h = {h}) returned {e:?}{last}")
                }
            },
            Instance::Fmi3(i) => {
                let mut report = StepReport {
                    event_handling_needed: false,
                    terminate_simulation: false,
                    early_return: false,
                    last_successful_time: f64::NAN,
                };
                let status = i.do_step(
                    t,
                    h,
                    true,
                    &mut report.event_handling_needed,
                    &mut report.terminate_simulation,
                    &mut report.early_return,
                    &mut report.last_successful_time,
                );
                match status {
                    Ok(_) => Ok(report),
                    Err(e) => bail!(
                        "fmi3DoStep(t = {t}, h = {h}) returned {e:?} (lastSuccessfulTime {}, \
                         terminateSimulation {})",
                        report.last_successful_time,
                        report.terminate_simulation
                    ),
                }
            }
        }
    }

    /// Whether the instance was created for Model Exchange.
    pub fn is_model_exchange(&self) -> bool {
        matches!(self.instance, Instance::Fmi2Me(_) | Instance::Fmi3Me(_))
    }

    /// Event Mode: enters it, iterates `newDiscreteStates` /
    /// `updateDiscreteStates` until no further iteration is asked for, and
    /// enters Continuous-Time Mode. An FMU that asks to terminate, changes
    /// its states' values or nominals, or sets a time event is reported
    /// (this master integrates between communication points only).
    pub fn handle_event(&mut self) -> Result<()> {
        self.enter_event_mode()?;
        self.leave_event_mode()
    }

    /// `enterEventMode` (Model Exchange): discrete input changes go here.
    pub fn enter_event_mode(&mut self) -> Result<()> {
        me_only!(&mut self.instance, i => call("enterEventMode", FmiEventHandler::enter_event_mode(i.as_mut()))?);
        Ok(())
    }

    /// The event iteration, then Continuous-Time Mode (see
    /// [`Slave::handle_event`]).
    pub fn leave_event_mode(&mut self) -> Result<()> {
        self.event_iteration()?;
        self.enter_continuous_time_mode()
    }

    fn event_iteration(&mut self) -> Result<()> {
        for _ in 0..100 {
            let mut flags = fmi::EventFlags::default();
            me_only!(&mut self.instance, i => call(
                "newDiscreteStates/updateDiscreteStates",
                FmiEventHandler::update_discrete_states(i.as_mut(), &mut flags),
            )?);
            ensure!(
                !flags.terminate_simulation,
                "the FMU asked to terminate at an event"
            );
            if !flags.discrete_states_need_update {
                return Ok(());
            }
        }
        bail!("the event iteration did not settle in 100 rounds")
    }

    fn enter_continuous_time_mode(&mut self) -> Result<()> {
        me_only!(&mut self.instance, i => call(
            "enterContinuousTimeMode",
            FmiModelExchange::enter_continuous_time_mode(i.as_mut()),
        )?);
        Ok(())
    }

    /// The number of continuous states (the model description's
    /// derivatives).
    pub fn state_count(&self) -> usize {
        self.fmu.description.continuous_states().len()
    }

    /// `setTime` (Model Exchange), s.
    pub fn set_time(&mut self, t: f64) -> Result<()> {
        me_only!(&mut self.instance, i => call("setTime", FmiModelExchange::set_time(i.as_mut(), t))?);
        Ok(())
    }

    /// `getContinuousStates` (Model Exchange).
    pub fn get_states(&mut self, x: &mut [f64]) -> Result<()> {
        me_only!(&mut self.instance, i => call(
            "getContinuousStates",
            FmiModelExchange::get_continuous_states(i.as_mut(), x),
        )?);
        Ok(())
    }

    /// `setContinuousStates` (Model Exchange).
    pub fn set_states(&mut self, x: &[f64]) -> Result<()> {
        me_only!(&mut self.instance, i => call(
            "setContinuousStates",
            FmiModelExchange::set_continuous_states(i.as_mut(), x),
        )?);
        Ok(())
    }

    /// `getDerivatives` / `getContinuousStateDerivatives` (Model Exchange).
    pub fn get_derivatives(&mut self, dx: &mut [f64]) -> Result<()> {
        me_only!(&mut self.instance, i => call(
            "getDerivatives",
            FmiModelExchange::get_continuous_state_derivatives(i.as_mut(), dx),
        )?);
        Ok(())
    }

    /// `getNominalsOfContinuousStates` (Model Exchange).
    pub fn get_nominals(&mut self, nominal: &mut [f64]) -> Result<()> {
        me_only!(&mut self.instance, i => call(
            "getNominalsOfContinuousStates",
            FmiModelExchange::get_nominals_of_continuous_states(i.as_mut(), nominal),
        )?);
        Ok(())
    }

    /// `completedIntegratorStep` (Model Exchange): whether the FMU asks for
    /// an event.
    pub fn completed_integrator_step(&mut self) -> Result<bool> {
        let (mut event, mut stop) = (false, false);
        me_only!(&mut self.instance, i => call(
            "completedIntegratorStep",
            FmiModelExchange::completed_integrator_step(i.as_mut(), true, &mut event, &mut stop),
        )?);
        ensure!(!stop, "the FMU asked to terminate after an integrator step");
        Ok(event)
    }

    /// `fmi2Terminate` / `fmi3Terminate`.
    pub fn terminate(&mut self) -> Result<()> {
        by_version!(&mut self.instance,
            i => call("fmi2Terminate", Fmi2Common::terminate(i.as_mut()))?,
            i => call("fmi3Terminate", Fmi3Common::terminate(i.as_mut()))?,
        );
        Ok(())
    }

    /// Frees the instance (`fmi2FreeInstance` / `fmi3FreeInstance`), then
    /// the unpacked FMU.
    pub fn free(self) {
        let Slave { instance, fmu } = self;
        drop(instance);
        drop(fmu);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn variable(kind: ParsedType) -> ParsedVariable {
        ParsedVariable {
            name: "v".into(),
            value_reference: 1,
            description: String::new(),
            causality: model_description::Causality::Parameter,
            variability: model_description::Variability::Fixed,
            initial: None,
            initial_attribute: None,
            kind,
            start: None,
            min: None,
            max: None,
            nominal: None,
            unit: None,
            display_unit: None,
            structural: false,
            derivative: None,
        }
    }

    #[test]
    fn values_are_typed_after_the_variable() {
        let real = variable(ParsedType::Real);
        let int = variable(ParsedType::Integer);
        let boolean = variable(ParsedType::Boolean);
        let json = |s: &str| serde_json::from_str::<serde_json::Value>(s).unwrap();
        assert_eq!(
            Value::from_json(&real, &json("2")).unwrap(),
            Value::Real(2.0)
        );
        assert_eq!(
            Value::from_json(&real, &json("true")).unwrap(),
            Value::Real(1.0)
        );
        assert_eq!(
            Value::from_json(&int, &json("4.0")).unwrap(),
            Value::Integer(4)
        );
        assert!(Value::from_json(&int, &json("4.5")).is_err());
        assert!(Value::from_json(&int, &json("1e10")).is_err());
        assert_eq!(
            Value::from_json(&boolean, &json("false")).unwrap(),
            Value::Boolean(false)
        );
        assert_eq!(
            Value::from_json(&boolean, &json("\"True\"")).unwrap(),
            Value::Boolean(true)
        );
        assert_eq!(
            Value::from_f64(&boolean, 1.0).unwrap(),
            Value::Boolean(true)
        );
        assert!(Value::from_json(&boolean, &json("\"maybe\"")).is_err());
        assert!(
            Value::from_json(&variable(ParsedType::Other("String".into())), &json("1")).is_err()
        );
        assert_eq!(Value::Boolean(true).as_f64(), 1.0);
        assert_eq!(Value::Integer(-3).as_f64(), -3.0);
    }

    #[test]
    fn float_attributes_are_stripped_and_nothing_else() {
        let xml = "<a><Float32 name=\"p\" unit=\"Pa\" start=\"1\"/><Int32 name=\"n\" \
                   unit=\"1\"/><Float64 name='q' quantity=\"Q\" nominal=\"2\">\
                   </Float64></a>";
        assert_eq!(
            strip_undeclared_float_attributes(xml),
            "<a><Float32 name=\"p\" start=\"1\"/><Int32 name=\"n\" unit=\"1\"/><Float64 \
             name='q'></Float64></a>"
        );
    }

    #[test]
    fn base_unit_exponents_are_renamed_and_nothing_else() {
        let xml = "<Unit name=\"K\"><BaseUnit K=\"1\"/></Unit><Unit name=\"W/(A.K)\">\
                   <BaseUnit kg=\"1\" A=\"-1\" K=\"-1\"/></Unit><Float64 name=\"K\"/>";
        assert_eq!(
            rename_base_unit_attributes(xml),
            "<Unit name=\"K\"><BaseUnit k=\"1\"/></Unit><Unit name=\"W/(A.K)\">\
             <BaseUnit kg=\"1\" a=\"-1\" k=\"-1\"/></Unit><Float64 name=\"K\"/>"
        );
    }

    /// A minimal valid FMI 3.0 description with both fmi-schema 0.8 defects.
    fn fmi3_xml(extra_attribute: &str) -> String {
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<fmiModelDescription \
             fmiVersion=\"3.0\" modelName=\"M\" instantiationToken=\"{{1}}\">\n\
             <CoSimulation modelIdentifier=\"M\"/>\n<UnitDefinitions><Unit name=\"K\">\
             <BaseUnit K=\"1\"/></Unit></UnitDefinitions>\n<ModelVariables>\n<Float64 \
             name=\"time\" valueReference=\"0\" causality=\"independent\" \
             variability=\"continuous\"/>\n<Float64 name=\"T\" valueReference=\"1\" \
             causality=\"output\" variability=\"continuous\" unit=\"K\"{extra_attribute}/>\n\
             </ModelVariables>\n<ModelStructure><Output valueReference=\"1\"/>\
             </ModelStructure>\n</fmiModelDescription>\n"
        )
    }

    #[test]
    fn known_fmi_schema_defects_are_worked_around_and_others_are_not() {
        let xml = fmi3_xml("");
        assert!(Fmi3ModelDescription::deserialize(&xml).is_err());
        let (patched, notes) = fmi3_description_for_fmi_crate(&xml).unwrap();
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(Fmi3ModelDescription::deserialize(&patched).is_ok());
        assert!(patched.contains("<BaseUnit k=\"1\"/>") && !patched.contains("unit=\"K\""));
        // An attribute FMI 3.0 does not have stays an error.
        assert!(fmi3_description_for_fmi_crate(&fmi3_xml(" colour=\"red\"")).is_err());
    }

    #[test]
    fn a_missing_or_foreign_archive_is_rejected() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("none.fmu");
        assert!(matches!(
            Fmu::load(&missing, None),
            Err(LoadError::Rejected(_))
        ));
        let text = dir.path().join("text.fmu");
        std::fs::write(&text, "not a zip").unwrap();
        assert!(matches!(
            Fmu::load(&text, None),
            Err(LoadError::Rejected(_))
        ));
    }
}
