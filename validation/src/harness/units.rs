//! Units people read: every value inside the FMUs and in the scenario files
//! is SI, and what the tools print or plot for people shows it in the
//! display unit the FMU declares (bar, mm, L/min, kN), with the SI value
//! beside it where both matter.

use model_description::ParsedDescription;

/// A unit to show values in: `display = factor * SI + offset`.
#[derive(Debug, Clone, PartialEq)]
pub struct DisplayUnit {
    /// The SI unit of the values (`Pa`, `m3/s`; empty when unknown).
    pub si: String,
    /// The unit shown (`bar`, `L/min`).
    pub name: String,
    /// `display = factor * SI + offset`.
    pub factor: f64,
    /// `display = factor * SI + offset`.
    pub offset: f64,
}

/// The display units of the hydraulic quantities, by SI unit, for signals
/// whose FMU declares none (and for tables that have no FMU at hand).
const DEFAULTS: [(&str, &str, f64); 7] = [
    ("Pa", "bar", 1e-5),
    ("m", "mm", 1e3),
    ("m/s", "mm/s", 1e3),
    ("m3/s", "L/min", 6e4),
    ("m3", "cm3", 1e6),
    ("N", "kN", 1e-3),
    ("1/Pa", "1/bar", 1e5),
];

impl DisplayUnit {
    /// The SI unit itself (factor 1).
    pub fn si(unit: &str) -> Self {
        DisplayUnit {
            si: unit.to_string(),
            name: unit.to_string(),
            factor: 1.0,
            offset: 0.0,
        }
    }

    /// The project's usual display unit of an SI unit (bar for Pa, L/min for
    /// m3/s, mm for m, kN for N, ...), or the SI unit itself.
    pub fn for_si(unit: &str) -> Self {
        DEFAULTS
            .iter()
            .find(|(si, _, _)| *si == unit)
            .map(|&(si, name, factor)| DisplayUnit {
                si: si.to_string(),
                name: name.to_string(),
                factor,
                offset: 0.0,
            })
            .unwrap_or_else(|| Self::si(unit))
    }

    /// The display unit of a variable of an FMU: the `displayUnit` its model
    /// description declares (with the factor and offset of its
    /// `UnitDefinitions`), else [`DisplayUnit::for_si`] of its unit.
    pub fn of(description: &ParsedDescription, variable: &str) -> Self {
        let Some(v) = description.variable_by_name(variable) else {
            return Self::si("");
        };
        let unit = v.unit.clone().unwrap_or_default();
        let declared = v.display_unit.as_ref().and_then(|name| {
            let d = description
                .unit_definitions
                .get(&unit)?
                .display_unit(name)?;
            (!d.inverse).then(|| DisplayUnit {
                si: unit.clone(),
                name: d.name.clone(),
                factor: d.factor,
                offset: d.offset,
            })
        });
        declared.unwrap_or_else(|| Self::for_si(&unit))
    }

    /// Whether the display unit is the SI unit.
    pub fn is_si(&self) -> bool {
        self.factor == 1.0 && self.offset == 0.0
    }

    /// A value in the display unit.
    pub fn value(&self, si: f64) -> f64 {
        self.factor * si + self.offset
    }

    /// A difference (amplitude, error) in the display unit: no offset.
    pub fn delta(&self, si: f64) -> f64 {
        self.factor * si
    }

    /// `"100.68 bar"`.
    pub fn show(&self, si: f64) -> String {
        with_unit(self.value(si), &self.name)
    }

    /// A difference (amplitude, error) shown in the display unit: `"3 bar"`.
    pub fn show_delta(&self, si: f64) -> String {
        with_unit(self.delta(si), &self.name)
    }

    /// `"100.68 bar (1.0068e7 Pa)"`, or only the SI value when the display
    /// unit is the SI unit.
    pub fn show_both(&self, si: f64) -> String {
        if self.is_si() {
            with_unit(si, &self.si)
        } else {
            format!("{} ({})", self.show(si), with_unit_exp(si, &self.si))
        }
    }

    /// Like [`DisplayUnit::show_both`] for a difference (no offset).
    pub fn show_delta_both(&self, si: f64) -> String {
        if self.is_si() {
            with_unit(si, &self.si)
        } else {
            format!("{} ({})", self.show_delta(si), with_unit_exp(si, &self.si))
        }
    }
}

fn with_unit(value: f64, unit: &str) -> String {
    if unit.is_empty() || unit == "1" {
        number(value)
    } else {
        format!("{} {unit}", number(value))
    }
}

