//! The lumped line: compliance nodes and inertance-resistance branches
//! between pressure points (H7, chained for n segments).

use arrayvec::ArrayVec;
use fmu_core::nalgebra::{SMatrix, SVector};
use fmu_core::{Derived, DynBlock};
use hydraulics::hose::{HoseSegment, SegmentState};

/// Largest number of nodes or branches of a line (n + 1 for n <= 14).
pub const MAX_ELEMENTS: usize = 15;

/// A pressure point: a compliance node (a state of the nodes block) or an
/// end pressure given as an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Point {
    /// Node `k` (state `k`).
    Node(usize),
    /// The inlet pressure `p1` (an input).
    Inlet,
    /// The outlet pressure `p2` (an input).
    Outlet,
}

/// Up to two segment shares of an element (a whole segment's C or L, or
/// halves of two neighbours').
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Shares {
    seg: [usize; 2],
    frac: [f64; 2],
    count: usize,
}

impl Shares {
    fn one(seg: usize, frac: f64) -> Self {
        Shares {
            seg: [seg, 0],
            frac: [frac, 0.0],
            count: 1,
        }
    }

    fn two(a: usize, b: usize) -> Self {
        Shares {
            seg: [a, b],
            frac: [0.5, 0.5],
            count: 2,
        }
    }

    fn iter(&self) -> impl Iterator<Item = (usize, f64)> + '_ {
        (0..self.count).map(|i| (self.seg[i], self.frac[i]))
    }
}

/// A compliance node: its capacity is `kC * sum(frac * C(segment))`; the
/// boundary flow `Q1` (+1) or `Q2` (-1) may enter it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Node {
    shares: Shares,
    /// +1: Q1 flows in; -1: Q2 flows out; 0: none.
    inlet_flow: i8,
    outlet_flow: i8,
}

/// An inertance-resistance branch carrying flow from `from` to `to`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Branch {
    from: Point,
    to: Point,
    shares: Shares,
}

/// What a partial derivative of a line's rates is taken with respect to
/// ([`Line::evaluate`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    /// The state of this index (nodes block, then branches block).
    State(usize),
    /// The inlet pressure p1 of the boundary.
    P1,
    /// The outlet pressure p2 of the boundary.
    P2,
    /// The inlet flow Q1 of the boundary.
    Q1,
    /// The outlet flow Q2 of the boundary.
    Q2,
}

/// [`Line::evaluate`] without partial derivatives.
pub const NO_PARTIALS: Option<fn(usize, Column, f64)> = None;

/// Boundary values of a line (the FMU's inputs), SI units.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Boundary {
    /// Inlet pressure p1 (forms G, Y), Pa.
    pub p1: f64,
    /// Outlet pressure p2 (forms H, Y), Pa.
    pub p2: f64,
    /// Inlet flow Q1 (forms H, Z), m3/s.
    pub q1: f64,
    /// Outlet flow Q2 (forms G, Z), m3/s.
    pub q2: f64,
}

/// The weighted points of a segment whose p_m is the mean of two end
/// pressures.
fn ends(a: Point, b: Point) -> [(Point, f64); 3] {
    [(a, 0.5), (b, 0.5), (Point::Inlet, 0.0)]
}

/// The four causal forms of the model description.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// Inputs Q1, p2; outputs p1, Q2; segment C - R - L.
    H,
    /// Inputs p1, Q2; outputs Q1, p2; segment L - R - C.
    G,
    /// Inputs p1, p2; outputs Q1, Q2; segment L/2 - R/2 - C - R/2 - L/2.
    Y,
    /// Inputs Q1, Q2; outputs p1, p2; segment C/2 - R/2 - L - R/2 - C/2.
    Z,
}

/// The lumped line of one causal form with `n` segments.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// The causal form.
    pub form: Form,
    /// The segment (all segments are equal), with its corrections.
    pub segment: HoseSegment,
    /// Number of segments.
    pub n: usize,
    nodes: [Node; MAX_ELEMENTS],
    n_nodes: usize,
    branches: [Branch; MAX_ELEMENTS],
    n_branches: usize,
    /// The pressure points (with weights summing to 1, no point twice)
    /// whose weighted sum is each segment's mean pressure p_m.
    seg_points: [[(Point, f64); 3]; MAX_ELEMENTS],
}

