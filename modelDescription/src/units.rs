//! The catalogue of SI units the hydraulic-circuit models use, with their
//! exponents of the SI base units and the display units engineers read.
//!
//! Display units follow the FMI convention (FMI 2.0 section 2.2.2, FMI 3.0
//! section 2.4.3): `display_value = factor * si_value + offset`.

/// Exponents of the SI base units (and of the radian) a unit is made of,
/// as written into the FMI `<BaseUnit>` element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct BaseUnit {
    /// Exponent of the kilogram.
    pub kg: i32,
    /// Exponent of the metre.
    pub m: i32,
    /// Exponent of the second.
    pub s: i32,
    /// Exponent of the ampere.
    pub a: i32,
    /// Exponent of the kelvin.
    pub k: i32,
    /// Exponent of the mole.
    pub mol: i32,
    /// Exponent of the candela.
    pub cd: i32,
    /// Exponent of the radian.
    pub rad: i32,
}

impl BaseUnit {
    /// A dimensionless quantity (all exponents zero).
    pub const ONE: BaseUnit = BaseUnit {
        kg: 0,
        m: 0,
        s: 0,
        a: 0,
        k: 0,
        mol: 0,
        cd: 0,
        rad: 0,
    };

    /// A unit made of kilogram, metre and second with the given exponents.
    pub const fn kg_m_s(kg: i32, m: i32, s: i32) -> BaseUnit {
        BaseUnit {
            kg,
            m,
            s,
            ..Self::ONE
        }
    }

    /// The exponents with their FMI attribute names (`kg`, `m`, `s`, `A`,
    /// `K`, `mol`, `cd`, `rad`), in the order the XML schema lists them.
    pub fn exponents(&self) -> [(&'static str, i32); 8] {
        [
            ("kg", self.kg),
            ("m", self.m),
            ("s", self.s),
            ("A", self.a),
            ("K", self.k),
            ("mol", self.mol),
            ("cd", self.cd),
            ("rad", self.rad),
        ]
    }
}

/// A unit people read instead of the SI unit (bar instead of Pa).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DisplayUnit {
    /// Name of the display unit, e.g. `bar`.
    pub name: &'static str,
    /// Multiplier from the SI value: `display = factor * si + offset`.
    pub factor: f64,
    /// Offset added after scaling: `display = factor * si + offset`.
    pub offset: f64,
}

impl DisplayUnit {
    /// Converts a value in the SI unit into this display unit.
    pub fn from_si(&self, si_value: f64) -> f64 {
        self.factor * si_value + self.offset
    }

    /// Converts a value in this display unit into the SI unit.
    pub fn to_si(&self, display_value: f64) -> f64 {
        (display_value - self.offset) / self.factor
    }
}

/// An SI unit of the catalogue: its name as used in `unit="..."`, its base-unit
/// exponents and the display units that may be attached to it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Unit {
    /// Name of the unit as written in the XML, e.g. `Pa`, `m3/s`.
    pub name: &'static str,
    /// What quantity the unit measures, for documentation.
    pub quantity: &'static str,
    /// Exponents of the SI base units.
    pub base: BaseUnit,
    /// Display units that may be chosen for variables of this unit.
    pub display_units: &'static [DisplayUnit],
}

impl Unit {
    /// Looks up one of this unit's display units by name.
    pub fn display_unit(&self, name: &str) -> Option<&'static DisplayUnit> {
        self.display_units.iter().find(|d| d.name == name)
    }
}

const fn du(name: &'static str, factor: f64) -> DisplayUnit {
    DisplayUnit {
        name,
        factor,
        offset: 0.0,
    }
}

const fn unit(
    name: &'static str,
    quantity: &'static str,
    base: BaseUnit,
    display_units: &'static [DisplayUnit],
) -> Unit {
    Unit {
        name,
        quantity,
        base,
        display_units,
    }
}

