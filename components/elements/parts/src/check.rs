//! Parameter checks of the parts' constructors: the element laws' own
//! (`hydraulics::validate`), so a part's message reads like its element's:
//! each error names the parameter, its symbol, its value and its unit.

pub(crate) use hydraulics::validate::{finite, non_negative, positive, show};

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