impl Line {
    /// The line of `form` with `n` segments.
    pub fn new(form: Form, segment: HoseSegment, n: usize) -> Self {
        match form {
            Form::H => Self::form_h(segment, n),
            Form::G => Self::form_g(segment, n),
            Form::Y => Self::form_y(segment, n),
            Form::Z => Self::form_z(segment, n),
        }
    }

    fn empty(form: Form, segment: HoseSegment, n: usize) -> Self {
        let branch = Branch {
            from: Point::Inlet,
            to: Point::Outlet,
            shares: Shares::default(),
        };
        Line {
            form,
            segment,
            n,
            nodes: [Node::default(); MAX_ELEMENTS],
            n_nodes: 0,
            branches: [branch; MAX_ELEMENTS],
            n_branches: 0,
            seg_points: [[(Point::Inlet, 0.0); 3]; MAX_ELEMENTS],
        }
    }

    /// Form H: node i (C of segment i) then branch i (R, L of segment i) to
    /// node i + 1, the last to the outlet pressure p2; Q1 enters node 0.
    fn form_h(segment: HoseSegment, n: usize) -> Self {
        let mut l = Self::empty(Form::H, segment, n);
        for i in 0..n {
            l.nodes[i].shares = Shares::one(i, 1.0);
            let to = if i + 1 < n {
                Point::Node(i + 1)
            } else {
                Point::Outlet
            };
            l.branches[i] = Branch {
                from: Point::Node(i),
                to,
                shares: Shares::one(i, 1.0),
            };
            l.seg_points[i] = ends(Point::Node(i), to);
        }
        l.nodes[0].inlet_flow = 1;
        l.n_nodes = n;
        l.n_branches = n;
        l
    }

    /// Form G: branch i from the inlet pressure p1 (i = 0) or node i - 1 to
    /// node i (C of segment i at its downstream end); Q2 leaves node n - 1.
    fn form_g(segment: HoseSegment, n: usize) -> Self {
        let mut l = Self::empty(Form::G, segment, n);
        for i in 0..n {
            l.nodes[i].shares = Shares::one(i, 1.0);
            let from = if i == 0 {
                Point::Inlet
            } else {
                Point::Node(i - 1)
            };
            l.branches[i] = Branch {
                from,
                to: Point::Node(i),
                shares: Shares::one(i, 1.0),
            };
            l.seg_points[i] = ends(from, Point::Node(i));
        }
        l.nodes[n - 1].outlet_flow = -1;
        l.n_nodes = n;
        l.n_branches = n;
        l
    }

    /// Form Y: node i is the C of segment i; n + 1 branches: L/2, R/2 of
    /// segment 0 from p1, the merged halves of segments i - 1 and i between
    /// nodes, L/2, R/2 of the last segment to p2.
    fn form_y(segment: HoseSegment, n: usize) -> Self {
        let mut l = Self::empty(Form::Y, segment, n);
        for i in 0..n {
            l.nodes[i].shares = Shares::one(i, 1.0);
        }
        l.branches[0] = Branch {
            from: Point::Inlet,
            to: Point::Node(0),
            shares: Shares::one(0, 0.5),
        };
        for i in 1..n {
            l.branches[i] = Branch {
                from: Point::Node(i - 1),
                to: Point::Node(i),
                shares: Shares::two(i - 1, i),
            };
        }
        l.branches[n] = Branch {
            from: Point::Node(n - 1),
            to: Point::Outlet,
            shares: Shares::one(n - 1, 0.5),
        };
        // A segment's end pressures: the inlet/outlet pressure, or at an
        // internal junction (no pressure of its own) the mean of the two
        // node pressures beside it; p_m is the mean of the two ends.
        for i in 0..n {
            let mut points = [(Point::Inlet, 0.0); 3];
            let mut used = 0;
            let mut add = |p: Point, w: f64| {
                if let Some(e) = points[..used].iter_mut().find(|e| e.0 == p) {
                    e.1 += w;
                } else {
                    points[used] = (p, w);
                    used += 1;
                }
            };
            if i == 0 {
                add(Point::Inlet, 0.5);
            } else {
                add(Point::Node(i - 1), 0.25);
                add(Point::Node(i), 0.25);
            }
            if i + 1 < n {
                add(Point::Node(i), 0.25);
                add(Point::Node(i + 1), 0.25);
            } else {
                add(Point::Outlet, 0.5);
            }
            l.seg_points[i] = points;
        }
        l.n_nodes = n;
        l.n_branches = n + 1;
        l
    }