/// The units the hydraulic-circuit models may use, each with its base-unit
/// exponents and display units. A variable's `unit` must be one of these
/// names and its `displayUnit` one of that unit's display units.
pub static UNITS: &[Unit] = &[
    unit(
        "Pa",
        "pressure",
        BaseUnit::kg_m_s(1, -1, -2),
        &[du("bar", 1e-5), du("MPa", 1e-6), du("kPa", 1e-3)],
    ),
    unit(
        "Pa/s",
        "rate of pressure change",
        BaseUnit::kg_m_s(1, -1, -3),
        &[du("bar/s", 1e-5)],
    ),
    unit(
        "m3/s",
        "volume flow rate",
        BaseUnit::kg_m_s(0, 3, -1),
        &[du("L/min", 60000.0), du("cm3/s", 1e6)],
    ),
    unit(
        "m3",
        "volume",
        BaseUnit::kg_m_s(0, 3, 0),
        &[du("cm3", 1e6), du("L", 1e3)],
    ),
    unit(
        "m2",
        "area",
        BaseUnit::kg_m_s(0, 2, 0),
        &[du("mm2", 1e6), du("cm2", 1e4)],
    ),
    unit(
        "m",
        "length",
        BaseUnit::kg_m_s(0, 1, 0),
        &[du("mm", 1e3), du("cm", 1e2)],
    ),
    unit(
        "m/s",
        "velocity",
        BaseUnit::kg_m_s(0, 1, -1),
        &[du("mm/s", 1e3)],
    ),
    unit("m/s2", "acceleration", BaseUnit::kg_m_s(0, 1, -2), &[]),
    unit("kg", "mass", BaseUnit::kg_m_s(1, 0, 0), &[]),
    unit("kg/m3", "density", BaseUnit::kg_m_s(1, -3, 0), &[]),
    unit("kg.m2", "moment of inertia", BaseUnit::kg_m_s(1, 2, 0), &[]),
    unit("s", "time", BaseUnit::kg_m_s(0, 0, 1), &[du("ms", 1e3)]),
    unit("Hz", "frequency", BaseUnit::kg_m_s(0, 0, -1), &[]),
    unit("1/s", "rate", BaseUnit::kg_m_s(0, 0, -1), &[]),
    unit("1", "dimensionless", BaseUnit::ONE, &[]),
    unit("N", "force", BaseUnit::kg_m_s(1, 1, -2), &[du("kN", 1e-3)]),
    unit(
        "N/m",
        "stiffness",
        BaseUnit::kg_m_s(1, 0, -2),
        &[du("N/mm", 1e-3)],
    ),
    unit("N.s/m", "viscous damping", BaseUnit::kg_m_s(1, 0, -1), &[]),
    unit("N.m", "torque", BaseUnit::kg_m_s(1, 2, -2), &[]),
    unit("J", "energy", BaseUnit::kg_m_s(1, 2, -2), &[du("kJ", 1e-3)]),
    unit(
        "m3/(s.Pa)",
        "flow per pressure (linear valve gain)",
        BaseUnit::kg_m_s(-1, 4, 1),
        &[du("L/(min.bar)", 6e9)],
    ),
    unit("W", "power", BaseUnit::kg_m_s(1, 2, -3), &[du("kW", 1e-3)]),
    unit(
        "Pa.s",
        "dynamic viscosity",
        BaseUnit::kg_m_s(1, -1, -1),
        &[du("mPa.s", 1e3)],
    ),
    unit(
        "m2/s",
        "kinematic viscosity",
        BaseUnit::kg_m_s(0, 2, -1),
        &[du("cSt", 1e6)],
    ),
    unit(
        "rad",
        "angle",
        BaseUnit {
            rad: 1,
            ..BaseUnit::ONE
        },
        &[du("deg", 180.0 / std::f64::consts::PI)],
    ),
    unit(
        "rad/s",
        "angular velocity",
        BaseUnit {
            rad: 1,
            s: -1,
            ..BaseUnit::ONE
        },
        &[
            du("rpm", 30.0 / std::f64::consts::PI),
            du("deg/s", 180.0 / std::f64::consts::PI),
        ],
    ),
    unit(
        "V",
        "voltage",
        BaseUnit {
            kg: 1,
            m: 2,
            s: -3,
            a: -1,
            ..BaseUnit::ONE
        },
        &[],
    ),
    unit(
        "m2/V",
        "opening area per volt",
        BaseUnit {
            kg: -1,
            m: 0,
            s: 3,
            a: 1,
            ..BaseUnit::ONE
        },
        &[du("mm2/V", 1e6)],
    ),
    unit(
        "A",
        "electric current",
        BaseUnit {
            a: 1,
            ..BaseUnit::ONE
        },
        &[du("mA", 1e3)],
    ),
    unit(
        "K",
        "temperature",
        BaseUnit {
            k: 1,
            ..BaseUnit::ONE
        },
        &[DisplayUnit {
            name: "degC",
            factor: 1.0,
            offset: -273.15,
        }],
    ),
];

/// Looks up a unit of the catalogue by its name (`Pa`, `m3/s`, ...).
pub fn find_unit(name: &str) -> Option<&'static Unit> {
    UNITS.iter().find(|u| u.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn names_are_unique_and_display_units_unique_per_unit() {
        let mut names = BTreeSet::new();
        for u in UNITS {
            assert!(names.insert(u.name), "duplicate unit {}", u.name);
            let mut du = BTreeSet::new();
            for d in u.display_units {
                assert!(du.insert(d.name), "duplicate display unit {}", d.name);
                assert!(d.factor.is_finite() && d.factor != 0.0);
                assert!(d.offset.is_finite());
            }
        }
    }

    #[test]
    fn conversions_follow_fmi_convention() {
        let pa = find_unit("Pa").unwrap();
        let bar = pa.display_unit("bar").unwrap();
        assert!((bar.from_si(2.0e7) - 200.0).abs() < 1e-9);
        assert!((bar.to_si(200.0) - 2.0e7).abs() < 1e-6);

        let q = find_unit("m3/s").unwrap().display_unit("L/min").unwrap();
        assert!((q.from_si(1.0e-3) - 60.0).abs() < 1e-12);

        let degc = find_unit("K").unwrap().display_unit("degC").unwrap();
        assert!((degc.from_si(293.15) - 20.0).abs() < 1e-12);
        assert!((degc.to_si(40.0) - 313.15).abs() < 1e-12);

        let rpm = find_unit("rad/s").unwrap().display_unit("rpm").unwrap();
        assert!((rpm.from_si(2.0 * std::f64::consts::PI) - 60.0).abs() < 1e-12);
    }

    #[test]
    fn base_units_have_the_right_dimensions() {
        let pa = find_unit("Pa").unwrap().base;
        let n = find_unit("N").unwrap().base;
        let m2 = find_unit("m2").unwrap().base;
        // Pa = N / m2
        assert_eq!(pa.kg, n.kg - m2.kg);
        assert_eq!(pa.m, n.m - m2.m);
        assert_eq!(pa.s, n.s - m2.s);
        assert_eq!(find_unit("1").unwrap().base, BaseUnit::ONE);
        assert!(find_unit("furlong").is_none());
    }
}
