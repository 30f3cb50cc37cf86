//! Parameter checks shared by the elements' constructors (and the parts'
//! built on them): each error names the parameter, its symbol, its value
//! and its unit.

/// A value as an error message shows it: plain for ordinary magnitudes,
/// in exponent form for very small or very large ones.
pub fn show(value: f64) -> String {
    let a = value.abs();
    if value == 0.0 || (1e-3..1e6).contains(&a) || !value.is_finite() {
        format!("{value}")
    } else {
        format!("{value:e}")
    }
}

/// `value` is finite.
pub fn finite(what: &str, symbol: &str, value: f64, unit: &str) -> Result<(), String> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(format!(
            "{what} {symbol} = {} {unit} must be a finite number",
            show(value)
        ))
    }
}

/// `value > 0` and finite.
pub fn positive(what: &str, symbol: &str, value: f64, unit: &str) -> Result<(), String> {
    finite(what, symbol, value, unit)?;
    if value > 0.0 {
        Ok(())
    } else {
        Err(format!(
            "{what} {symbol} = {} {unit} must be positive",
            show(value)
        ))
    }
}

/// `value >= 0` and finite.
pub fn non_negative(what: &str, symbol: &str, value: f64, unit: &str) -> Result<(), String> {
    finite(what, symbol, value, unit)?;
    if value >= 0.0 {
        Ok(())
    } else {
        Err(format!(
            "{what} {symbol} = {} {unit} must not be negative",
            show(value)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_parameter_value_and_unit() {
        assert_eq!(
            non_negative("cracking pressure", "p_crack", -1.0, "Pa").unwrap_err(),
            "cracking pressure p_crack = -1 Pa must not be negative"
        );
        assert_eq!(
            positive("band", "p_band", 0.0, "Pa").unwrap_err(),
            "band p_band = 0 Pa must be positive"
        );
        assert_eq!(
            positive("conductance", "g", -2e-13, "m3/(s Pa)").unwrap_err(),
            "conductance g = -2e-13 m3/(s Pa) must be positive"
        );
        assert!(
            positive("x", "x", f64::NAN, "m")
                .unwrap_err()
                .contains("x = NaN m must be a finite number")
        );
        assert!(positive("x", "x", 1.0, "m").is_ok());
        assert!(non_negative("x", "x", 0.0, "m").is_ok());
    }
}