fn with_unit_exp(value: f64, unit: &str) -> String {
    if unit.is_empty() || unit == "1" {
        format!("{value:.4e}")
    } else {
        format!("{value:.4e} {unit}")
    }
}

/// A number with five significant digits (see [`significant`]).
pub fn number(value: f64) -> String {
    significant(value, 5)
}

/// A number with `digits` significant digits, in positional notation from
/// 1e-3 to 1e6 and in exponent notation outside (trailing zeros dropped).
pub fn significant(value: f64, digits: usize) -> String {
    if !value.is_finite() {
        return format!("{value}");
    }
    if value == 0.0 {
        return "0".to_string();
    }
    let digits = digits.max(1);
    let magnitude = value.abs().log10().floor() as i32;
    if (-3..6).contains(&magnitude) {
        let decimals = (digits as i32 - 1 - magnitude).max(0) as usize;
        let text = format!("{value:.decimals$}");
        if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            text
        }
    } else {
        let decimals = digits - 1;
        format!("{value:.decimals$e}")
    }
}

/// The unit of `numerator / denominator` (units written as `a b/c d`, e.g.
/// `m3/s`, `Pa`), with common factors cancelled: `None` for a dimensionless
/// ratio, e.g. `ratio_unit("m3/s", "Pa") = Some("m3/(s Pa)")`,
/// `ratio_unit("L/min", "bar") = Some("L/(min bar)")`,
/// `ratio_unit("Pa", "Pa") = None`.
pub fn ratio_unit(numerator: &str, denominator: &str) -> Option<String> {
    fn parts(s: &str) -> Vec<&str> {
        s.trim_matches(|c| c == '(' || c == ')')
            .split([' ', '.', '*'])
            .filter(|t| !t.is_empty() && *t != "1")
            .collect()
    }
    fn split(unit: &str) -> (Vec<&str>, Vec<&str>) {
        let (top, bottom) = unit.split_once('/').unwrap_or((unit, ""));
        (parts(top), parts(bottom))
    }
    let (nt, nb) = split(numerator);
    let (dt, db) = split(denominator);
    let mut top: Vec<&str> = nt.into_iter().chain(db).collect();
    let mut bottom: Vec<&str> = nb.into_iter().chain(dt).collect();
    let mut i = 0;
    while i < top.len() {
        if let Some(j) = bottom.iter().position(|b| *b == top[i]) {
            bottom.remove(j);
            top.remove(i);
        } else {
            i += 1;
        }
    }
    if top.is_empty() && bottom.is_empty() {
        return None;
    }
    let top = if top.is_empty() {
        "1".to_string()
    } else {
        top.join(" ")
    };
    Some(match bottom.len() {
        0 => top,
        1 => format!("{top}/{}", bottom[0]),
        _ => format!("{top}/({})", bottom.join(" ")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_units_and_numbers() {
        let bar = DisplayUnit::for_si("Pa");
        assert_eq!(bar.show(1.0068e7), "100.68 bar");
        assert_eq!(bar.show_both(3e5), "3 bar (3.0000e5 Pa)");
        let flow = DisplayUnit::for_si("m3/s");
        assert_eq!(flow.show(5e-4), "30 L/min");
        assert_eq!(DisplayUnit::for_si("N").show(12_345.0), "12.345 kN");
        assert_eq!(DisplayUnit::for_si("Hz").show_both(2.0), "2 Hz");
        assert_eq!(number(-43.512), "-43.512");
        assert_eq!(number(0.00012345), "1.2345e-4");
        assert_eq!(number(123456.0), "123456");
        assert_eq!(number(f64::NAN), "NaN");
        assert_eq!(significant(0.110571, 3), "0.111");
        assert_eq!(significant(4.2e-5, 3), "4.20e-5");
        assert_eq!(significant(39.452, 3), "39.5");
    }

    #[test]
    fn ratio_units_cancel() {
        assert_eq!(ratio_unit("Pa", "Pa"), None);
        assert_eq!(ratio_unit("bar", "bar"), None);
        assert_eq!(ratio_unit("m3/s", "Pa").as_deref(), Some("m3/(s Pa)"));
        assert_eq!(ratio_unit("L/min", "bar").as_deref(), Some("L/(min bar)"));
        assert_eq!(ratio_unit("Pa", "m3/s").as_deref(), Some("Pa s/m3"));
        assert_eq!(ratio_unit("m/s", "m").as_deref(), Some("1/s"));
        assert_eq!(ratio_unit("N", "").as_deref(), Some("N"));
    }
}