    /// Form Z: n + 1 nodes (C/2 of segment 0, merged halves between
    /// segments, C/2 of the last segment), branch i (R, L of segment i)
    /// between nodes i and i + 1; Q1 enters node 0, Q2 leaves node n.
    fn form_z(segment: HoseSegment, n: usize) -> Self {
        let mut l = Self::empty(Form::Z, segment, n);
        l.nodes[0].shares = Shares::one(0, 0.5);
        for i in 1..n {
            l.nodes[i].shares = Shares::two(i - 1, i);
        }
        l.nodes[n].shares = Shares::one(n - 1, 0.5);
        l.nodes[0].inlet_flow = 1;
        l.nodes[n].outlet_flow = -1;
        for i in 0..n {
            l.branches[i] = Branch {
                from: Point::Node(i),
                to: Point::Node(i + 1),
                shares: Shares::one(i, 1.0),
            };
            l.seg_points[i] = ends(Point::Node(i), Point::Node(i + 1));
        }
        l.n_nodes = n + 1;
        l.n_branches = n;
        l
    }

    /// The segment's coefficients at the wall's reference pressure (H1-H6),
    /// for the checks of a model or part built on the line.
    pub fn derived(&self) -> Vec<Derived> {
        let seg = &self.segment;
        let at = seg.state(seg.wall.p_ref);
        vec![
            Derived::positive(
                "k_ref, the wall's reference stiffness (H1)",
                "N/m",
                seg.wall.reference_stiffness(),
            ),
            Derived::positive("rho at p_ref (H3)", "kg/m3", at.fluid.rho),
            Derived::positive("nu at p_ref (H3)", "m2/s", at.fluid.nu),
            Derived::positive(
                "kC C of a segment at p_ref (H4, H6)",
                "m3/Pa",
                at.corrected_compliance(),
            ),
            Derived::finite("dC/dp_m at p_ref (H4)", "m3/Pa2", at.compliance_dp()),
            Derived::positive(
                "kL L of a segment at p_ref (H5, H6)",
                "kg/m4",
                at.corrected_inertance(),
            ),
            Derived::finite("RL of a segment at p_ref (H5)", "Pa s/m3", at.flow.laminar),
            Derived::finite(
                "RT of a segment at p_ref (H5)",
                "Pa s2/m6",
                at.flow.turbulent,
            ),
        ]
    }

    /// Number of states in use: node pressures first, then branch flows.
    pub fn states(&self) -> usize {
        self.n_nodes + self.n_branches
    }

    /// The block of node pressures in the state vector (Pa).
    pub fn node_block(&self) -> DynBlock {
        DynBlock::new(0, self.n_nodes)
    }

    /// The block of branch flows, after the nodes (m3/s).
    pub fn branch_block(&self) -> DynBlock {
        self.node_block().then(self.n_branches)
    }

    /// Number of nodes (pressure states).
    pub fn nodes(&self) -> usize {
        self.n_nodes
    }

    /// Number of branches (flow states, after the nodes).
    pub fn branches(&self) -> usize {
        self.n_branches
    }

    fn pressure(&self, x: &[f64], b: &Boundary, p: Point) -> f64 {
        match p {
            Point::Node(k) => x[self.node_block().index(k)],
            Point::Inlet => b.p1,
            Point::Outlet => b.p2,
        }
    }

    /// Mean pressure of segment `s` (the mean of its end pressures).
    pub fn mean_pressure(&self, x: &[f64], b: &Boundary, s: usize) -> f64 {
        self.seg_points[s]
            .iter()
            .filter(|(_, w)| *w != 0.0)
            .map(|&(p, w)| w * self.pressure(x, b, p))
            .sum()
    }

