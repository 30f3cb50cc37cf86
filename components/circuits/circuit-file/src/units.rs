//! Units: quantities written as a number and a unit (`"210 bar"`,
//! `"25 L/min"`, `"16 cm3/rev"`), converted to SI, with their dimension
//! checked.
//!
//! A dimension is a product of powers of the metre, the kilogram, the
//! second and the volt (the valve signals are volts, kept apart so that a
//! signal is never mistaken for a number); powers may be halves (a flow
//! coefficient is m3/(s sqrt(Pa))). Angles are dimensionless: `rad`,
//! `deg`, `rev` and `rpm` are named for the reader's sake and convert by
//! their factor (`1500 rpm` is 157.08 rad/s, as is `157.08 1/s`); `Hz`
//! counts cycles per second (`80 Hz` is 502.65 rad/s: every frequency a
//! part takes is an angular one).
//!
//! A unit is written as factors separated by spaces (or `*`), at most one
//! `/` whose right side is one factor or a parenthesised product, each
//! factor a unit name with an optional integer power (`m3`, `m^3`, `s-1`,
//! `s^-2`) or `sqrt(...)`: `m3/(s Pa)`, `N m s/rad`, `kg m2`, `kg/m3`,
//! `m3/(s V sqrt(Pa))`, `1` for a pure number.

use std::fmt;

/// A physical dimension: the powers of m, kg, s and V, each stored
/// doubled (so that a square root keeps whole numbers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Dimension {
    m: i16,
    kg: i16,
    s: i16,
    v: i16,
}

impl Dimension {
    /// A pure number (angles included).
    pub const ONE: Dimension = Dimension::new(0, 0, 0, 0);
    /// Pressure, Pa.
    pub const PRESSURE: Dimension = Dimension::new(-1, 1, -2, 0);
    /// Volume flow, m3/s.
    pub const FLOW: Dimension = Dimension::new(3, 0, -1, 0);
    /// Length, m.
    pub const LENGTH: Dimension = Dimension::new(1, 0, 0, 0);
    /// Velocity, m/s.
    pub const VELOCITY: Dimension = Dimension::new(1, 0, -1, 0);
    /// Force, N.
    pub const FORCE: Dimension = Dimension::new(1, 1, -2, 0);
    /// Angular velocity, rad/s.
    pub const ANGULAR_VELOCITY: Dimension = Dimension::new(0, 0, -1, 0);
    /// Torque, N m.
    pub const TORQUE: Dimension = Dimension::new(2, 1, -2, 0);
    /// Time, s.
    pub const TIME: Dimension = Dimension::new(0, 0, 1, 0);
    /// A signal in volts.
    pub const VOLT: Dimension = Dimension::new(0, 0, 0, 1);

    /// The dimension m^m kg^kg s^s V^v (whole powers).
    pub const fn new(m: i16, kg: i16, s: i16, v: i16) -> Self {
        Dimension {
            m: 2 * m,
            kg: 2 * kg,
            s: 2 * s,
            v: 2 * v,
        }
    }

    fn times(self, o: Dimension) -> Dimension {
        Dimension {
            m: self.m + o.m,
            kg: self.kg + o.kg,
            s: self.s + o.s,
            v: self.v + o.v,
        }
    }

    fn scaled(self, doubled_power: i16) -> Dimension {
        // Each stored power is doubled already; `doubled_power` is the power
        // doubled too, so the product is halved once.
        Dimension {
            m: self.m * doubled_power / 2,
            kg: self.kg * doubled_power / 2,
            s: self.s * doubled_power / 2,
            v: self.v * doubled_power / 2,
        }
    }

    fn has_odd_half(self, doubled_power: i16) -> bool {
        [self.m, self.kg, self.s, self.v]
            .iter()
            .any(|p| (p * doubled_power) % 2 != 0)
    }

    /// What the dimension is, in words, with its SI unit: `pressure (Pa)`.
    pub fn describe(self) -> String {
        match NAMED.iter().find(|(d, _, _)| *d == self) {
            Some((_, name, unit)) => format!("{name} ({unit})"),
            None => format!("a quantity in {}", self.si()),
        }
    }

