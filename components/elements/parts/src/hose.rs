//! A hydraulic hose as `n` lumped segments, in the four causal forms.

use crate::check::finite;
use fmu_core::Derived;
use fmu_core::compose::{Dependencies, Output, Part, Partials, Port, StateSpec};
use hose_line::network::{Boundary, Column, Form, Line, NO_PARTIALS};
use hydraulics::hose::{HoseParameters, HoseSegment};

/// Largest number of segments: the resistance correction
/// `kr = kr1 - kr2 (n - 1)` of the model description reaches zero at 15.
pub const MAX_SEGMENTS: usize = hose_line::MAX_SEGMENTS;

/// The causal form of a [`Hose`]: what the part sets at each end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoseForm {
    /// `A` sets the pressure, `B` the flow; segment C - R - L.
    H,
    /// `A` sets the flow, `B` the pressure; segment L - R - C.
    G,
    /// Both ends set the flow; segment L/2 - R/2 - C - R/2 - L/2.
    Y,
    /// Both ends set the pressure; segment C/2 - R/2 - L - R/2 - C/2.
    Z,
}

impl HoseForm {
    fn line_form(self) -> Form {
        match self {
            HoseForm::H => Form::H,
            HoseForm::G => Form::G,
            HoseForm::Y => Form::Y,
            HoseForm::Z => Form::Z,
        }
    }

    /// Whether the part sets the pressure at `A` (else the flow).
    pub fn sets_pressure_at_a(self) -> bool {
        matches!(self, HoseForm::H | HoseForm::Z)
    }

    /// Whether the part sets the pressure at `B` (else the flow).
    pub fn sets_pressure_at_b(self) -> bool {
        matches!(self, HoseForm::G | HoseForm::Z)
    }
}

/// A hydraulic hose of Grossschmidt and Harf (2017): `n` equal lumped
/// segments, each a compliance `C` (oil, entrained air, the radially
/// deforming wall), a resistance `R(Q) = kr (RL + RT |Q|)` and an
/// inertance `L`, all three functions of the segment's mean pressure `p_m`
/// (the mean of its end pressures), with the corrections `kC = kL` and
/// `kr` for `n` segments. A pressure node and a flow branch obey
///
/// ```text
/// kC C(p_m) dp/dt = inflow - outflow
/// kL L(p_m) dQ/dt = p_upstream - R(Q, p_m) Q - p_downstream
/// ```
///
/// chained from end `A` to end `B` so that each causal form keeps the
/// causality of its ends ([`HoseForm`]; the model description of the hose
/// FMUs, `components/circuits/hose-line/MODEL.md`, H1-H7). The laws are
/// those of [`hydraulics::hose::HoseSegment`] and the chain is
/// [`hose_line::network::Line`], the very code of the HoseH, HoseG, HoseY
/// and HoseZ FMUs; the part only maps its ports onto the line's boundary
/// (inlet = `A`, outlet = `B`). Without wall hysteresis, as those FMUs.
///
/// Ports `A` (end 1) and `B` (end 2), hydraulic: an end whose pressure the
/// part sets is a volume port (the node's other members set flows; its
/// net inflow is the flow into the hose there); an end whose flow the
/// part sets needs one pressure-setting member at its node. Through
/// values count positive into the hose: the outflow at `B` is `-B.q`.
///
/// States: the node pressures `p1`, `p2`, ... from `A` to `B` (Pa, nominal
/// 1e6), then the branch flows `q1`, `q2`, ... from `A` to `B` (m3/s,
/// nominal 1e-4): `n` of each for forms H and G, `n` pressures and
/// `n + 1` flows for Y, `n + 1` pressures and `n` flows for Z. The nominal
/// values are those of the hose FMUs.
///
/// Start: every flow at `q0`, the pressures marched along the line from
/// `p_start` with the segments' steady losses (a steady state when the
/// neighbours agree): `p_start` is the pressure at the end whose pressure
/// the part does not set (H: at `B`; G, Y: at `A`), for Z the pressure of
/// its last node (at `B`).
#[derive(Debug, Clone, PartialEq)]
pub struct Hose {
    form: HoseForm,
    line: Line,
    states: Vec<StateSpec>,
    q0: f64,
    p_start: f64,
    /// The pressures it sets at its ends, which are node states (see
    /// `Part::across_states`).
    across_states: Vec<(usize, usize)>,
}

const PRESSURE_NAMES: [&str; MAX_SEGMENTS + 1] = [
    "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9", "p10", "p11", "p12", "p13", "p14", "p15",
];
const FLOW_NAMES: [&str; MAX_SEGMENTS + 1] = [
    "q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8", "q9", "q10", "q11", "q12", "q13", "q14", "q15",
];
/// Nominal values of the hose FMUs' states (`HoseModel::nominal`).
const PRESSURE_NOMINAL: f64 = 1e6;
const FLOW_NOMINAL: f64 = 1e-4;

