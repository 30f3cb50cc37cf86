//! The safe trait a circuit implements to become an FMU, [`Model`], and the
//! small types it speaks in.
//!
//! A circuit is split in two: what it is — its table (declared with
//! [`circuit!`](crate::circuit)) and [`Model::configure`], which builds the
//! circuit's elements from the typed parameters and the FMU's
//! [`Context`] — and how its rates are computed — [`Model::rates`] with an
//! optional analytic Jacobian from [`Model::rates_and_jacobian`] (finite
//! differences otherwise), so that a circuit may plug in the physics or a
//! trained surrogate of one of its parts, chosen by a parameter in
//! `configure`.

use crate::context::{Context, ResourceFolder};
use crate::table::{self, Table};
use nalgebra::{SMatrix, SVector};

/// One event indicator of a circuit (Model Exchange): a continuous function
/// of the state and inputs that changes sign exactly where the circuit's
/// equations switch (a valve edge opens, an end stop takes hold, a clamp
/// holds or lets go), so that a master's integrator can locate the switch
/// instead of stepping across it.
///
/// What a master reads (`getEventIndicators`, the variable `event_<name>`)
/// is the switch function plus [`EventIndicator::offset`]: where a default
/// start sits exactly on a switch (a mass resting on its stop, a closed
/// spool at 0 V, equal chamber pressures), the plain function would be
/// identically zero there, and integrators such as CVODE cannot tell on
/// which side the state is (they warn "root functions identically 0" and
/// skip that root). The offset, far below anything the circuit resolves,
/// moves the located switch by that much and never leaves the indicator at
/// exactly zero at such a start. The integrators inside doStep locate
/// switches with the switch function itself (a start on a switch is no
/// sign change there), so Co-Simulation is unchanged by it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EventIndicator {
    /// Short name; the variable is `event_<name>`.
    pub name: &'static str,
    /// What its sign says, in domain terms.
    pub description: &'static str,
    /// Added to the switch function in what a master reads, in the
    /// indicator's unit (0 for none; see above).
    pub offset: f64,
}

/// A state held inside `[lower, upper]` by its model (see
/// [`Model::clamps`]): where its rate is cut to zero while pushed outward,
/// the integrators end a substep on the bound.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Clamp {
    /// Index of the state.
    pub state: usize,
    /// Lower bound, in the state's unit.
    pub lower: f64,
    /// Upper bound, in the state's unit.
    pub upper: f64,
}

impl Clamp {
    /// Where on the way from `from` to `to` this clamp's state reaches a
    /// bound it was inside of, if it does: the fraction of the way (by
    /// linear interpolation) and the bound.
    pub fn crossing<const N: usize>(
        &self,
        from: &SVector<f64, N>,
        to: &SVector<f64, N>,
    ) -> Option<(f64, f64)> {
        let (a, b) = (*from.get(self.state)?, *to.get(self.state)?);
        let bound = if a > self.lower && b < self.lower {
            self.lower
        } else if a < self.upper && b > self.upper {
            self.upper
        } else {
            return None;
        };
        Some(((a - bound) / (a - b), bound))
    }

    /// Puts the state on the bound it is beyond, if any.
    pub fn hold<const N: usize>(&self, x: &mut SVector<f64, N>) {
        if let Some(v) = x.get_mut(self.state) {
            *v = v.clamp(self.lower, self.upper);
        }
    }
}

/// Something a directional derivative is taken with respect to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Known {
    /// An input, by its index in the table (`input::name`).
    Input(usize),
    /// A continuous state, by index in the state vector (`state::name`).
    State(usize),
}

/// A coefficient a circuit derives from its parameters in
/// [`Model::configure`] (a flow coefficient, a damping, a wave speed),
/// declared by [`Model::derived`] so that fmu-core checks it whenever the
/// circuit is configured: parameter values inside their ranges can still
/// combine into an infinite, NaN or (where the physics needs a positive
/// value) non-positive coefficient, and such a configuration is refused
/// with a message naming the coefficient instead of giving NaN outputs
/// later.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Derived {
    /// The coefficient's name, as the circuit's documentation writes it.
    pub name: &'static str,
    /// Its SI unit, for the message.
    pub unit: &'static str,
    /// Its value.
    pub value: f64,
    /// Whether the physics needs it above zero (else: finite is enough).
    pub positive: bool,
}

