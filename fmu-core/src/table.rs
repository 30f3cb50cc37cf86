//! The declarative variable table of a circuit.
//!
//! A circuit states each variable once, in the [`circuit!`](crate::circuit)
//! macro: name, type, unit and display unit, start value, range and
//! description (its doc comment). From that one place come
//!
//! * the value references (the row's position, counted from 1: no numbers
//!   to keep in step by hand),
//! * the rows of both model descriptions (fmu-core adds `time`, the solver
//!   parameters, log categories, capabilities and every other FMI-wide
//!   field),
//! * the range checks every setter and every restored FMU state goes
//!   through ([`Row::check`]), with open bounds for "must be positive",
//! * typed structs: the parameters `configure` reads by field, the inputs
//!   the rates read by field, the outputs the model fills by field.
//!
//! Parameters that several circuits share are declared once as a group with
//! [`parameters!`](crate::parameters) and included by field.
//!
//! The tables are `macro_rules!` macros rather than a derive: they compile
//! in the circuit crate without a proc-macro crate (no `syn`), read as a
//! table, and every row's options are plain method calls on [`Row`], so a
//! misspelt option is an ordinary compile error pointing at the row.

use model_description::Variable;

/// The data type of a variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A real number (FMI 2 `Real`, FMI 3 `Float64`).
    Real,
    /// A 32-bit integer (FMI 2 `Integer`, FMI 3 `Int32`).
    Integer,
    /// A Boolean.
    Boolean,
}

/// What a row is to the master.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Role {
    /// Set by the master at communication points.
    Input,
    /// Computed by the model.
    Output {
        /// The state the output shows, if it is one (index in the state
        /// vector): such outputs may be knowns of directional derivatives.
        state: Option<usize>,
        /// Names of the inputs it depends on directly (feedthrough).
        depends: &'static [&'static str],
    },
    /// A parameter.
    Parameter {
        /// Settable between communication steps.
        tunable: bool,
        /// Sets the model's structure (FMI 3 structural parameter).
        structural: bool,
    },
}

/// One end of a range: the limit and whether it is excluded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bound {
    /// The limit, in the variable's SI unit.
    pub value: f64,
    /// True when the limit itself is not allowed ("must be positive").
    pub open: bool,
}

/// One row of a circuit's variable table. The builder methods are the
/// options a table row may name (`min`, `max`, `above`, `below`, `tunable`,
/// `structural`, ...).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Row {
    /// Variable name (the papers' symbol where one exists).
    pub name: &'static str,
    /// What the variable is, in domain terms (the row's doc comment).
    pub description: &'static str,
    /// Data type.
    pub kind: Kind,
    /// Input, output or parameter.
    pub role: Role,
    /// SI unit, if any.
    pub unit: Option<&'static str>,
    /// The unit people read (bar, L/min, mm), if any.
    pub display_unit: Option<&'static str>,
    /// Start value (inputs and parameters), SI unit; Booleans 0/1.
    pub start: f64,
    /// Lower end of the allowed range.
    pub min: Option<Bound>,
    /// Upper end of the allowed range.
    pub max: Option<Bound>,
}

impl Row {
    fn new(name: &'static str, description: &'static str, kind: Kind) -> Self {
        Row {
            name,
            description,
            kind,
            role: Role::Parameter {
                tunable: false,
                structural: false,
            },
            unit: None,
            display_unit: None,
            start: 0.0,
            min: None,
            max: None,
        }
    }

    /// A real row.
    pub fn real(name: &'static str, description: &'static str) -> Self {
        Self::new(name, description, Kind::Real)
    }

    /// An integer row.
    pub fn int(name: &'static str, description: &'static str) -> Self {
        Self::new(name, description, Kind::Integer)
    }

    /// A Boolean row.
    pub fn bool(name: &'static str, description: &'static str) -> Self {
        Self::new(name, description, Kind::Boolean)
    }

    /// Makes the row an input.
    pub fn input(mut self) -> Self {
        self.role = Role::Input;
        self
    }