    /// The dimension's SI unit: a name where there is one (`Pa`, `m3/s`,
    /// `N m`), else the powers of the base units (`kg m-1 s-2`).
    pub fn si(self) -> String {
        if let Some((_, _, unit)) = NAMED.iter().find(|(d, _, _)| *d == self) {
            return (*unit).to_owned();
        }
        let mut parts = Vec::new();
        for (name, p) in [("kg", self.kg), ("m", self.m), ("s", self.s), ("V", self.v)] {
            match p {
                0 => {}
                2 => parts.push(name.to_owned()),
                p if p % 2 == 0 => parts.push(format!("{name}{}", p / 2)),
                p => parts.push(format!("{name}^({p}/2)")),
            }
        }
        if parts.is_empty() {
            "1".into()
        } else {
            parts.join(" ")
        }
    }
}

impl fmt::Display for Dimension {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

/// The dimensions with a name, for messages.
const NAMED: [(Dimension, &str, &str); 23] = [
    (Dimension::ONE, "a pure number", "1"),
    (Dimension::PRESSURE, "a pressure", "Pa"),
    (Dimension::FLOW, "a volume flow", "m3/s"),
    (Dimension::new(3, 0, 0, 0), "a volume", "m3"),
    (Dimension::new(2, 0, 0, 0), "an area", "m2"),
    (Dimension::LENGTH, "a length", "m"),
    (Dimension::new(0, 1, 0, 0), "a mass", "kg"),
    (Dimension::FORCE, "a force", "N"),
    (Dimension::VELOCITY, "a velocity", "m/s"),
    (Dimension::TIME, "a time", "s"),
    (Dimension::ANGULAR_VELOCITY, "an angular velocity", "rad/s"),
    (Dimension::TORQUE, "a torque", "N m"),
    (Dimension::new(2, 1, 0, 0), "a moment of inertia", "kg m2"),
    (Dimension::new(-3, 1, 0, 0), "a density", "kg/m3"),
    (
        Dimension::new(4, -1, 1, 0),
        "a flow conductance",
        "m3/(s Pa)",
    ),
    (
        Dimension::new(2, 1, -1, 0),
        "a rotational damping",
        "N m s/rad",
    ),
    (Dimension::new(0, 1, -1, 0), "a viscous damping", "N s/m"),
    (Dimension::new(0, 1, -2, 0), "a stiffness", "N/m"),
    (Dimension::new(1, 0, -2, 0), "an acceleration", "m/s2"),
    (Dimension::VOLT, "a signal", "V"),
    (Dimension::new(0, 0, -1, 1), "a signal rate", "V/s"),
    (
        Dimension {
            m: 7,
            kg: -1,
            s: 0,
            v: 0,
        },
        "a flow coefficient",
        "m3/(s sqrt(Pa))",
    ),
    (
        Dimension {
            m: 7,
            kg: -1,
            s: 0,
            v: -2,
        },
        "a valve flow constant",
        "m3/(s V sqrt(Pa))",
    ),
];

/// A unit's factor to SI, kept exact where it can be: a power of ten
/// (applied to the number's decimal text, so that `"1.5 mm"` is exactly
/// the double nearest 1.5e-3, as if written so) times `num / den`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    /// The power of ten.
    pub exp10: i32,
    /// A factor multiplying the value.
    pub num: f64,
    /// A factor dividing the value.
    pub den: f64,
}

impl Scale {
    const fn dec(exp10: i32) -> Scale {
        Scale {
            exp10,
            num: 1.0,
            den: 1.0,
        }
    }

    const fn ratio(exp10: i32, num: f64, den: f64) -> Scale {
        Scale { exp10, num, den }
    }

    /// The factor to SI as one number.
    pub fn factor(self) -> f64 {
        ten(self.exp10) * self.num / self.den
    }

    fn times(self, o: Scale) -> Scale {
        Scale {
            exp10: self.exp10 + o.exp10,
            num: self.num * o.num,
            den: self.den * o.den,
        }
    }

