//! Parameter checks of the parts' constructors: each error names the
//! parameter, its symbol, its value and its unit, in the words the element
//! laws' own constructors use.

/// A value as an error message shows it: plain for ordinary magnitudes,
/// in exponent form for very small or very large ones.
pub(crate) fn show(value: f64) -> String {
    let a = value.abs();
    if value == 0.0 || (1e-3..1e6).contains(&a) || !value.is_finite() {
        format!("{value}")
    } else {
        format!("{value:e}")
    }
}

/// `value` is finite.
pub(crate) fn finite(what: &str, symbol: &str, value: f64, unit: &str) -> Result<(), String> {
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
pub(crate) fn positive(what: &str, symbol: &str, value: f64, unit: &str) -> Result<(), String> {
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
pub(crate) fn non_negative(what: &str, symbol: &str, value: f64, unit: &str) -> Result<(), String> {
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
            positive("volume", "V", -2e-7, "m3").unwrap_err(),
            "volume V = -2e-7 m3 must be positive"
        );
        assert_eq!(
            non_negative("load torque", "tau_load", -3.0, "N m").unwrap_err(),
            "load torque tau_load = -3 N m must not be negative"
        );
        assert_eq!(
            finite("pressure", "p", f64::INFINITY, "Pa").unwrap_err(),
            "pressure p = inf Pa must be a finite number"
        );
        assert!(positive("x", "x", f64::NAN, "m").is_err());
        assert!(non_negative("x", "x", 0.0, "m").is_ok());
        assert!(finite("x", "x", -1e300, "m").is_ok());
    }
}