    fn segment_states(&self, x: &[f64], b: &Boundary) -> [Option<SegmentState>; MAX_ELEMENTS] {
        let mut out = [None; MAX_ELEMENTS];
        for (s, o) in out.iter_mut().enumerate().take(self.n) {
            *o = Some(self.segment.state(self.mean_pressure(x, b, s)));
        }
        out
    }

    /// Rates of the states `x` (H7 for the form's chain) into `rates` and,
    /// if `jac` is given, the Jacobian d(rate)/d(state) into it (added to
    /// what is there: pass it filled with zeros). Node rates fill the node
    /// block, flow rates the branch block; states beyond them are left
    /// alone.
    pub fn eval<const N: usize>(
        &self,
        x: &SVector<f64, N>,
        b: &Boundary,
        rates: &mut SVector<f64, N>,
        jac: Option<&mut SMatrix<f64, N, N>>,
    ) {
        match jac {
            Some(j) => self.evaluate(
                x.as_slice(),
                b,
                rates.as_mut_slice(),
                Some(|row: usize, column: Column, value: f64| {
                    if let Column::State(c) = column {
                        j[(row, c)] += value;
                    }
                }),
            ),
            None => self.evaluate(x.as_slice(), b, rates.as_mut_slice(), NO_PARTIALS),
        }
    }

    /// Rates of the states `x` (H7 for the form's chain) into `rates` (node
    /// rates in the node block, flow rates in the branch block; the rest
    /// left alone) and, if `partial` is given, every non-zero partial
    /// derivative of a rate with respect to a state or a boundary value,
    /// as `partial(row, column, value)`; a `(row, column)` may come more
    /// than once, its terms are to be added. The boundary values a form
    /// does not read have no partials.
    pub fn evaluate<F: FnMut(usize, Column, f64)>(
        &self,
        x: &[f64],
        b: &Boundary,
        rates: &mut [f64],
        mut partial: Option<F>,
    ) {
        let (nodes, branches) = (self.node_block(), self.branch_block());
        // The segment states of this evaluation, on the stack and only as
        // many as there are segments (the integrators call this several
        // times per substep: nothing written for the unused capacity).
        let mut seg: ArrayVec<SegmentState, MAX_ELEMENTS> = ArrayVec::new();
        for s in 0..self.n {
            seg.push(self.segment.state(self.mean_pressure(x, b, s)));
        }
        let st = |s: usize| -> &SegmentState { &seg[s] };
        // The column of a pressure point.
        let column = |p: Point| match p {
            Point::Node(k) => Column::State(nodes.index(k)),
            Point::Inlet => Column::P1,
            Point::Outlet => Column::P2,
        };
        // The pressure points segment s's p_m depends on, with d(p_m)/d(point).
        let pm_points = |s: usize| {
            self.seg_points[s]
                .iter()
                .filter(|(_, w)| *w != 0.0)
                .map(move |&(p, _)| {
                    let d: f64 = self.seg_points[s]
                        .iter()
                        .filter(|(q, _)| *q == p)
                        .map(|(_, w)| w)
                        .sum();
                    (column(p), d)
                })
        };
        // Nodes: kC * sum(frac C) dP/dt = net inflow.
        for k in 0..self.n_nodes {
            let node = &self.nodes[k];
            let row = nodes.index(k);
            let mut inflow = f64::from(node.inlet_flow) * b.q1 + f64::from(node.outlet_flow) * b.q2;
            for jb in 0..self.n_branches {
                let br = &self.branches[jb];
                if br.to == Point::Node(k) {
                    inflow += x[branches.index(jb)];
                }
                if br.from == Point::Node(k) {
                    inflow -= x[branches.index(jb)];
                }
            }
            let cap: f64 = node
                .shares
                .iter()
                .map(|(s, f)| f * st(s).corrected_compliance())
                .sum();
            rates[row] = inflow / cap;
            if let Some(j) = partial.as_mut() {
                for jb in 0..self.n_branches {
                    let br = &self.branches[jb];
                    if br.to == Point::Node(k) {
                        j(row, Column::State(branches.index(jb)), 1.0 / cap);
                    }
                    if br.from == Point::Node(k) {
                        j(row, Column::State(branches.index(jb)), -1.0 / cap);
                    }
                }
                if node.inlet_flow != 0 {
                    j(row, Column::Q1, f64::from(node.inlet_flow) / cap);
                }
                if node.outlet_flow != 0 {
                    j(row, Column::Q2, f64::from(node.outlet_flow) / cap);
                }
                // Capacity through p_m: -inflow/cap^2 * dcap/dP.
                for (s, f) in node.shares.iter() {
                    let dcap = f * st(s).k_c * st(s).compliance_dp();
                    for (col, d) in pm_points(s) {
                        j(row, col, -inflow / (cap * cap) * dcap * d);
                    }
                }
            }
        }
        // Branches: kL * sum(frac L) dq/dt = p_from - p_to - sum(frac loss(q)).
        for jb in 0..self.n_branches {
            let br = &self.branches[jb];
            let row = branches.index(jb);
            let q = x[row];
            let drive = self.pressure(x, b, br.from) - self.pressure(x, b, br.to);
            let loss: f64 = br.shares.iter().map(|(s, f)| f * st(s).loss(q)).sum();
            let ind: f64 = br
                .shares
                .iter()
                .map(|(s, f)| f * st(s).corrected_inertance())
                .sum();
            let num = drive - loss;
            rates[row] = num / ind;
            if let Some(j) = partial.as_mut() {
                let dq: f64 = br.shares.iter().map(|(s, f)| f * st(s).loss_dq(q)).sum();
                j(row, Column::State(row), -dq / ind);
                j(row, column(br.from), 1.0 / ind);
                j(row, column(br.to), -1.0 / ind);
                for (s, f) in br.shares.iter() {
                    let dloss = f * st(s).loss_dp(q);
                    let dind = f * st(s).k_l * st(s).inertance_dp();
                    for (col, d) in pm_points(s) {
                        j(row, col, (-dloss * d) / ind - num / (ind * ind) * dind * d);
                    }
                }
            }
        }
    }