    /// The scale to the power `doubled / 2`.
    fn power(self, doubled: i16) -> Scale {
        if doubled % 2 == 0 {
            let p = i32::from(doubled / 2);
            let (num, den) = if p >= 0 {
                (self.num.powi(p), self.den.powi(p))
            } else {
                (self.den.powi(-p), self.num.powi(-p))
            };
            return Scale {
                exp10: self.exp10 * p,
                num,
                den,
            };
        }
        let r = (self.num / self.den * ten(self.exp10)).powf(f64::from(doubled) / 2.0);
        Scale {
            exp10: 0,
            num: r,
            den: 1.0,
        }
    }
}

/// 10^e, correctly rounded.
fn ten(e: i32) -> f64 {
    format!("1e{e}").parse().unwrap_or(f64::NAN)
}

/// The unit names a quantity may use: name, scale to SI, dimension.
pub const UNITS: [(&str, Scale, Dimension); 30] = [
    ("1", Scale::dec(0), Dimension::ONE),
    ("Pa", Scale::dec(0), Dimension::PRESSURE),
    ("kPa", Scale::dec(3), Dimension::PRESSURE),
    ("MPa", Scale::dec(6), Dimension::PRESSURE),
    ("bar", Scale::dec(5), Dimension::PRESSURE),
    ("mbar", Scale::dec(2), Dimension::PRESSURE),
    (
        "psi",
        Scale::ratio(0, 6_894.757_293_168_361, 1.0),
        Dimension::PRESSURE,
    ),
    ("m", Scale::dec(0), Dimension::LENGTH),
    ("cm", Scale::dec(-2), Dimension::LENGTH),
    ("mm", Scale::dec(-3), Dimension::LENGTH),
    ("L", Scale::dec(-3), Dimension::new(3, 0, 0, 0)),
    ("mL", Scale::dec(-6), Dimension::new(3, 0, 0, 0)),
    ("kg", Scale::dec(0), Dimension::new(0, 1, 0, 0)),
    ("g", Scale::dec(-3), Dimension::new(0, 1, 0, 0)),
    ("t", Scale::dec(3), Dimension::new(0, 1, 0, 0)),
    ("N", Scale::dec(0), Dimension::FORCE),
    ("kN", Scale::dec(3), Dimension::FORCE),
    ("s", Scale::dec(0), Dimension::TIME),
    ("ms", Scale::dec(-3), Dimension::TIME),
    ("min", Scale::ratio(0, 60.0, 1.0), Dimension::TIME),
    ("h", Scale::ratio(0, 3600.0, 1.0), Dimension::TIME),
    // Cycles per second: like `rev` and `rpm`, a count of turns, so that a
    // natural frequency written "80 Hz" is the 502.65 rad/s it means.
    (
        "Hz",
        Scale::ratio(0, std::f64::consts::TAU, 1.0),
        Dimension::ANGULAR_VELOCITY,
    ),
    ("rad", Scale::dec(0), Dimension::ONE),
    (
        "deg",
        Scale::ratio(0, std::f64::consts::PI, 180.0),
        Dimension::ONE,
    ),
    (
        "rev",
        Scale::ratio(0, std::f64::consts::TAU, 1.0),
        Dimension::ONE,
    ),
    (
        "rpm",
        Scale::ratio(0, std::f64::consts::TAU, 60.0),
        Dimension::ANGULAR_VELOCITY,
    ),
    ("V", Scale::dec(0), Dimension::VOLT),
    ("mV", Scale::dec(-3), Dimension::VOLT),
    ("J", Scale::dec(0), Dimension::TORQUE),
    ("W", Scale::dec(0), Dimension::new(2, 1, -3, 0)),
];

/// A unit: its factor to SI and its dimension.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Unit {
    /// Multiply a value in this unit by `factor` to get it in SI.
    pub factor: f64,
    /// The unit's dimension.
    pub dimension: Dimension,
    /// The factor, kept exact where it can be.
    pub scale: Scale,
}

impl Unit {
    fn new(scale: Scale, dimension: Dimension) -> Unit {
        Unit {
            factor: scale.factor(),
            dimension,
            scale,
        }
    }

    fn one() -> Unit {
        Unit::new(Scale::dec(0), Dimension::ONE)
    }

