//! The hose FMUs' model: one generic model for the four causal forms, each
//! form with its own table (its inputs and outputs are its interface).

pub use crate::network::Form;
use crate::network::{Boundary, Line};
use crate::params::HoseParams;
use fmu_core::nalgebra::{SMatrix, SVector};
use fmu_core::{Context, Derived, DynBlock, Model, Table};
use hydraulics::hose::HoseSegment;

/// Largest segment count: the resistance correction kr = kr1 - kr2 (n - 1)
/// reaches zero at n = 15.
pub const MAX_SEGMENTS: usize = 14;
/// States reserved: the Y and Z forms have 2 n + 1 states.
pub const NX: usize = 2 * MAX_SEGMENTS + 1;

/// The hose model in causal form `FORM` (0 = H, 1 = G, 2 = Y, 3 = Z; see
/// [`form`]): the lumped line and, for form Z, the initial outlet
/// pressure. The FMUs are [`HoseH`], [`HoseG`], [`HoseY`], [`HoseZ`].
#[derive(Debug, Clone, PartialEq)]
pub struct HoseModel<const FORM: u8> {
    line: Line,
    p_level: f64,
}

/// The hose in causal form H: inputs `Q1`, `p2`; outputs `p1`, `Q2`.
pub type HoseH = HoseModel<0>;
/// The hose in causal form G: inputs `p1`, `Q2`; outputs `Q1`, `p2`.
pub type HoseG = HoseModel<1>;
/// The hose in causal form Y: inputs `p1`, `p2`; outputs `Q1`, `Q2`.
pub type HoseY = HoseModel<2>;
/// The hose in causal form Z: inputs `Q1`, `Q2`; outputs `p1`, `p2`.
pub type HoseZ = HoseModel<3>;

/// The form of a `FORM` code.
pub const fn form(code: u8) -> Form {
    match code {
        0 => Form::H,
        1 => Form::G,
        2 => Form::Y,
        _ => Form::Z,
    }
}

/// The ends of the line, as the forms' inputs and outputs name them.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Ends {
    /// Inlet pressure, Pa.
    pub p1: f64,
    /// Outlet pressure, Pa.
    pub p2: f64,
    /// Inflow at the inlet, m3/s.
    pub q1: f64,
    /// Outflow at the outlet, m3/s.
    pub q2: f64,
}

/// What a form's table gives the generic model: the boundary its inputs
/// set, the outputs it reads from the line's ends, its hose parameters.
pub trait FormTable: Table {
    /// The boundary values the inputs set.
    fn boundary(u: &Self::Inputs) -> Boundary;
    /// The outputs, from the line's ends.
    fn read_outputs(ends: &Ends, out: &mut Self::Outputs);
    /// The hose parameters.
    fn hose(p: &Self::Params) -> &HoseParams;
    /// The initial outlet pressure (form Z, whose pressure level is free).
    fn p_level(_p: &Self::Params) -> f64 {
        0.0
    }
}

impl<const FORM: u8> HoseModel<FORM> {
    /// The block of node pressures in the state vector.
    pub fn nodes(&self) -> DynBlock {
        self.line.node_block()
    }

    /// The block of branch flows.
    pub fn branches(&self) -> DynBlock {
        self.line.branch_block()
    }

    /// Both end pressures and flows at state `x` and boundary `b`: the
    /// boundary's values where they are inputs, the end node's pressure or
    /// the end branch's flow where they are states.
    pub fn ends(&self, x: &SVector<f64, NX>, b: &Boundary) -> Ends {
        let (nodes, branches) = (self.nodes(), self.branches());
        let first_node = x[nodes.index(0)];
        let last_node = x[nodes.index(nodes.len - 1)];
        let first_flow = x[branches.index(0)];
        let last_flow = x[branches.index(branches.len - 1)];
        match form(FORM) {
            Form::H => Ends {
                p1: first_node,
                p2: b.p2,
                q1: b.q1,
                q2: last_flow,
            },
            Form::G => Ends {
                p1: b.p1,
                p2: last_node,
                q1: first_flow,
                q2: b.q2,
            },
            Form::Y => Ends {
                p1: b.p1,
                p2: b.p2,
                q1: first_flow,
                q2: last_flow,
            },
            Form::Z => Ends {
                p1: first_node,
                p2: last_node,
                q1: b.q1,
                q2: b.q2,
            },
        }
    }
}