    /// The steady state for the boundary values: all flows equal the through
    /// flow, pressures marched along the line from the end whose pressure
    /// is known (forms H, G, Y), or from `p_level` at the outlet (form Z,
    /// whose pressure level is free). Form Y finds the through flow that
    /// the pressure difference p1 - p2 drives.
    pub fn steady_state(&self, b: &Boundary, p_level: f64, x: &mut [f64]) -> Result<(), String> {
        let through = match self.form {
            Form::H | Form::Z => b.q1,
            Form::G => b.q2,
            Form::Y => self.y_through_flow(b)?,
        };
        self.fill(b, p_level, through, x);
        Ok(())
    }

    /// The steady state with the through flow `q` (all flow states `q`)
    /// and the pressure `p_known` at the end whose pressure the line does
    /// not hold as a state: the outlet pressure p2 (form H), the inlet
    /// pressure p1 (forms G and Y), or the pressure of the last node at
    /// the outlet (form Z, whose pressure level is free). The pressures
    /// are marched along the line with the segments' steady losses, as
    /// [`Line::steady_state`] does; returns the boundary values of that
    /// steady state (form Y: its outlet pressure p2, found by marching
    /// again until it no longer changes, since the last segment's p_m
    /// depends on it).
    pub fn steady_state_for_flow(&self, q: f64, p_known: f64, x: &mut [f64]) -> Boundary {
        match self.form {
            Form::H => {
                let b = Boundary {
                    q1: q,
                    p2: p_known,
                    ..Default::default()
                };
                self.fill(&b, 0.0, q, x);
                b
            }
            Form::G => {
                let b = Boundary {
                    p1: p_known,
                    q2: q,
                    ..Default::default()
                };
                self.fill(&b, 0.0, q, x);
                b
            }
            Form::Z => {
                let b = Boundary {
                    q1: q,
                    q2: q,
                    ..Default::default()
                };
                self.fill(&b, p_known, q, x);
                b
            }
            Form::Y => {
                let mut b = Boundary {
                    p1: p_known,
                    p2: p_known,
                    ..Default::default()
                };
                for _ in 0..50 {
                    self.fill(&b, p_known, q, x);
                    let last = self.n_branches - 1;
                    let seg = self.segment_states(x, &b);
                    let drop: f64 = self.branches[last]
                        .shares
                        .iter()
                        .map(|(s, f)| f * seg[s].as_ref().expect("segment").loss(q))
                        .sum();
                    let p2 = x[self.node_block().index(self.n_nodes - 1)] - drop;
                    let change = (p2 - b.p2).abs();
                    b.p2 = p2;
                    if change <= 1e-12 * p_known.abs().max(1.0) {
                        break;
                    }
                }
                self.fill(&b, p_known, q, x);
                b
            }
        }
    }