    fn times(self, o: Unit) -> Unit {
        Unit::new(self.scale.times(o.scale), self.dimension.times(o.dimension))
    }

    fn power(self, doubled: i16) -> Result<Unit, String> {
        if self.dimension.has_odd_half(doubled) {
            return Err("only square roots of whole powers are supported".into());
        }
        Ok(Unit::new(
            self.scale.power(doubled),
            self.dimension.scaled(doubled),
        ))
    }
}

/// Parses a unit (see the module's grammar).
pub fn parse_unit(text: &str) -> Result<Unit, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("the unit is empty".into());
    }
    // The one division outside parentheses.
    let mut depth = 0i32;
    let mut slash = None;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth < 0 {
                    return Err(format!("unit '{text}': a ')' closes nothing"));
                }
            }
            '/' if depth == 0 => {
                if slash.is_some() {
                    return Err(format!(
                        "unit '{text}' divides twice: write the denominator in parentheses, as in m3/(s Pa)"
                    ));
                }
                slash = Some(i);
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err(format!("unit '{text}': a '(' is not closed"));
    }
    match slash {
        None => product(text, text),
        Some(i) => {
            let num = product(text[..i].trim(), text)?;
            let mut den = text[i + 1..].trim();
            if den.starts_with('(')
                && den.ends_with(')')
                && matching_close(den) == Some(den.len() - 1)
            {
                den = &den[1..den.len() - 1];
            }
            let den = product(den, text)?;
            Ok(num.times(den.power(-2)?))
        }
    }
}

/// The index of the ')' that closes the '(' at the start of `s`.
fn matching_close(s: &str) -> Option<usize> {
    let mut depth = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// A product of factors separated by spaces or `*`.
fn product(text: &str, whole: &str) -> Result<Unit, String> {
    let mut unit = Unit::one();
    let mut rest = text.trim();
    if rest.is_empty() {
        return Err(format!("unit '{whole}': a side of '/' is empty"));
    }
    while !rest.is_empty() {
        let (factor, tail) = if let Some(inner) = rest.strip_prefix("sqrt(") {
            let close = matching_close(&rest[4..])
                .ok_or_else(|| format!("unit '{whole}': sqrt( is not closed"))?;
            let inside = &inner[..close - 1];
            let u = product(inside, whole)?.power(1)?;
            (u, &rest[4 + close + 1..])
        } else {
            let end = rest
                .find(|c: char| c.is_whitespace() || c == '*' || c == '(' || c == ')')
                .unwrap_or(rest.len());
            if end == 0 {
                return Err(format!(
                    "unit '{whole}': unexpected '{}'",
                    rest.chars().next().unwrap_or(' ')
                ));
            }
            (factor(&rest[..end], whole)?, &rest[end..])
        };
        unit = unit.times(factor);
        rest = tail.trim_start_matches(|c: char| c.is_whitespace() || c == '*' || c == '·');
    }
    Ok(unit)
}

/// One unit name with an optional integer power: `m3`, `m^3`, `s-1`.
fn factor(word: &str, whole: &str) -> Result<Unit, String> {
    let base_end = word
        .char_indices()
        .find(|(i, c)| *i > 0 && (c.is_ascii_digit() || *c == '^' || *c == '-'))
        .map_or(word.len(), |(i, _)| i);
    let (base, power) = word.split_at(base_end);
    let power = power.strip_prefix('^').unwrap_or(power);
    let power: i16 = if power.is_empty() {
        1
    } else {
        power
            .parse()
            .ok()
            .filter(|p: &i16| p.abs() <= 8)
            .ok_or_else(|| format!("unit '{whole}': '{power}' is not a power (write m3 or m^3)"))?
    };
    let Some((_, factor, dimension)) = UNITS.iter().find(|(n, _, _)| *n == base) else {
        return Err(unknown_unit(base, whole));
    };
    Unit::new(*factor, *dimension).power(2 * power)
}

fn unknown_unit(base: &str, whole: &str) -> String {
    let names: Vec<&str> = UNITS.iter().map(|(n, _, _)| *n).collect();
    let hint = match crate::closest(base, names.iter().copied()) {
        Some(c) => format!(" (did you mean '{c}'?)"),
        None => String::new(),
    };
    format!(
        "unit '{whole}': '{base}' is not a unit this reader knows{hint}; known units: {}",
        names.join(", ")
    )
}

/// A quantity read from text: its value in SI and its dimension.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quantity {
    /// The value in SI units.
    pub si: f64,
    /// Its dimension.
    pub dimension: Dimension,
}