    /// Makes the row an output showing state `state` (if any) and depending
    /// directly on the named inputs.
    pub fn output(mut self, state: Option<usize>, depends: &'static [&'static str]) -> Self {
        self.role = Role::Output { state, depends };
        self
    }

    /// Makes a parameter tunable (settable between communication steps).
    pub fn tunable(mut self) -> Self {
        if let Role::Parameter { tunable, .. } = &mut self.role {
            *tunable = true;
        }
        self
    }

    /// Makes a parameter structural (FMI 3 `structuralParameter`).
    pub fn structural(mut self) -> Self {
        if let Role::Parameter { structural, .. } = &mut self.role {
            *structural = true;
        }
        self
    }

    /// The SI unit.
    pub fn unit(mut self, unit: &'static str) -> Self {
        self.unit = Some(unit);
        self
    }

    /// The display unit.
    pub fn display(mut self, unit: &'static str) -> Self {
        self.display_unit = Some(unit);
        self
    }

    /// The start value.
    pub fn start(mut self, value: impl TableNumber) -> Self {
        self.start = value.value();
        self
    }

    /// Values must be `>= limit`.
    pub fn min(mut self, limit: impl TableNumber) -> Self {
        self.min = Some(Bound {
            value: limit.value(),
            open: false,
        });
        self
    }

    /// Values must be `> limit` (e.g. `above 0.0`: positive).
    pub fn above(mut self, limit: impl TableNumber) -> Self {
        self.min = Some(Bound {
            value: limit.value(),
            open: true,
        });
        self
    }

    /// Values must be `<= limit`.
    pub fn max(mut self, limit: impl TableNumber) -> Self {
        self.max = Some(Bound {
            value: limit.value(),
            open: false,
        });
        self
    }

    /// Values must be `< limit`.
    pub fn below(mut self, limit: impl TableNumber) -> Self {
        self.max = Some(Bound {
            value: limit.value(),
            open: true,
        });
        self
    }

    /// The description with the doc comment's line breaks and indentation
    /// collapsed into single spaces.
    pub fn text(&self) -> String {
        self.description
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The range in words, e.g. `(0, 1]` or `[-1e5, 1e9]`; `None` without
    /// bounds.
    pub fn range_text(&self) -> Option<String> {
        if self.min.is_none() && self.max.is_none() {
            return None;
        }
        let lo = self.min.map_or("(-inf".to_owned(), |b| {
            format!("{}{}", if b.open { "(" } else { "[" }, b.value)
        });
        let hi = self.max.map_or("inf)".to_owned(), |b| {
            format!("{}{}", b.value, if b.open { ")" } else { "]" })
        });
        Some(format!("{lo}, {hi}"))
    }

    /// Checks a value (SI unit) against the row: finite, whole for
    /// integers, 0/1 for Booleans, inside the range. The error says which
    /// rule and which range.
    pub fn check(&self, value: f64) -> Result<(), String> {
        let shown = Number(value);
        if !value.is_finite() {
            return Err(format!("value {shown} for '{}' is not finite", self.name));
        }
        match self.kind {
            Kind::Integer if value.fract() != 0.0 || value.abs() > f64::from(i32::MAX) => {
                return Err(format!(
                    "value {shown} for '{}' is not a 32-bit integer",
                    self.name
                ));
            }
            Kind::Boolean if value != 0.0 && value != 1.0 => {
                return Err(format!(
                    "value {shown} for '{}' is not a Boolean (0 or 1)",
                    self.name
                ));
            }
            _ => {}
        }
        let below_min = self
            .min
            .is_some_and(|b| value < b.value || (b.open && value == b.value));
        let above_max = self
            .max
            .is_some_and(|b| value > b.value || (b.open && value == b.value));
        if below_min || above_max {
            // A dimensionless value ("1") is shown without a unit.
            let unit = self
                .unit
                .filter(|u| *u != "1")
                .map_or(String::new(), |u| format!(" {u}"));
            return Err(format!(
                "value {shown}{unit} for '{}' is outside its range {}",
                self.name,
                self.range_text().unwrap_or_default()
            ));
        }
        Ok(())
    }

    /// The model-description variable of this row with value reference `vr`.
    pub fn variable(&self, vr: u32, input_vr: impl Fn(&str) -> Option<u32>) -> Variable {
        let text = self.text();
        let mut v = match self.kind {
            Kind::Real => Variable::real(self.name, vr),
            Kind::Integer => Variable::integer(self.name, vr),
            Kind::Boolean => Variable::boolean(self.name, vr),
        }
        .describe(&text);
        v = match self.role {
            Role::Input => v.input(self.start),
            Role::Output { depends, .. } => {
                let vrs: Vec<u32> = depends.iter().filter_map(|n| input_vr(n)).collect();
                v.output(&vrs)
            }
            Role::Parameter {
                tunable,
                structural,
            } => {
                let mut p = v.parameter(self.start);
                if tunable {
                    p = p.tunable();
                }
                if structural {
                    p = p.structural();
                }
                p
            }
        };
        if let Some(unit) = self.unit {
            v = v.unit(unit, self.display_unit);
        }
        if self.kind != Kind::Boolean {
            v = v.range(self.min.map(|b| b.value), self.max.map(|b| b.value));
        }
        v
    }
}

/// A group of rows read into a typed struct: a circuit's parameters, its
/// inputs, or a parameter group several circuits share. Generated by
/// [`parameters!`](crate::parameters) and [`circuit!`](crate::circuit).
pub trait Record: Sized + Clone + std::fmt::Debug + PartialEq + Send + 'static {
    /// Number of rows (values); a function, not a constant, since a table
    /// read at run time (a described circuit) knows it only then.
    fn len() -> usize;
    /// Appends the rows, in table order.
    fn rows(out: &mut Vec<Row>);
    /// Reads the struct from `len()` values in table order (SI units,
    /// Booleans 0/1); the values are already checked.
    fn from_values(values: &[f64]) -> Self;

    /// The struct with every row at its start value.
    fn defaults() -> Self {
        let mut rows = Vec::with_capacity(Self::len());
        Self::rows(&mut rows);
        Self::from_values(&rows.iter().map(|r| r.start).collect::<Vec<_>>())
    }
}

/// The outputs of a circuit as a typed struct the model fills. Generated by
/// [`circuit!`](crate::circuit).
pub trait OutputRecord: Clone + Default + std::fmt::Debug + Send + 'static {
    /// Number of outputs (see [`Record::len`]).
    fn len() -> usize;
    /// Appends the rows, in table order.
    fn rows(out: &mut Vec<Row>);
    /// The `index`-th output's value.
    fn get(&self, index: usize) -> f64;
    /// Copies the outputs that show a state from the state vector.
    fn fill_states(&mut self, x: &[f64]);
    /// Back to the values of a new record, before a model fills it again
    /// (a model need not write every output every time). The whole record
    /// by default; a record with room for more outputs than it has may
    /// clear only those.
    fn clear(&mut self) {
        *self = Self::default();
    }
}

/// What an FMU is called and how it is run by default.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelInfo {
    /// Model name and identifier (the shared library's file name).
    pub name: &'static str,
    /// One line on what the circuit is.
    pub description: &'static str,
    /// The circuit's documentation page (Markdown), shown in the FMU's
    /// `documentation/index.html`.
    pub documentation: &'static str,
    /// Default experiment: start time, s.
    pub start_time: f64,
    /// Default experiment: stop time, s.
    pub stop_time: f64,
    /// Default experiment: communication step, s.
    pub step_size: f64,
    /// Default experiment: the relative tolerance, which is also the start
    /// value of the solver parameter `rtol` (inside its range); `None`:
    /// fmu-core's default.
    pub tolerance: Option<f64>,
}