    /// Pressures for a through flow `q`: marched from the known pressure.
    fn fill(&self, b: &Boundary, p_level: f64, q: f64, x: &mut [f64]) {
        self.branch_block().slice_mut(x).fill(q);
        // Start from a uniform guess and iterate: each branch's drop
        // depends on p_m, which depends on the pressures being computed.
        let start = match (self.branches[0].from, self.branches[self.n_branches - 1].to) {
            (Point::Inlet, _) => b.p1,
            (_, Point::Outlet) => b.p2,
            _ => p_level,
        };
        self.node_block().slice_mut(x).fill(start);
        for _ in 0..50 {
            let seg = self.segment_states(x, b);
            let drop = |j: usize| -> f64 {
                self.branches[j]
                    .shares
                    .iter()
                    .map(|(s, f)| f * seg[s].as_ref().expect("segment").loss(q))
                    .sum()
            };
            let mut old = [0.0; MAX_ELEMENTS];
            old[..self.n_nodes].copy_from_slice(self.node_block().slice(x));
            if let Point::Inlet = self.branches[0].from {
                // March downstream from p1 (G, Y).
                let mut p = b.p1;
                for j in 0..self.n_branches {
                    p -= drop(j);
                    if let Point::Node(k) = self.branches[j].to {
                        x[self.node_block().index(k)] = p;
                    }
                }
            } else {
                // March upstream from p2 (H) or the level at the last node (Z).
                let mut p = match self.branches[self.n_branches - 1].to {
                    Point::Outlet => b.p2,
                    _ => {
                        x[self.node_block().index(self.n_nodes - 1)] = p_level;
                        p_level
                    }
                };
                for j in (0..self.n_branches).rev() {
                    p += drop(j);
                    if let Point::Node(k) = self.branches[j].from {
                        x[self.node_block().index(k)] = p;
                    }
                }
            }
            let change = old
                .iter()
                .zip(self.node_block().slice(x))
                .map(|(a, c)| (a - c).abs())
                .fold(0.0, f64::max);
            if change <= 1e-9 * b.p1.abs().max(b.p2.abs()).max(p_level.abs()).max(1.0) {
                break;
            }
        }
    }

    /// Form Y: the through flow q with total drop p1 - p2 (bisection on
    /// the monotone drop).
    fn y_through_flow(&self, b: &Boundary) -> Result<f64, String> {
        let target = b.p1 - b.p2;
        let mut scratch = [0.0; 2 * MAX_ELEMENTS];
        let mut total_drop = |q: f64| {
            self.fill(b, b.p2, q, &mut scratch);
            let seg = self.segment_states(&scratch, b);
            (0..self.n_branches)
                .map(|j| {
                    self.branches[j]
                        .shares
                        .iter()
                        .map(|(s, f)| f * seg[s].as_ref().expect("segment").loss(q))
                        .sum::<f64>()
                })
                .sum::<f64>()
        };
        // Bracket the flow by doubling from 0.1 L/s in the direction of the
        // pressure difference (huge trial flows would march the pressures
        // far below zero, where the fluid law does not hold).
        let sign = if target >= 0.0 { 1.0 } else { -1.0 };
        let (mut lo, mut hi) = (0.0, sign * 1e-4);
        while sign * total_drop(hi) < sign * target {
            lo = hi;
            hi *= 2.0;
            if hi.abs() > 10.0 {
                return Err(format!("no steady flow for p1 - p2 = {target} Pa"));
            }
        }
        if sign < 0.0 {
            std::mem::swap(&mut lo, &mut hi);
        }
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if total_drop(mid) < target {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Ok(0.5 * (lo + hi))
    }
}
