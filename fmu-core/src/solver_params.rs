//! The integrator's settings as parameters of every FMU ([`SolverParams`]):
//! their table rows and the [`SolverSettings`] they say.

use crate::solver::{Method, SolverSettings};
use crate::table::{Record, Row};

crate::parameters! {
    /// The integrator's settings: parameters of every FMU, tunable between
    /// communication steps.
    pub struct SolverParams {
        /// Integration method inside doStep: 1 = Rodas3 (adaptive,
        /// L-stable implicit, default), 2 = explicit Euler at
        /// explicit_step, 3 = RK4 at explicit_step, 4 = Rosenbrock-W
        /// (adaptive, Jacobian and LU reused: the fastest adaptive one),
        /// 5 = fixed cost (fixed_substeps linearly implicit substeps per
        /// doStep, no error control: the same work every step, for
        /// real-time rigs), 6 = Rosenbrock-W stepping past communication
        /// points (the states there interpolated while the inputs stay the
        /// same: fewer substeps than doSteps at small communication steps)
        solver: int tunable = 1, min 1, max 6;
        /// Relative tolerance of the adaptive integrator
        rtol: real tunable ["1"] = 1e-6, min 1e-14, max 0.1;
        /// Absolute tolerance of the adaptive integrator, relative to each
        /// state's nominal value
        atol: real tunable ["1"] = 1e-6, min 1e-16, max 0.1;
        /// Most substeps (accepted and rejected) per communication step;
        /// beyond it doStep returns Discard
        max_substeps: int tunable = 100_000, min 1, max i32::MAX;
        /// Fixed step of the explicit baselines (solver = 2 or 3)
        explicit_step: real tunable ["s" => "ms"] = 1e-4, min 1e-12, max 1.0;
        /// Substeps per communication step of the fixed-cost solver
        /// (solver = 5), each of communicationStepSize / fixed_substeps
        fixed_substeps: int tunable = 1, min 1, max 100_000;
    }
}

impl SolverParams {
    /// The integrator settings these parameters say (values are checked
    /// against the table already).
    pub fn settings(&self) -> SolverSettings {
        SolverSettings {
            method: Method::from_code(self.solver).unwrap_or(Method::Rodas3),
            rtol: self.rtol,
            atol: self.atol,
            max_substeps: self.max_substeps.max(1) as u32,
            explicit_step: self.explicit_step,
            fixed_substeps: self.fixed_substeps.max(1) as u32,
        }
    }
}

/// The rows of the solver parameters every FMU has.
pub fn solver_rows() -> Vec<Row> {
    let mut rows = Vec::new();
    SolverParams::rows(&mut rows);
    rows
}

/// The range of the relative tolerance `rtol` (its row's min and max):
/// the tolerances the integrators take.
pub fn rtol_range() -> (f64, f64) {
    let rows = solver_rows();
    let rtol = rows
        .iter()
        .find(|r| r.name == "rtol")
        .expect("rtol is a solver parameter");
    (
        rtol.min.map_or(0.0, |b| b.value),
        rtol.max.map_or(1.0, |b| b.value),
    )
}

/// The solver parameters' rows of a model whose default experiment names
/// the relative tolerance `tolerance`: `rtol` starts there (inside its
/// range), so that the FMU runs at it when the master sets none.
pub fn solver_rows_with(tolerance: Option<f64>) -> Vec<Row> {
    let mut rows = solver_rows();
    if let Some(tol) = tolerance
        && let Some(rtol) = rows.iter_mut().find(|r| r.name == "rtol")
    {
        let (lo, hi) = rtol_range();
        rtol.start = tol.clamp(lo, hi);
    }
    rows
}