const A_PRESSURE: Port = Port::hydraulic_volume(
    "A",
    "End 1: the pressure of the hose's first node out, the net flow into the hose there in",
);
const A_FLOW: Port = Port::hydraulic(
    "A",
    "End 1: the pressure there in, the flow into the hose's first branch out",
);
const B_PRESSURE: Port = Port::hydraulic_volume(
    "B",
    "End 2: the pressure of the hose's last node out, the net flow into the hose there in",
);
const B_FLOW: Port = Port::hydraulic(
    "B",
    "End 2: the pressure there in, the flow into the hose (minus its last branch's flow) out",
);
const PORTS_H: [Port; 2] = [A_PRESSURE, B_FLOW];
const PORTS_G: [Port; 2] = [A_FLOW, B_PRESSURE];
const PORTS_Y: [Port; 2] = [A_FLOW, B_FLOW];
const PORTS_Z: [Port; 2] = [A_PRESSURE, B_PRESSURE];

/// Port slots: A's pressure and flow, B's pressure and flow.
const AP: usize = 0;
const AQ: usize = 1;
const BP: usize = 2;
const BQ: usize = 3;

impl Hose {
    /// A hose of causal form `form` with `n` segments (1..=14) of the hose
    /// `params` (checked by [`HoseSegment::new`]), starting at the through
    /// flow `q0` (m3/s, finite) with the pressure `p_start` (Pa, finite)
    /// at the end whose pressure it does not set.
    pub fn new(
        form: HoseForm,
        params: &HoseParameters,
        n: usize,
        q0: f64,
        p_start: f64,
    ) -> Result<Self, String> {
        if !(1..=MAX_SEGMENTS).contains(&n) {
            return Err(format!(
                "number of segments n = {n} must be 1 to {MAX_SEGMENTS}"
            ));
        }
        finite("through flow at the start", "q0", q0, "m3/s")?;
        finite("start pressure", "p_start", p_start, "Pa")?;
        let segment = HoseSegment::new(params, n)?;
        let line = Line::new(form.line_form(), segment, n);
        let mut states: Vec<StateSpec> = PRESSURE_NAMES[..line.nodes()]
            .iter()
            .map(|name| StateSpec::new(name, PRESSURE_NOMINAL))
            .collect();
        states.extend(
            FLOW_NAMES[..line.branches()]
                .iter()
                .map(|name| StateSpec::new(name, FLOW_NOMINAL)),
        );
        let mut hose = Hose {
            form,
            line,
            states,
            q0,
            p_start,
            across_states: Vec::new(),
        };
        if form.sets_pressure_at_a() {
            hose.across_states.push((AP, hose.first_node()));
        }
        if form.sets_pressure_at_b() {
            hose.across_states.push((BP, hose.last_node()));
        }
        Ok(hose)
    }

    /// The causal form.
    pub fn form(&self) -> HoseForm {
        self.form
    }

    /// The lumped line (the hose FMUs' equations).
    pub fn line(&self) -> &Line {
        &self.line
    }

    /// The line's boundary values from the port values: the pressures the
    /// neighbours set, and the flows they deliver (`Q2` is the outflow at
    /// `B`, minus the flow into the hose there).
    fn boundary(&self, ports: &[f64]) -> Boundary {
        let mut b = Boundary::default();
        if self.form.sets_pressure_at_a() {
            b.q1 = ports[AQ];
        } else {
            b.p1 = ports[AP];
        }
        if self.form.sets_pressure_at_b() {
            b.q2 = -ports[BQ];
        } else {
            b.p2 = ports[BP];
        }
        b
    }

    /// The index of the first (last) node's pressure and of the first
    /// (last) branch's flow in the state vector.
    fn first_node(&self) -> usize {
        self.line.node_block().index(0)
    }
    fn last_node(&self) -> usize {
        self.line.node_block().index(self.line.nodes() - 1)
    }
    fn first_branch(&self) -> usize {
        self.line.branch_block().index(0)
    }
    fn last_branch(&self) -> usize {
        self.line.branch_block().index(self.line.branches() - 1)
    }
}

impl Part for Hose {
    fn ports(&self) -> &[Port] {
        match self.form {
            HoseForm::H => &PORTS_H,
            HoseForm::G => &PORTS_G,
            HoseForm::Y => &PORTS_Y,
            HoseForm::Z => &PORTS_Z,
        }
    }

    fn states(&self) -> &[StateSpec] {
        &self.states
    }

    fn derived(&self) -> Vec<Derived> {
        self.line.derived()
    }

    fn initial_state(&self, _ports: &[f64], x: &mut [f64]) {
        self.line.steady_state_for_flow(self.q0, self.p_start, x);
    }