impl Derived {
    /// A coefficient that must be finite and above zero.
    pub fn positive(name: &'static str, unit: &'static str, value: f64) -> Self {
        Derived {
            name,
            unit,
            value,
            positive: true,
        }
    }

    /// A coefficient that must be finite.
    pub fn finite(name: &'static str, unit: &'static str, value: f64) -> Self {
        Derived {
            name,
            unit,
            value,
            positive: false,
        }
    }

    /// Whether the value is usable; a message naming it otherwise.
    pub fn check(&self) -> Result<(), String> {
        let ok = self.value.is_finite() && (!self.positive || self.value > 0.0);
        if ok {
            return Ok(());
        }
        let need = if self.positive {
            "finite and above zero"
        } else {
            "finite"
        };
        Err(format!(
            "these parameter values give the derived coefficient {} = {} {}, which must be {need}",
            self.name,
            crate::table::Number(self.value),
            self.unit
        ))
    }
}

/// A circuit model with `N` continuous states, as fmu-core sees it. Its
/// table ([`Table`], from [`circuit!`](crate::circuit)) gives the typed
/// inputs, outputs and parameters; the methods are the circuit's physics.
pub trait Model<const N: usize>: Table + Sized + Clone + Send + 'static {
    /// Reads the circuit's table where it is not compiled in: a circuit
    /// described in a file the FMU carries in its resources reads it here.
    /// fmu-core calls it first in every instantiation, before it asks the
    /// table anything; an error refuses the instantiation with its message.
    /// Nothing to read by default.
    fn load_table(_resources: &ResourceFolder) -> Result<(), String> {
        Ok(())
    }

    /// Builds the circuit from its parameters, deriving coefficients once
    /// and choosing how each part's rates are computed. An error message
    /// when the values are inconsistent (rules a range cannot say, like
    /// "Fs >= Fc"), or when a resource the choice needs is missing.
    fn configure(params: &Self::Params, context: &Context) -> Result<Self, String>;

    /// The coefficients [`Model::configure`] derived, for fmu-core to check
    /// (see [`Derived`]); none by default. fmu-core also evaluates the
    /// initial state, the rates, the Jacobian and the outputs once after
    /// every configuration and refuses non-finite results, so an undeclared
    /// coefficient is caught too, only with a less precise message.
    fn derived(&self) -> Vec<Derived> {
        Vec::new()
    }

    /// The state at the start time, from the parameters and the inputs.
    fn initial_state(&self, inputs: &Self::Inputs) -> SVector<f64, N>;

    /// The rates `dx/dt` at state `x` with inputs `u` (the model's
    /// equations).
    fn rates(&self, u: &Self::Inputs, x: &SVector<f64, N>) -> SVector<f64, N>;

    /// The rates at state `x` and their analytic Jacobian `d(rates)/dx`,
    /// written into `j` (whose block of active states arrives filled with
    /// zeros: write the non-zero entries), from one evaluation of the
    /// equations; the flag says whether `j` was written. The one entry point
    /// for the Jacobian: the default writes none and returns false, and
    /// fmu-core uses finite differences of [`Model::rates`].
    fn rates_and_jacobian(
        &self,
        u: &Self::Inputs,
        x: &SVector<f64, N>,
        _j: &mut SMatrix<f64, N, N>,
    ) -> (SVector<f64, N>, bool) {
        (self.rates(u, x), false)
    }

    /// Fills the outputs at state `x` (outputs that show a state are filled
    /// by fmu-core beforehand).
    fn outputs(&self, _u: &Self::Inputs, _x: &SVector<f64, N>, _out: &mut Self::Outputs) {}

    /// Nominal magnitude of each state; the table's values by default.
    fn nominal(&self) -> SVector<f64, N> {
        let mut v = SVector::<f64, N>::repeat(1.0);
        Self::state_nominal(v.as_mut_slice());
        v
    }

    /// How many leading states are in use (see
    /// [`OdeSystem::active_states`](crate::solver::OdeSystem::active_states)).
    fn active_states(&self) -> usize {
        N
    }

    /// States the circuit holds inside a range (see
    /// [`OdeSystem::clamps`](crate::solver::OdeSystem::clamps)); none by default.
    fn clamps(&self) -> &[Clamp] {
        &[]
    }

    /// The circuit's FMI 3 terminals (hydraulic ports, flanges), written to
    /// `terminalsAndIcons/terminalsAndIcons.xml`; none by default. Their
    /// members must name variables of the table (checked with the model
    /// description).
    fn terminals() -> Vec<model_description::Terminal> {
        Vec::new()
    }

    /// The circuit's event indicators (see [`EventIndicator`]), always the
    /// same list for a model type; none by default.
    fn event_indicators() -> Vec<EventIndicator> {
        Vec::new()
    }

    /// The values of the event indicators at state `x` with inputs `u`,
    /// one per entry of [`Model::event_indicators`], into `z`.
    fn event_indicator_values(&self, _u: &Self::Inputs, _x: &SVector<f64, N>, _z: &mut [f64]) {}

    /// The period in seconds of the circuit's sampled part, when its
    /// configuration has one (see [`OdeSystem::sample_period`](crate::solver::OdeSystem::sample_period)): a trained
    /// discrete-time surrogate in place of a stiff equation. Such a model
    /// is stepped in co-simulation only, by whole periods; `None` (the
    /// default): purely continuous.
    fn sample_period(&self) -> Option<f64> {
        None
    }

    /// The sampled part's update at the end of a period (see
    /// [`OdeSystem::sample`](crate::solver::OdeSystem::sample)): overwrite the sampled states of `x`.
    fn sample(&self, _u: &Self::Inputs, _x: &mut SVector<f64, N>) {}

    /// Whether every state is sampled (see [`OdeSystem::sampled_only`](crate::solver::OdeSystem::sampled_only)): a
    /// whole circuit replaced by a discrete-time surrogate. `false` (the
    /// default).
    fn sampled_only(&self) -> bool {
        false
    }

    /// The analytic partial derivatives of the rates with respect to every
    /// input, one column per input in the table's order (`input::name`),
    /// into `columns`; `false` (the default) makes fmu-core use central
    /// differences. Directional derivatives with respect to inputs use
    /// them (an estimator that learns a parameter exposed as an input).
    fn rate_input_jacobian(
        &self,
        _u: &Self::Inputs,
        _x: &SVector<f64, N>,
        _columns: &mut [SVector<f64, N>],
    ) -> bool {
        false
    }

    /// The analytic partial derivative of output `output` (its index,
    /// `output::name`) with respect to `wrt`; `None` makes fmu-core use
    /// central finite differences.
    fn output_partial(
        &self,
        _u: &Self::Inputs,
        _x: &SVector<f64, N>,
        _output: usize,
        _wrt: Known,
    ) -> Option<f64> {
        None
    }

    /// The outputs at state `x`: state outputs copied, then
    /// [`Model::outputs`].
    fn all_outputs(&self, u: &Self::Inputs, x: &SVector<f64, N>) -> Self::Outputs {
        let mut out = Self::Outputs::default();
        self.outputs_into(u, x, &mut out);
        out
    }

    /// [`Model::all_outputs`] into the record `out`, cleared first: what a
    /// step uses, with no record made or copied.
    fn outputs_into(&self, u: &Self::Inputs, x: &SVector<f64, N>, out: &mut Self::Outputs) {
        table::OutputRecord::clear(out);
        table::OutputRecord::fill_states(out, x.as_slice());
        self.outputs(u, x, out);
    }
}