/// A circuit's table: generated by [`circuit!`](crate::circuit).
pub trait Table {
    /// Name, description, documentation and default experiment (a
    /// function, since a table read at run time knows them only then).
    fn info() -> ModelInfo;
    /// Number of states the state vector holds (reserved, for models whose
    /// count is structural or read at run time).
    const STATES: usize;
    /// Number of continuous states the FMU shows (Model Exchange, the
    /// description's derivatives): [`Table::STATES`], unless the table is
    /// read at run time and uses the first `state_count()` of them.
    fn state_count() -> usize {
        Self::STATES
    }
    /// A fingerprint of what the table was read from, for a table read at
    /// run time (a description file's digest): appended to the model's
    /// version, so the instantiation token changes with it. `None` (the
    /// default) for a table compiled into the model.
    fn revision() -> Option<String> {
        None
    }
    /// The inputs, read by field.
    type Inputs: Record;
    /// The outputs, filled by field.
    type Outputs: OutputRecord;
    /// The parameters, read by field in `configure`.
    type Params: Record;
    /// Names of the states in order (empty where the count is structural).
    fn state_names() -> Vec<&'static str>;
    /// Nominal magnitude of each state (SI unit), written into `out`
    /// (`STATES` long); the absolute tolerance scales with it.
    fn state_nominal(out: &mut [f64]);

    /// All rows of the circuit's own table in value-reference order:
    /// inputs, outputs, parameters.
    fn rows() -> Vec<Row> {
        let mut rows = Vec::with_capacity(
            Self::Inputs::len() + Self::Outputs::len() + <Self::Params as Record>::len(),
        );
        Self::Inputs::rows(&mut rows);
        Self::Outputs::rows(&mut rows);
        Self::Params::rows(&mut rows);
        rows
    }
}

/// A number written in a table row (start value or limit): a real, an
/// integer or a Boolean.
pub trait TableNumber {
    /// The value as stored (Booleans 0/1).
    fn value(self) -> f64;
}

impl TableNumber for f64 {
    fn value(self) -> f64 {
        self
    }
}

impl TableNumber for i32 {
    fn value(self) -> f64 {
        f64::from(self)
    }
}

impl TableNumber for bool {
    fn value(self) -> f64 {
        if self { 1.0 } else { 0.0 }
    }
}

/// A typed field read from its stored value.
pub trait FromValue {
    /// The field's value (the stored value is checked already).
    fn from_value(value: f64) -> Self;
}

impl FromValue for f64 {
    fn from_value(value: f64) -> Self {
        value
    }
}

impl FromValue for i32 {
    fn from_value(value: f64) -> Self {
        value as i32
    }
}

impl FromValue for bool {
    fn from_value(value: f64) -> Self {
        value != 0.0
    }
}

/// A number for messages: plain for everyday magnitudes, in exponent form
/// for the huge and the tiny (`1e300`, `5e-324`), never 300 digits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Number(pub f64);

impl std::fmt::Display for Number {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let a = self.0.abs();
        if a == 0.0 || !a.is_finite() || (1e-4..1e15).contains(&a) {
            write!(f, "{}", self.0)
        } else {
            write!(f, "{:e}", self.0)
        }
    }
}

/// The model-description rows of `rows` with value references from
/// `first_vr` on, output dependencies resolved against the table's inputs.
pub fn variables(rows: &[Row], first_vr: u32) -> Vec<Variable> {
    let input_vr = |name: &str| {
        rows.iter()
            .position(|r| r.role == Role::Input && r.name == name)
            .map(|i| first_vr + i as u32)
    };
    rows.iter()
        .enumerate()
        .map(|(i, r)| r.variable(first_vr + i as u32, input_vr))
        .collect()
}