    /// An end's pressure on its end node, an end's flow on its end branch;
    /// the rates on the states and the boundary values the form reads.
    fn dependencies(&self, of: Output) -> Dependencies {
        match of {
            Output::Across(AP) => Dependencies {
                states: vec![self.first_node()],
                slots: Vec::new(),
            },
            Output::Across(_) => Dependencies {
                states: vec![self.last_node()],
                slots: Vec::new(),
            },
            Output::Through(AQ) => Dependencies {
                states: vec![self.first_branch()],
                slots: Vec::new(),
            },
            Output::Through(_) => Dependencies {
                states: vec![self.last_branch()],
                slots: Vec::new(),
            },
            Output::Rate(_) => Dependencies {
                states: Vec::new(),
                slots: vec![
                    if self.form.sets_pressure_at_a() {
                        AQ
                    } else {
                        AP
                    },
                    if self.form.sets_pressure_at_b() {
                        BQ
                    } else {
                        BP
                    },
                ],
            },
        }
    }

    fn across_states(&self) -> Option<&[(usize, usize)]> {
        Some(&self.across_states)
    }

    #[inline]
    fn across(&self, x: &[f64], ports: &mut [f64], mut d: Option<&mut Partials<'_>>) {
        if self.form.sets_pressure_at_a() {
            let k = self.first_node();
            ports[AP] = x[k];
            if let Some(d) = d.as_mut() {
                *d.state(AP, k) = 1.0;
            }
        }
        if self.form.sets_pressure_at_b() {
            let k = self.last_node();
            ports[BP] = x[k];
            if let Some(d) = d.as_mut() {
                *d.state(BP, k) = 1.0;
            }
        }
    }

    #[inline]
    fn through(&self, x: &[f64], ports: &mut [f64], mut d: Option<&mut Partials<'_>>) {
        if !self.form.sets_pressure_at_a() {
            let k = self.first_branch();
            ports[AQ] = x[k];
            if let Some(d) = d.as_mut() {
                *d.state(AQ, k) = 1.0;
            }
        }
        if !self.form.sets_pressure_at_b() {
            let k = self.last_branch();
            ports[BQ] = -x[k];
            if let Some(d) = d.as_mut() {
                *d.state(BQ, k) = -1.0;
            }
        }
    }

    #[inline]
    fn rates(&self, x: &[f64], ports: &[f64], dx: &mut [f64], d: Option<&mut Partials<'_>>) {
        let b = self.boundary(ports);
        match d {
            None => self.line.evaluate(x, &b, dx, NO_PARTIALS),
            Some(d) => self.line.evaluate(
                x,
                &b,
                dx,
                Some(|row: usize, column: Column, value: f64| match column {
                    Column::State(c) => *d.state(row, c) += value,
                    Column::P1 => *d.slot(row, AP) += value,
                    Column::P2 => *d.slot(row, BP) += value,
                    Column::Q1 => *d.slot(row, AQ) += value,
                    // Q2 = -B.q.
                    Column::Q2 => *d.slot(row, BQ) -= value,
                }),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hose(form: HoseForm, n: usize) -> Result<Hose, String> {
        Hose::new(form, &HoseParameters::reference(), n, 5e-4, 1e7)
    }

    #[test]
    fn constructor_checks_its_parameters() {
        assert_eq!(
            hose(HoseForm::H, 0).unwrap_err(),
            "number of segments n = 0 must be 1 to 14"
        );
        assert!(hose(HoseForm::H, 15).is_err());
        assert!(
            Hose::new(HoseForm::G, &HoseParameters::reference(), 3, f64::NAN, 0.0)
                .unwrap_err()
                .contains("q0")
        );
        let bad = HoseParameters {
            d: -1.0,
            ..HoseParameters::reference()
        };
        assert!(Hose::new(HoseForm::Y, &bad, 3, 0.0, 0.0).is_err());
    }

    #[test]
    fn states_are_named_and_counted_by_form() {
        let names = |form, n| -> Vec<&'static str> {
            hose(form, n)
                .unwrap()
                .states()
                .iter()
                .map(|s| s.name)
                .collect()
        };
        assert_eq!(names(HoseForm::H, 2), ["p1", "p2", "q1", "q2"]);
        assert_eq!(names(HoseForm::G, 1), ["p1", "q1"]);
        assert_eq!(names(HoseForm::Y, 2), ["p1", "p2", "q1", "q2", "q3"]);
        assert_eq!(names(HoseForm::Z, 2), ["p1", "p2", "p3", "q1", "q2"]);
        assert_eq!(names(HoseForm::Z, 14).len(), 29);
        let h = hose(HoseForm::H, 7).unwrap();
        assert!(h.states()[..7].iter().all(|s| s.nominal == 1e6));
        assert!(h.states()[7..].iter().all(|s| s.nominal == 1e-4));
    }
}
