//! The instantiation token (FMI 3 `instantiationToken`, FMI 2 `guid`): a
//! fingerprint of the description's content that the FMU binary checks when
//! a master instantiates it.

use std::fmt::Write as _;

use sha2::{Digest, Sha256};

use crate::model::{ModelDescription, VariableType};

impl ModelDescription {
    /// The canonical text the instantiation token is hashed from: model name,
    /// model identifier, version, and for every variable (in table order) its
    /// name, value reference, causality, variability, effective `initial`,
    /// type, start, min, max, unit and nominal. Descriptions, display units,
    /// capabilities and the documentation are not part of it.
    ///
    /// Strings are written quoted and escaped and numbers in their exact
    /// shortest form, so different contents never give the same text.
    pub fn canonical_text(&self) -> String {
        let mut t = String::new();
        // `write!` into a String cannot fail.
        let _ = writeln!(t, "modelName={:?}", self.model_name);
        let _ = writeln!(t, "modelIdentifier={:?}", self.model_identifier);
        let _ = writeln!(t, "version={:?}", self.version);
        let _ = writeln!(t, "variables={}", self.variables.len());
        for v in &self.variables {
            let _ = write!(
                t,
                "var name={:?} vr={} causality={}{} variability={} initial={}",
                v.name,
                v.value_reference,
                v.causality.as_str(),
                if v.structural { "(structural)" } else { "" },
                v.variability.as_str(),
                v.effective_initial().map_or("-", |i| i.as_str()),
            );
            match &v.kind {
                VariableType::Real {
                    start,
                    min,
                    max,
                    unit,
                    display_unit: _,
                    nominal,
                } => {
                    let _ = write!(
                        t,
                        " type=Real start={} min={} max={} unit={:?} nominal={}",
                        opt(start),
                        opt(min),
                        opt(max),
                        unit,
                        opt(nominal)
                    );
                }
                VariableType::Integer { start, min, max } => {
                    let _ = write!(
                        t,
                        " type=Integer start={} min={} max={}",
                        opt(start),
                        opt(min),
                        opt(max)
                    );
                }
                VariableType::Boolean { start } => {
                    let _ = write!(t, " type=Boolean start={}", opt(start));
                }
            }
            t.push('\n');
        }
        t
    }

    /// The instantiation token: `{xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}`
    /// made of the first 128 bits of the SHA-256 of [`Self::canonical_text`],
    /// with the version and variant bits of an RFC 9562 version-8 (custom)
    /// UUID. Deterministic; it changes whenever the model name, identifier,
    /// version or any variable's interface attributes change. Written as the
    /// FMI 2 `guid` and the FMI 3 `instantiationToken`.
    pub fn instantiation_token(&self) -> String {
        let digest = Sha256::digest(self.canonical_text().as_bytes());
        let mut b = [0u8; 16];
        b.copy_from_slice(&digest[..16]);
        b[6] = (b[6] & 0x0f) | 0x80; // version 8: custom
        b[8] = (b[8] & 0x3f) | 0x80; // variant: RFC 9562
        let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
        format!(
            "{{{}-{}-{}-{}-{}}}",
            &hex[0..8],
            &hex[8..12],
            &hex[12..16],
            &hex[16..20],
            &hex[20..32]
        )
    }
}

/// `Some(x)` as its exact `Debug` form, `None` as `-`.
fn opt<T: std::fmt::Debug>(x: &Option<T>) -> String {
    x.as_ref()
        .map_or_else(|| "-".to_owned(), |v| format!("{v:?}"))
}

#[cfg(test)]
mod tests {
    use crate::model::VariableType;
    use crate::test_support::sample;

    fn is_guid_like(s: &str) -> bool {
        let b = s.as_bytes();
        b.len() == 38
            && b[0] == b'{'
            && b[37] == b'}'
            && s[1..37].char_indices().all(|(i, c)| {
                if [8, 13, 18, 23].contains(&i) {
                    c == '-'
                } else {
                    c.is_ascii_hexdigit() && !c.is_ascii_uppercase()
                }
            })
    }

    #[test]
    fn token_is_guid_like_and_stable() {
        let md = sample();
        let t = md.instantiation_token();
        assert!(is_guid_like(&t), "{t}");
        assert_eq!(t, md.clone().instantiation_token());
        assert_eq!(t, sample().instantiation_token());
    }

    #[test]
    fn token_changes_when_a_start_value_changes() {
        let md = sample();
        let mut changed = md.clone();
        let ps = changed
            .variables
            .iter_mut()
            .find(|v| v.name == "ps")
            .unwrap();
        if let VariableType::Real { start, .. } = &mut ps.kind {
            // smallest possible change
            *start = start.map(|s| f64::from_bits(s.to_bits() + 1));
        }
        assert_ne!(md.instantiation_token(), changed.instantiation_token());
    }

    #[test]
    fn token_changes_with_interface_but_not_with_documentation() {
        let md = sample();
        let t = md.instantiation_token();

        let mut other = md.clone();
        other.variables[1].value_reference = 77;
        assert_ne!(t, other.instantiation_token());

        let mut other = md.clone();
        other.variables[3].name = "p1x".into();
        assert_ne!(t, other.instantiation_token());

        let mut other = md.clone();
        other.version = "0.2.0".into();
        assert_ne!(t, other.instantiation_token());

        let mut other = md.clone();
        other.variables[2] = other.variables[2].clone().unit("Pa", Some("MPa"));
        other.variables[2].description = "changed".into();
        other.documentation.page_markdown = "changed".into();
        assert_eq!(t, other.instantiation_token());
    }
}