/// Checks what a table can get wrong that the compiler does not see: every
/// row described, names unique, dependencies naming inputs, start values
/// inside their ranges, the layout inputs - outputs - parameters.
pub fn check_rows(rows: &[Row]) -> Result<(), String> {
    let mut problems = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    let order = |r: &Row| match r.role {
        Role::Input => 0,
        Role::Output { .. } => 1,
        Role::Parameter { .. } => 2,
    };
    for (i, r) in rows.iter().enumerate() {
        if r.text().is_empty() {
            problems.push(format!("'{}' has no description (doc comment)", r.name));
        }
        if !seen.insert(r.name) {
            problems.push(format!("'{}' is declared twice", r.name));
        }
        if i > 0 && order(&rows[i - 1]) > order(r) {
            problems.push(format!(
                "'{}' is out of place: the table lists inputs, then outputs, then parameters",
                r.name
            ));
        }
        if let Role::Output { depends, .. } = r.role {
            for d in depends {
                if !rows.iter().any(|x| x.role == Role::Input && x.name == *d) {
                    problems.push(format!(
                        "output '{}' depends on '{d}', not an input",
                        r.name
                    ));
                }
            }
        }
        if !matches!(r.role, Role::Output { .. })
            && let Err(e) = r.check(r.start)
        {
            problems.push(format!("start value: {e}"));
        }
        if r.kind != Kind::Real && (r.unit.is_some() || r.display_unit.is_some()) {
            problems.push(format!("'{}' is not real and cannot have a unit", r.name));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// The position of `name` in `names` (for the index constants the table
/// macros generate); panics at compile time when it is missing.
pub const fn position(names: &[&str], name: &str) -> usize {
    let mut i = 0;
    while i < names.len() {
        let a = names[i].as_bytes();
        let b = name.as_bytes();
        if a.len() == b.len() {
            let mut k = 0;
            while k < a.len() && a[k] == b[k] {
                k += 1;
            }
            if k == a.len() {
                return i;
            }
        }
        i += 1;
    }
    panic!("name not in the table")
}

/// The Rust type of a table row's kind.
#[doc(hidden)]
#[macro_export]
macro_rules! __field_type {
    ([$kind:ident; $n:literal]) => {
        [$crate::__field_type!($kind); $n]
    };
    (real) => {
        f64
    };
    (int) => {
        i32
    };
    (bool) => {
        bool
    };
}

/// `Some(expr)` or `None`.
#[doc(hidden)]
#[macro_export]
macro_rules! __option {
    () => {
        None
    };
    ($e:expr) => {
        Some($e)
    };
}

/// Declares a group of parameters as a typed struct with its table rows:
/// the shared half of several circuits' tables, or fmu-core's solver
/// settings.
///
/// ```ignore
/// fmu_core::parameters! {
///     /// The mass and its friction.
///     pub struct CarriageParams {
///         /// Moving mass
///         m: real ["kg"] = 200.0, above 0.0;
///         /// Initial position
///         x_0: real ["m" => "mm"] = 1.0;
///         /// Use the quasi-static law
///         quasi_static: bool = false;
///         /// Segments
///         n: int structural = 1, min 1, max 14;
///     }
/// }
/// ```
///
/// Each row: doc comment (the description), name, kind (`real`, `int`,
/// `bool`) with modifiers (`tunable`, `structural`), optional
/// `[unit => display unit]`, `=` start value, then range options (`min`,
/// `max`: inclusive; `above`, `below`: exclusive). A `groups { field: Type,
/// ... }` block after the struct includes other groups by field.
///
/// An array row (`[real; 8]`, start value an array) is a field of that
/// array type and as many variables, `name1` to `name8`, each with the
/// row's unit and range and its description with `{i}` replaced by its
/// number:
///
/// ```ignore
/// /// Spool signal of control point {i}
/// U: [real; 3] ["V"] = [0.0, 5.0, 10.0];
/// ```
#[macro_export]
macro_rules! parameters {
    (
        $(#[$meta:meta])*
        $vis:vis struct $Name:ident {
            $(
                $(#[doc = $doc:literal])*
                $field:ident : $kind:tt $($modifier:ident)*
                    $([$unit:literal $(=> $display:literal)?])? = $start:expr
                    $(, $option:ident $limit:expr)* ;
            )*
        }
        $(groups {
            $( $(#[doc = $gdoc:literal])* $gfield:ident : $Group:ty ),* $(,)?
        })?
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        #[allow(non_snake_case)]
        $vis struct $Name {
            $( $(#[doc = $doc])* pub $field: $crate::__field_type!($kind), )*
            $($( $(#[doc = $gdoc])* pub $gfield: $Group, )*)?
        }

        impl $crate::table::Record for $Name {
            fn len() -> usize {
                0 $(+ $crate::__row_count!($kind))*
                    $($(+ <$Group as $crate::table::Record>::len())*)?
            }

            fn rows(out: &mut Vec<$crate::table::Row>) {
                $(
                    $crate::__parameter_rows!(out, $field, $kind, concat!($($doc),*), $start,
                        [$(.$modifier())* $(.unit($unit) $(.display($display))?)?]
                        [$(.$option($limit))*]);
                )*
                $($( <$Group as $crate::table::Record>::rows(out); )*)?
            }

            #[allow(non_snake_case, unused_assignments, unused_mut, unused_variables)]
            fn from_values(values: &[f64]) -> Self {
                let mut i = 0usize;
                $(
                    let $field = $crate::__field_value!($kind, values, i);
                    i += $crate::__row_count!($kind);
                )*
                $($(
                    let $gfield = <$Group as $crate::table::Record>::from_values(
                        &values[i..i + <$Group as $crate::table::Record>::len()],
                    );
                    i += <$Group as $crate::table::Record>::len();
                )*)?
                $Name { $($field,)* $($($gfield,)*)? }
            }
        }
    };
}

/// The names or descriptions of the `N` elements of an array row, built
/// at compile time into fixed buffers of `CAP` bytes (a text that does
/// not fit is a compile error): `field1`, `field2`, ... and the row's
/// description with `{i}` replaced by each element's number. Held in a
/// `static` per row, so the table's `&'static str` rows need no
/// allocation, and nothing is left behind when the FMU is unloaded.
#[derive(Debug)]
pub struct ElementTexts<const N: usize, const CAP: usize> {
    bytes: [[u8; CAP]; N],
    lens: [usize; N],
}

impl<const N: usize, const CAP: usize> ElementTexts<N, CAP> {
    /// `field` followed by each element's number (from 1).
    pub const fn names(field: &str) -> Self {
        Self::build(field.as_bytes(), false)
    }

    /// `doc` with every `{i}` replaced by each element's number (from 1).
    pub const fn descriptions(doc: &str) -> Self {
        Self::build(doc.as_bytes(), true)
    }

    const fn build(text: &[u8], replace: bool) -> Self {
        let mut bytes = [[0u8; CAP]; N];
        let mut lens = [0usize; N];
        let mut k = 0;
        while k < N {
            let (digits, count) = Self::digits(k + 1);
            let mut at = 0;
            let mut i = 0;
            while i < text.len() {
                if replace
                    && i + 2 < text.len()
                    && text[i] == b'{'
                    && text[i + 1] == b'i'
                    && text[i + 2] == b'}'
                {
                    let mut d = 0;
                    while d < count {
                        assert!(at < CAP, "an array row's text does not fit its buffer");
                        bytes[k][at] = digits[d];
                        at += 1;
                        d += 1;
                    }
                    i += 3;
                } else {
                    assert!(at < CAP, "an array row's text does not fit its buffer");
                    bytes[k][at] = text[i];
                    at += 1;
                    i += 1;
                }
            }
            if !replace {
                let mut d = 0;
                while d < count {
                    assert!(at < CAP, "an array row's name does not fit its buffer");
                    bytes[k][at] = digits[d];
                    at += 1;
                    d += 1;
                }
            }
            lens[k] = at;
            k += 1;
        }
        ElementTexts { bytes, lens }
    }

    /// The decimal digits of `n` (at most 3) and how many there are.
    const fn digits(n: usize) -> ([u8; 3], usize) {
        assert!(n < 1000, "an array row has at most 999 elements");
        if n < 10 {
            ([b'0' + n as u8, 0, 0], 1)
        } else if n < 100 {
            ([b'0' + (n / 10) as u8, b'0' + (n % 10) as u8, 0], 2)
        } else {
            (
                [
                    b'0' + (n / 100) as u8,
                    b'0' + (n / 10 % 10) as u8,
                    b'0' + (n % 10) as u8,
                ],
                3,
            )
        }
    }

    /// Element `k`'s text (from 0).
    pub fn get(&'static self, k: usize) -> &'static str {
        // Built from whole UTF-8 texts with ASCII digits put in place of
        // ASCII `{i}`: always valid.
        std::str::from_utf8(&self.bytes[k][..self.lens[k]]).unwrap_or("")
    }
}

/// The number of rows of a parameter: 1, or an array row's length.
#[doc(hidden)]
#[macro_export]
macro_rules! __row_count {
    ([$kind:ident; $n:literal]) => {
        $n
    };
    ($kind:ident) => {
        1
    };
}

/// A parameter's field from the flat values at `i`.
#[doc(hidden)]
#[macro_export]
macro_rules! __field_value {
    ([$kind:ident; $n:literal], $values:ident, $i:ident) => {
        ::core::array::from_fn(|k| $crate::table::FromValue::from_value($values[$i + k]))
    };
    ($kind:ident, $values:ident, $i:ident) => {
        $crate::table::FromValue::from_value($values[$i])
    };
}

/// A parameter's table rows: one, or one per element of an array row,
/// named `field1`, `field2`, ... with `{i}` in the description replaced
/// by the element's number.
#[doc(hidden)]
#[macro_export]
macro_rules! __parameter_rows {
    ($out:ident, $field:ident, [$kind:ident; $n:literal], $doc:expr, $start:expr,
        [$($before:tt)*] [$($after:tt)*]) => {
        {
            static NAMES: $crate::table::ElementTexts<$n, 64> =
                $crate::table::ElementTexts::names(stringify!($field));
            static DESCRIPTIONS: $crate::table::ElementTexts<$n, 512> =
                $crate::table::ElementTexts::descriptions($doc);
            let starts: [_; $n] = $start;
            for (k, start) in starts.into_iter().enumerate() {
                $out.push(
                    $crate::table::Row::$kind(NAMES.get(k), DESCRIPTIONS.get(k))
                        $($before)* .start(start) $($after)*
                );
            }
        }
    };
    ($out:ident, $field:ident, $kind:ident, $doc:expr, $start:expr,
        [$($before:tt)*] [$($after:tt)*]) => {
        $out.push(
            $crate::table::Row::$kind(stringify!($field), $doc) $($before)* .start($start) $($after)*
        );
    };
}

/// Declares a circuit's variable table: one place for every variable, from
/// which fmu-core derives value references, both model descriptions, range
/// checks and typed structs (see the [module docs](crate::table)).
///
/// ```ignore
/// fmu_core::circuit! {
///     model OrificeChain {
///         description: "Three orifices in series with a large and a small volume",
///         documentation: include_str!("../MODEL.md"),
///         stop_time: 50.0,
///         step_size: 1e-3,
///     }
///     states {
///         /// Pressure in V1
///         p1: nominal 1e6;
///         /// Pressure in V2
///         p2: nominal 1e6;
///     }
///     inputs Inputs {
///         /// Supply pressure
///         ps: ["Pa" => "bar"] = 1e7, min -1e5, max 1e9;
///     }
///     outputs Outputs {
///         /// Pressure in V1 (the state)
///         p1: ["Pa" => "bar"] = x[state::p1];
///         /// Flow through orifice 1
///         Q1: ["m3/s" => "L/min"], depends(ps);
///     }
///     parameters Params {
///         /// Discharge coefficient
///         Cd: real ["1"] = 0.6, above 0.0, max 1.0;
///     }
/// }
/// ```
///
/// An output that shows a state says which (`= x[state::p1]`, or for a
/// state in a block `= x[state::drive.index(DriveStates::p1)]`); fmu-core
/// copies it, and it may be a known of directional derivatives. States
/// are scalars (`name: nominal value;`) or blocks of a state group
/// declared with [`states!`](crate::states) (`name: group Type;`); with
/// `states { layout Type; }` the whole state vector is one such group
/// (a circuit's layout, whose constants the code evaluating it shares);
/// with `states { reserve N; }` the model sizes its states itself (a structural
/// segment count). The macro generates the structs, `impl Table for
/// <model>`, the constant `NX` (the number of states), and modules `input`,
/// `output` and `state` with each variable's index (state blocks as
/// [`Block`](crate::blocks::Block)s).
#[macro_export]
macro_rules! circuit {
    (
        model $Model:ident {
            description: $description:expr,
            documentation: $documentation:expr,
            stop_time: $stop:expr,
            step_size: $step:expr $(,)?
        }
        states { $($states:tt)* }
        inputs $Inputs:ident {
            $(
                $(#[doc = $idoc:literal])*
                $input:ident : [$iunit:literal $(=> $idisplay:literal)?] = $istart:expr
                    $(, $ioption:ident $ilimit:expr)* ;
            )*
        }
        outputs $Outputs:ident {
            $(
                $(#[doc = $odoc:literal])*
                $output:ident : [$ounit:literal $(=> $odisplay:literal)?]
                    $(= x[$ostate:expr])? $(, depends($($dep:ident),*))? ;
            )*
        }
        parameters $Params:ident { $($params:tt)* }
        $(groups { $($groups:tt)* })?
    ) => {
        $crate::__states!(@munch [0usize] [] [] $($states)*);

        /// The circuit's inputs (SI units), as the master set them.
        #[derive(Debug, Clone, PartialEq)]
        #[allow(non_snake_case)]
        pub struct $Inputs {
            $( $(#[doc = $idoc])* pub $input: f64, )*
        }

        impl $crate::table::Record for $Inputs {
            fn len() -> usize {
                0 $(+ { let _ = stringify!($input); 1 })*
            }

            fn rows(out: &mut Vec<$crate::table::Row>) {
                $(
                    out.push(
                        $crate::table::Row::real(stringify!($input), concat!($($idoc),*))
                            .input()
                            .unit($iunit) $(.display($idisplay))?
                            .start($istart)
                            $(.$ioption($ilimit))*
                    );
                )*
            }

            #[allow(non_snake_case, unused_assignments, unused_mut, unused_variables)]
            fn from_values(values: &[f64]) -> Self {
                let mut i = 0usize;
                $( let $input = values[i]; i += 1; )*
                $Inputs { $($input,)* }
            }
        }

        /// The circuit's outputs (SI units).
        #[derive(Debug, Clone, Default, PartialEq)]
        #[allow(non_snake_case)]
        pub struct $Outputs {
            $( $(#[doc = $odoc])* pub $output: f64, )*
        }

        impl $crate::table::OutputRecord for $Outputs {
            fn len() -> usize {
                0 $(+ { let _ = stringify!($output); 1 })*
            }

            fn rows(out: &mut Vec<$crate::table::Row>) {
                $(
                    out.push(
                        $crate::table::Row::real(stringify!($output), concat!($($odoc),*))
                            .output(
                                $crate::__option!($($ostate)?),
                                &[$($(stringify!($dep)),*)?],
                            )
                            .unit($ounit) $(.display($odisplay))?
                    );
                )*
            }

            fn get(&self, index: usize) -> f64 {
                const GET: &[fn(&$Outputs) -> f64] = &[$(|o| o.$output),*];
                GET[index](self)
            }

            #[allow(unused_variables)]
            fn fill_states(&mut self, x: &[f64]) {
                $( $( self.$output = x[$ostate]; )? )*
            }
        }

        /// Index of each input (for directional derivatives).
        #[allow(non_upper_case_globals, dead_code)]
        pub mod input {
            const NAMES: &[&str] = &[$(stringify!($input)),*];
            $(
                #[doc = concat!("Index of the input `", stringify!($input), "`.")]
                pub const $input: usize = $crate::table::position(NAMES, stringify!($input));
            )*
        }

        /// Index of each output (for directional derivatives).
        #[allow(non_upper_case_globals, dead_code)]
        pub mod output {
            const NAMES: &[&str] = &[$(stringify!($output)),*];
            $(
                #[doc = concat!("Index of the output `", stringify!($output), "`.")]
                pub const $output: usize = $crate::table::position(NAMES, stringify!($output));
            )*
        }

        $crate::parameters! {
            /// The circuit's parameters (SI units), read by `configure`.
            pub struct $Params { $($params)* }
            $(groups { $($groups)* })?
        }

        impl $crate::table::Table for $Model {
            fn info() -> $crate::table::ModelInfo {
                $crate::table::ModelInfo {
                    name: stringify!($Model),
                    description: $description,
                    documentation: $documentation,
                    start_time: 0.0,
                    stop_time: $stop,
                    step_size: $step,
                    tolerance: None,
                }
            }
            const STATES: usize = NX;
            type Inputs = $Inputs;
            type Outputs = $Outputs;
            type Params = $Params;

            fn state_names() -> Vec<&'static str> {
                __state_names()
            }

            fn state_nominal(out: &mut [f64]) {
                __state_nominal(out)
            }
        }
    };
}

/// Declares a named group of states with their nominal magnitudes (a block
/// of the state vector an element fills, or a whole circuit's layout), for
/// use in several circuits' `states { name: group Type; }` or
/// `states { layout Type; }`.
///
/// ```ignore
/// fmu_core::states! {
///     /// The mass's states.
///     pub struct CarriageStates {
///         /// Position, m
///         x: nominal 0.1;
///         /// Velocity, m/s
///         v: nominal 0.01;
///     }
/// }
/// ```
///
/// An entry is a scalar state (`name: nominal value;`) or a block of
/// another group (`name: group Type;`), so a circuit's whole state vector
/// can be one group built from its elements' groups. Generates the marker
/// type with [`StateGroup`](crate::blocks::StateGroup) and an associated
/// constant per entry: a scalar's index inside the group, a block's
/// [`Block`](crate::blocks::Block). Names, nominal values and part specs
/// of nested groups are flattened in order.
#[macro_export]
macro_rules! states {
    (
        $(#[$meta:meta])*
        $vis:vis struct $Name:ident { $($body:tt)* }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        $vis struct $Name;

        $crate::__state_group!(@munch $Name [0usize] [] [] $($body)*);
    };
}

/// The entries of [`states!`]: walks them, giving each its offset, then
/// writes the constants and the [`StateGroup`](crate::blocks::StateGroup)
/// implementation.
#[doc(hidden)]
#[macro_export]
macro_rules! __state_group {
    (@munch $Name:ident [$offset:expr] [$($consts:tt)*] [$($entries:tt)*]
        $(#[doc = $doc:literal])* $state:ident : nominal $nominal:expr ; $($rest:tt)*) => {
        $crate::__state_group!(@munch $Name [$offset + 1]
            [$($consts)* $(#[doc = $doc])* pub const $state: usize = $offset;]
            [$($entries)* (scalar $state $nominal)]
            $($rest)*);
    };
    (@munch $Name:ident [$offset:expr] [$($consts:tt)*] [$($entries:tt)*]
        $(#[doc = $doc:literal])* $block:ident : group $Group:ty ; $($rest:tt)*) => {
        $crate::__state_group!(@munch $Name
            [$offset + <$Group as $crate::blocks::StateGroup>::LEN]
            [$($consts)* $(#[doc = $doc])*
             pub const $block: $crate::blocks::Block<{ <$Group as $crate::blocks::StateGroup>::LEN }>
                 = $crate::blocks::Block::at($offset);]
            [$($entries)* (group $block $Group)]
            $($rest)*);
    };
    (@munch $Name:ident [$offset:expr] [$($consts:tt)*] [$(($how:ident $name:ident $what:tt))*]) => {
        #[allow(non_upper_case_globals, dead_code)]
        impl $Name {
            $($consts)*
        }

        impl $crate::blocks::StateGroup for $Name {
            const LEN: usize = $offset;
            const NAMES: &'static [&'static str] = &{
                let mut out = [""; $offset];
                let mut at = 0usize;
                $( $crate::__state_group!(@fill out at NAMES $how $name $what [stringify!($name)]); )*
                assert!(at == $offset);
                out
            };
            const NOMINAL: &'static [f64] = &{
                let mut out = [0.0; $offset];
                let mut at = 0usize;
                $( $crate::__state_group!(@fill out at NOMINAL $how $name $what [$what]); )*
                assert!(at == $offset);
                out
            };
            const SPECS: &'static [$crate::compose::StateSpec] = &{
                let mut out = [$crate::compose::StateSpec::new("", 0.0); $offset];
                let mut at = 0usize;
                $( $crate::__state_group!(@fill out at SPECS $how $name $what
                    [$crate::compose::StateSpec::new(stringify!($name), $what)]); )*
                assert!(at == $offset);
                out
            };
        }
    };
    // One scalar entry: its value.
    (@fill $out:ident $at:ident $list:ident scalar $name:ident $what:tt [$($value:tt)*]) => {
        $out[$at] = $($value)*;
        $at += 1;
    };
    // A nested group: its whole list, in order.
    (@fill $out:ident $at:ident $list:ident group $name:ident $Group:tt [$($value:tt)*]) => {
        let inner = <$Group as $crate::blocks::StateGroup>::$list;
        let mut k = 0usize;
        while k < inner.len() {
            $out[$at] = inner[k];
            $at += 1;
            k += 1;
        }
    };
}

/// The states section of [`circuit!`]: walks the entries, giving each its
/// offset, then writes `NX`, the `state` module and the nominal values.
#[doc(hidden)]
#[macro_export]
macro_rules! __states {
    // A structural state count: the model sizes its states itself.
    (@munch [$offset:expr] [] [] reserve $n:expr ;) => {
        /// Number of states reserved (the model uses as many as its
        /// structural parameters say).
        pub const NX: usize = $n;
        /// The states have no fixed names.
        pub mod state {}
        fn __state_names() -> Vec<&'static str> {
            Vec::new()
        }
        fn __state_nominal(out: &mut [f64]) {
            out.fill(1.0);
        }
    };
    // The whole state vector is one group (a circuit's layout, declared
    // with `states!` and shared with the code that evaluates it): its
    // constants are the indices.
    (@munch [$offset:expr] [] [] $(#[doc = $doc:literal])* layout $Group:ty ;) => {
        /// Number of states (the layout's).
        pub const NX: usize = <$Group as $crate::blocks::StateGroup>::LEN;
        /// The states are the layout's: its constants are their indices.
        pub mod state {}
        fn __state_names() -> Vec<&'static str> {
            <$Group as $crate::blocks::StateGroup>::NAMES.to_vec()
        }
        fn __state_nominal(out: &mut [f64]) {
            out.copy_from_slice(<$Group as $crate::blocks::StateGroup>::NOMINAL);
        }
    };
    // A scalar state.
    (@munch [$offset:expr] [$($consts:tt)*] [$($nominal:tt)*]
        $(#[doc = $doc:literal])* $name:ident : nominal $value:expr ; $($rest:tt)*) => {
        $crate::__states!(@munch [$offset + 1]
            [$($consts)* $(#[doc = $doc])* pub const $name: usize = $offset;]
            [$($nominal)* (scalar $name $value)]
            $($rest)*);
    };
    // A block of a state group.
    (@munch [$offset:expr] [$($consts:tt)*] [$($nominal:tt)*]
        $(#[doc = $doc:literal])* $name:ident : group $Group:ty ; $($rest:tt)*) => {
        $crate::__states!(@munch [$offset + <$Group as $crate::blocks::StateGroup>::LEN]
            [$($consts)* $(#[doc = $doc])*
             pub const $name: $crate::blocks::Block<{ <$Group as $crate::blocks::StateGroup>::LEN }>
                 = $crate::blocks::Block::at($offset);]
            [$($nominal)* (group $name $Group)]
            $($rest)*);
    };
    // Done: the number of states, the index module and the nominal values.
    (@munch [$offset:expr] [$($consts:tt)*] [$(($how:ident $name:ident $what:tt))*]) => {
        /// Number of states.
        pub const NX: usize = $offset;

        /// Where each state (or block of states) sits in the state vector.
        #[allow(non_upper_case_globals, dead_code, unused_imports)]
        pub mod state {
            use super::*;
            $($consts)*
        }

        fn __state_names() -> Vec<&'static str> {
            let mut names = Vec::with_capacity(NX);
            $( $crate::__states!(@name names $how $name $what); )*
            names
        }

        fn __state_nominal(out: &mut [f64]) {
            $( $crate::__states!(@nominal out $how $name $what); )*
        }
    };
    (@name $names:ident scalar $name:ident $value:tt) => {
        $names.push(stringify!($name));
    };
    (@name $names:ident group $name:ident $Group:tt) => {
        $names.extend(<$Group as $crate::blocks::StateGroup>::NAMES.iter().copied());
    };
    (@nominal $out:ident scalar $name:ident $value:tt) => {
        $out[state::$name] = $value;
    };
    (@nominal $out:ident group $name:ident $Group:tt) => {
        state::$name.write_slice($out, <$Group as $crate::blocks::StateGroup>::NOMINAL);
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use model_description::{Causality, Variability};

    #[test]
    fn rows_check_values_against_open_and_closed_bounds() {
        let cd = Row::real("Cd", "Discharge coefficient").above(0.0).max(1.0);
        assert!(
            cd.check(0.0)
                .unwrap_err()
                .contains("outside its range (0, 1]")
        );
        assert!(cd.check(1.0).is_ok() && cd.check(1e-12).is_ok());
        assert!(cd.check(1.0 + 1e-12).is_err());
        assert!(cd.check(f64::NAN).unwrap_err().contains("not finite"));
        let n = Row::int("n", "Segments").min(1).below(15);
        assert!(n.check(14.0).is_ok());
        assert!(n.check(15.0).unwrap_err().contains("[1, 15)"));
        assert!(n.check(2.5).unwrap_err().contains("not a 32-bit integer"));
        assert!(n.check(1e10).is_err());
        let b = Row::bool("flag", "A flag");
        assert!(b.check(1.0).is_ok() && b.check(0.0).is_ok());
        assert!(b.check(0.5).unwrap_err().contains("not a Boolean"));
        assert_eq!(Row::real("x", "free").range_text(), None);
    }

    #[test]
    fn rows_become_model_description_variables() {
        let rows = [
            Row::real("ps", " Supply\n   pressure")
                .input()
                .unit("Pa")
                .display("bar")
                .start(1e7),
            Row::real("Q1", "Flow").output(None, &["ps"]).unit("m3/s"),
            Row::int("n", "Segments").structural().start(3).min(1),
            Row::real("k", "Gain").tunable().above(0.0).start(2.0),
        ];
        check_rows(&rows).unwrap();
        let vars = variables(&rows, 1);
        assert_eq!(vars[0].description, "Supply pressure");
        assert_eq!(vars[0].causality, Causality::Input);
        assert_eq!(vars[1].dependencies, Some(vec![1]));
        assert!(vars[2].structural && vars[2].variability == Variability::Fixed);
        assert_eq!(vars[3].variability, Variability::Tunable);
        // An open bound is written as the XML's (inclusive) min; the open
        // end is enforced by the check.
        assert_eq!(vars[3].kind.range(), (0.0, f64::INFINITY));
    }

    #[test]
    fn table_mistakes_are_named() {
        let rows = [
            Row::real("Q", "Flow").output(None, &["nope"]),
            Row::real("u", "").input(),
            Row::real("u", "Twice").input(),
            Row::bool("b", "Flag").unit("Pa"),
            Row::real("k", "Gain").above(0.0),
        ];
        let e = check_rows(&rows).unwrap_err();
        for needle in [
            "'Q' depends on 'nope', not an input",
            "'u' has no description",
            "'u' is declared twice",
            "'u' is out of place",
            "'b' is not real and cannot have a unit",
            "start value: value 0 for 'k' is outside its range (0, inf)",
        ] {
            assert!(e.contains(needle), "missing '{needle}' in:\n{e}");
        }
    }

    crate::states! {
        /// Two scalars.
        pub struct Inner {
            /// First
            a: nominal 2.0;
            /// Second
            b: nominal 3.0;
        }
    }

    crate::states! {
        /// A layout with a nested group between scalars.
        pub struct Outer {
            /// Before
            first: nominal 1.0;
            /// The nested block
            inner: group Inner;
            /// After
            last: nominal 4.0;
        }
    }

    #[test]
    fn nested_state_groups_are_blocks_flattened_in_order() {
        use crate::blocks::StateGroup;
        use crate::compose::StateSpec;
        assert_eq!(Outer::LEN, 4);
        assert_eq!(Outer::NAMES, &["first", "a", "b", "last"]);
        assert_eq!(Outer::NOMINAL, &[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(Outer::SPECS[2], StateSpec::new("b", 3.0));
        assert_eq!(
            (
                Outer::first,
                Outer::inner.start(),
                Outer::inner.index(Inner::b),
                Outer::last
            ),
            (0, 1, 2, 3)
        );
    }

    crate::parameters! {
        /// An array row between two scalars.
        pub struct Curve {
            /// Points used
            n: int = 2, min 1, max 3;
            /// Signal of point {i}
            U: [real; 3] ["V"] = [0.0, 5.0, 10.0], min 0.0;
            /// Gain
            k: real = 1.5;
        }
    }

    #[test]
    fn an_array_row_is_numbered_variables_and_one_array_field() {
        let mut rows = Vec::new();
        <Curve as Record>::rows(&mut rows);
        assert_eq!(<Curve as Record>::len(), 5);
        let names: Vec<&str> = rows.iter().map(|r| r.name).collect();
        assert_eq!(names, ["n", "U1", "U2", "U3", "k"]);
        assert_eq!(rows[2].description, " Signal of point 2");
        assert_eq!((rows[3].unit, rows[3].start), (Some("V"), 10.0));
        assert!(rows[1..4].iter().all(|r| r.min
            == Some(Bound {
                value: 0.0,
                open: false
            })));
        assert!(rows[2].check(-1.0).is_err());
        let c = <Curve as Record>::from_values(&[3.0, 1.0, 2.0, 3.0, 4.0]);
        assert_eq!((c.n, c.U, c.k), (3, [1.0, 2.0, 3.0], 4.0));
        // The texts are static: building the rows again gives the same
        // ones.
        let mut again = Vec::new();
        <Curve as Record>::rows(&mut again);
        assert!(std::ptr::eq(again[2].name, rows[2].name));
        check_rows(&rows).unwrap();
        // Numbers of more than one digit, every `{i}` replaced.
        static NAMES: ElementTexts<12, 8> = ElementTexts::names("N");
        static DOCS: ElementTexts<12, 32> = ElementTexts::descriptions("point {i} of {i}");
        assert_eq!((NAMES.get(0), NAMES.get(11)), ("N1", "N12"));
        assert_eq!(DOCS.get(9), "point 10 of 10");
    }

    #[test]
    fn positions_are_found_by_name() {
        const NAMES: &[&str] = &["p1", "p2", "Q1"];
        const Q1: usize = position(NAMES, "Q1");
        assert_eq!(
            (position(NAMES, "p1"), position(NAMES, "p2"), Q1),
            (0, 1, 2)
        );
    }
}