/// Parses `"<number> <unit>"` (the unit may be left out: a number in
/// SI).
pub fn parse_quantity(text: &str) -> Result<Quantity, String> {
    let t = text.trim();
    let bytes = t.as_bytes();
    let mut i = 0;
    if i < bytes.len() && (bytes[i] == b'+' || bytes[i] == b'-') {
        i += 1;
    }
    let digits_start = i;
    while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.' || bytes[i] == b'_') {
        i += 1;
    }
    if i == digits_start {
        return Err(format!(
            "'{text}' is not a quantity: write a number and a unit, as in \"210 bar\" or \"25 L/min\""
        ));
    }
    // An exponent, if what follows 'e' is a (signed) number.
    if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
        let mut j = i + 1;
        if j < bytes.len() && (bytes[j] == b'+' || bytes[j] == b'-') {
            j += 1;
        }
        if j < bytes.len() && bytes[j].is_ascii_digit() {
            while j < bytes.len() && bytes[j].is_ascii_digit() {
                j += 1;
            }
            i = j;
        }
    }
    let number: String = t[..i].chars().filter(|c| *c != '_').collect();
    let value: f64 = number
        .parse()
        .map_err(|_| format!("'{text}': '{}' is not a number", &t[..i]))?;
    if !value.is_finite() {
        return Err(format!("'{text}' is not a finite number"));
    }
    let unit_text = t[i..].trim();
    let unit = if unit_text.is_empty() {
        Unit::one()
    } else {
        parse_unit(unit_text)?
    };
    // The power of ten goes into the decimal text: "1.5 mm" is 1.5e-3.
    let (mantissa, exponent) = match number.find(['e', 'E']) {
        Some(k) => (&number[..k], number[k + 1..].parse::<i32>().unwrap_or(0)),
        None => (number.as_str(), 0),
    };
    let decimal: f64 = format!("{mantissa}e{}", exponent.saturating_add(unit.scale.exp10))
        .parse()
        .unwrap_or(f64::NAN);
    let mut si = decimal;
    if unit.scale.num != 1.0 {
        si *= unit.scale.num;
    }
    if unit.scale.den != 1.0 {
        si /= unit.scale.den;
    }
    if !si.is_finite() {
        return Err(format!("'{text}' overflows in SI units"));
    }
    Ok(Quantity {
        si,
        dimension: unit.dimension,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn si(text: &str) -> (f64, Dimension) {
        let q = parse_quantity(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        (q.si, q.dimension)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1e-300)
    }

    #[test]
    fn each_unit_converts_by_its_factor() {
        use Dimension as D;
        let vol = D::new(3, 0, 0, 0);
        let cases: [(&str, f64, Dimension); 35] = [
            ("1 Pa", 1.0, D::PRESSURE),
            ("1 kPa", 1e3, D::PRESSURE),
            ("1 MPa", 1e6, D::PRESSURE),
            ("210 bar", 2.1e7, D::PRESSURE),
            ("1 psi", 6894.757293168361, D::PRESSURE),
            ("1 m3/s", 1.0, D::FLOW),
            ("25 L/min", 25e-3 / 60.0, D::FLOW),
            ("2 L/s", 2e-3, D::FLOW),
            ("3 cm3/s", 3e-6, D::FLOW),
            ("1 m3", 1.0, vol),
            ("0.5 L", 5e-4, vol),
            ("7 cm3", 7e-6, vol),
            ("2 m", 2.0, D::LENGTH),
            ("40 mm", 0.04, D::LENGTH),
            ("3 cm", 0.03, D::LENGTH),
            ("5 kg", 5.0, D::new(0, 1, 0, 0)),
            ("5 g", 5e-3, D::new(0, 1, 0, 0)),
            ("3 N", 3.0, D::FORCE),
            ("2 kN", 2e3, D::FORCE),
            ("1.5 m/s", 1.5, D::VELOCITY),
            ("20 mm/s", 0.02, D::VELOCITY),
            ("10 s", 10.0, D::TIME),
            ("1 ms", 1e-3, D::TIME),
            ("2 rad", 2.0, D::ONE),
            ("180 deg", std::f64::consts::PI, D::ONE),
            ("3 rad/s", 3.0, D::ANGULAR_VELOCITY),
            ("1500 rpm", 50.0 * std::f64::consts::PI, D::ANGULAR_VELOCITY),
            ("80 Hz", 160.0 * std::f64::consts::PI, D::ANGULAR_VELOCITY),
            ("12 N m", 12.0, D::TORQUE),
            ("0.2 kg m2", 0.2, D::new(2, 1, 0, 0)),
            ("0.7 1", 0.7, D::ONE),
            ("0.7", 0.7, D::ONE),
            ("10 V", 10.0, D::VOLT),
            ("16 cm3/rev", 16e-6 / (2.0 * std::f64::consts::PI), vol),
            ("-1.5e-3 m", -1.5e-3, D::LENGTH),
        ];
        for (text, value, dim) in cases {
            let (v, d) = si(text);
            assert!(close(v, value), "{text}: {v} != {value}");
            assert_eq!(d, dim, "{text}");
        }
    }

    #[test]
    fn decimal_prefixes_are_exact() {
        assert_eq!(si("1.5 mm").0, 1.5e-3);
        assert_eq!(si("20 cm3").0, 20e-6);
        assert_eq!(si("0.5 L").0, 0.5e-3);
        assert_eq!(si("0.2 bar").0, 0.2e5);
        assert_eq!(si("2.5e2 kPa").0, 2.5e5);
        assert_eq!(si("25 L/min").0, 25e-3 / 60.0);
        assert_eq!(si("1500 rpm").0, 1500.0 * std::f64::consts::TAU / 60.0);
        assert_eq!(si("20 cm2").0, 20e-4);
        assert!(parse_quantity("1e-2147483648 mm").is_ok());
    }

    #[test]
    fn compound_units_parse() {
        let (v, d) = si("2e-12 m3/(s Pa)");
        assert!(close(v, 2e-12));
        assert_eq!(d.si(), "m3/(s Pa)");
        let (_, d) = si("1 m3/(s sqrt(Pa))");
        assert_eq!(d.si(), "m3/(s sqrt(Pa))");
        let (v, d) = si("1 m3/(s V sqrt(bar))");
        assert!(close(v, 1.0 / 1e5f64.sqrt()));
        assert_eq!(d.si(), "m3/(s V sqrt(Pa))");
        assert_eq!(si("1 sqrt(m)").1.si(), "m^(1/2)");
        assert_eq!(si("3 N m s/rad").1.si(), "N m s/rad");
        assert_eq!(si("900 kg/m3").1.si(), "kg/m3");
        assert_eq!(si("1e6 N/m").1.si(), "N/m");
        assert_eq!(si("1 m^3 s^-1").1, Dimension::FLOW);
        assert_eq!(si("1 m*s-1").1, Dimension::VELOCITY);
    }

    #[test]
    fn bad_quantities_say_why() {
        assert!(
            parse_quantity("bar")
                .unwrap_err()
                .contains("not a quantity")
        );
        assert!(
            parse_quantity("3 furlongs")
                .unwrap_err()
                .contains("'furlongs'")
        );
        assert!(
            parse_quantity("3 barr")
                .unwrap_err()
                .contains("did you mean 'bar'")
        );
        assert!(
            parse_quantity("3 m/s/s")
                .unwrap_err()
                .contains("divides twice")
        );
        assert!(parse_quantity("3 m/(s").unwrap_err().contains("not closed"));
        assert!(
            parse_quantity("3 sqrt(sqrt(Pa))")
                .unwrap_err()
                .contains("square roots")
        );
        assert!(parse_quantity("1e400 Pa").is_err());
        assert!(parse_quantity("").is_err());
    }
}