impl<const FORM: u8> Model<NX> for HoseModel<FORM>
where
    HoseModel<FORM>: FormTable,
{
    fn terminals() -> Vec<fmu_core::model_description::Terminal> {
        use fmu_core::model_description::{Side, Terminal};
        vec![
            Terminal::hydraulic_port(
                "port_1",
                "Inlet: pressure p1 and inflow Q1",
                "p1",
                "Q1",
                true,
                Side::Left,
            ),
            Terminal::hydraulic_port(
                "port_2",
                "Outlet: pressure p2 and outflow Q2",
                "p2",
                "Q2",
                false,
                Side::Right,
            ),
        ]
    }

    fn configure(p: &Self::Params, _context: &Context) -> Result<Self, String> {
        let n = Self::hose(p).n;
        if !(1..=MAX_SEGMENTS as i32).contains(&n) {
            return Err(format!("n = {n} is outside 1..{MAX_SEGMENTS}"));
        }
        let params = Self::hose(p).parameters();
        params.check()?;
        let segment = HoseSegment::new(&params, n as usize)?;
        Ok(HoseModel {
            line: Line::new(form(FORM), segment, n as usize),
            p_level: Self::p_level(p),
        })
    }

    /// The segment's coefficients at the wall's reference pressure (H1-H6)
    /// and the initial outlet pressure of form Z.
    fn derived(&self) -> Vec<Derived> {
        let mut d = self.line.derived();
        d.push(Derived::finite("p_level (form Z)", "Pa", self.p_level));
        d
    }

    /// The steady state at the inputs' values (the scenario's operating
    /// point).
    fn initial_state(&self, u: &Self::Inputs) -> SVector<f64, NX> {
        let b = Self::boundary(u);
        let mut x = SVector::<f64, NX>::zeros();
        if self
            .line
            .steady_state(&b, self.p_level, x.as_mut_slice())
            .is_err()
        {
            // No steady flow (form Y with an extreme pressure difference):
            // start at rest with the mean pressure.
            self.nodes()
                .slice_mut(x.as_mut_slice())
                .fill(0.5 * (b.p1 + b.p2));
        }
        x
    }

    /// H7 chained over the segments (see [`crate::network`]).
    fn rates(&self, u: &Self::Inputs, x: &SVector<f64, NX>) -> SVector<f64, NX> {
        let mut dx = SVector::zeros();
        self.line.eval(x, &Self::boundary(u), &mut dx, None);
        dx
    }

    /// One pass over the segments gives both.
    fn rates_and_jacobian(
        &self,
        u: &Self::Inputs,
        x: &SVector<f64, NX>,
        j: &mut SMatrix<f64, NX, NX>,
    ) -> (SVector<f64, NX>, bool) {
        let mut dx = SVector::zeros();
        self.line.eval(x, &Self::boundary(u), &mut dx, Some(j));
        (dx, true)
    }

    fn outputs(&self, u: &Self::Inputs, x: &SVector<f64, NX>, out: &mut Self::Outputs) {
        Self::read_outputs(&self.ends(x, &Self::boundary(u)), out);
    }

    fn nominal(&self) -> SVector<f64, NX> {
        let mut nominal = SVector::<f64, NX>::repeat(1e-4);
        self.nodes().slice_mut(nominal.as_mut_slice()).fill(1e6);
        nominal
    }

    fn active_states(&self) -> usize {
        self.line.states()
    }
}

#[cfg(test)]
mod tests;
