//! 4/3 proportional directional valve (V4 of the valve drive; Strashnov et al.'s (2023)
//! edge overlaps as an option).
//!
//! Ports: supply P (pressure `pv`), tank T (`pt`), chamber ports A (`p1`) and
//! B (`p2`). Flows: `q_a` into chamber A, `q_b` out of chamber B, `q_p` out
//! of the supply port (the model description's Q1, Q2, Q3).

use crate::orifice::Orifice;

/// How the spool signal opens the four metering edges.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Opening {
    /// Symmetric deadband `Ud` (V), V4: opening `s = Us - Ud` above
    /// `Ud`, `Us + Ud` below `-Ud`, zero between. Edges P-A and B-T open for
    /// `s > 0`, P-B and A-T for `s < 0`.
    Deadband {
        /// Deadband half-width, V.
        ud: f64,
    },
    /// Strashnov et al.'s (2023) overlaps on the normalised spool position `x = Us / u_nom`:
    /// positive overlap `c1` on the supply edges (P-A opens as `x - c1`, P-B
    /// as `-x - c1`), negative overlap `c2` on the tank edges (A-T opens as
    /// `c2 - x`, B-T as `x + c2`), so near the centre both chambers drain to
    /// tank. Strashnov et al. (2023) prints P-B as `-x + c1`, which jumps by `2 c1` where
    /// it opens; the continuous mirror image of P-A is used instead.
    Overlap {
        /// Spool signal at full stroke, V.
        u_nom: f64,
        /// Positive overlap of the supply edges (normalised, 0..1).
        c1: f64,
        /// Negative overlap of the tank edges (normalised, 0..1).
        c2: f64,
    },
}

/// Flows through the valve (m3/s) and their partial derivatives.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ValveFlows {
    /// Flow into chamber A (Q1 of V4).
    pub q_a: f64,
    /// Flow out of chamber B (Q2 of V4).
    pub q_b: f64,
    /// Flow out of the supply port P (Q3 of V4).
    pub q_p: f64,
    /// d(q_a, q_b, q_p)/d(us, pv, p1, p2): rows q_a, q_b, q_p.
    pub partials: [[f64; 4]; 3],
}

/// A 4/3 proportional valve with flow constant `cv` (m3/(s V sqrt(Pa))) and
/// the regularised orifice law of the orifice chain (E2) per edge.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DirectionalValve {
    /// Flow constant per volt of opening, m3/(s V sqrt(Pa)).
    pub cv: f64,
    /// Opening characteristic.
    pub opening: Opening,
    /// Transition pressure of the orifice law, Pa.
    pub p_tr: f64,
}

/// Opening of one edge and its slope d(opening)/d(us): `max(0, sign*us - offset)`.
fn edge(us: f64, sign: f64, offset: f64) -> (f64, f64) {
    let o = sign * us - offset;
    if o > 0.0 { (o, sign) } else { (0.0, 0.0) }
}

impl DirectionalValve {
    fn law(&self) -> Orifice {
        Orifice {
            k: 1.0,
            p_tr: self.p_tr,
        }
    }

    /// The openings (V) of the four edges P-A, P-B, A-T, B-T and their
    /// slopes with respect to the spool signal.
    pub fn edges(&self, us: f64) -> [(f64, f64); 4] {
        match self.opening {
            Opening::Deadband { ud } => [
                edge(us, 1.0, ud),
                edge(us, -1.0, ud),
                edge(us, -1.0, ud),
                edge(us, 1.0, ud),
            ],
            Opening::Overlap { u_nom, c1, c2 } => {
                let s = |(o, d): (f64, f64)| (o * u_nom, d);
                let x = us / u_nom;
                [
                    s(edge(x, 1.0, c1)),
                    s(edge(x, -1.0, c1)),
                    s(edge(x, -1.0, -c2)),
                    s(edge(x, 1.0, -c2)),
                ]
            }
        }
    }

    /// The switching functions of the four edges P-A, P-B, A-T, B-T at
    /// spool signal `us` (V): each edge's opening before it is cut at zero
    /// (`sign * us - offset`, in V), changing sign where the edge opens or
    /// closes.
    pub fn edge_switching(&self, us: f64) -> [f64; 4] {
        match self.opening {
            Opening::Deadband { ud } => [us - ud, -us - ud, -us - ud, us - ud],
            Opening::Overlap { u_nom, c1, c2 } => {
                let x = us / u_nom;
                [
                    (x - c1) * u_nom,
                    (-x - c1) * u_nom,
                    (-x + c2) * u_nom,
                    (x + c2) * u_nom,
                ]
            }
        }
    }

    /// Flows for spool signal `us` (V) and pressures (Pa) `pv` (supply
    /// port), `p1` (A), `p2` (B), `pt` (tank).
    #[inline]
    pub fn flows(&self, us: f64, pv: f64, p1: f64, p2: f64, pt: f64) -> ValveFlows {
        let f = self.law();
        let cv = self.cv;
        // Edge flow (positive in the edge's direction), its slope with
        // respect to the edge's pressure drop and with respect to `us`
        // (cv * d(opening)/d(us) * f(dp)); a closed edge contributes nothing
        // and costs no square root.
        let edge_flow = |(opening, d_opening): (f64, f64), dp: f64| {
            if opening == 0.0 && d_opening == 0.0 {
                return (0.0, 0.0, 0.0);
            }
            let (q, s) = f.flow_and_slope(dp);
            (cv * opening * q, cv * opening * s, cv * d_opening * q)
        };
        let [pa, pb, at, bt] = self.edges(us);
        let (q_pa, s_pa, du_pa) = edge_flow(pa, pv - p1);
        let (q_pb, s_pb, du_pb) = edge_flow(pb, pv - p2);
        let (q_at, s_at, du_at) = edge_flow(at, p1 - pt);
        let (q_bt, s_bt, du_bt) = edge_flow(bt, p2 - pt);
        ValveFlows {
            q_a: q_pa - q_at,
            q_b: q_bt - q_pb,
            q_p: q_pa + q_pb,
            partials: [
                // q_a = q_pa - q_at
                [du_pa - du_at, s_pa, -s_pa - s_at, 0.0],
                // q_b = q_bt - q_pb
                [du_bt - du_pb, -s_pb, 0.0, s_bt + s_pb],
                // q_p = q_pa + q_pb
                [du_pa + du_pb, s_pa + s_pb, -s_pa, -s_pb],
            ],
        }
    }

    /// The flows of [`flows`](Self::flows) alone, `(q_a, q_b, q_p)`, the
    /// same values without the partial derivatives (no slope, so no
    /// division per open edge): what an evaluation of the rates alone needs.
    #[inline]
    pub fn flow_values(&self, us: f64, pv: f64, p1: f64, p2: f64, pt: f64) -> (f64, f64, f64) {
        let f = self.law();
        let cv = self.cv;
        let edge_flow = |(opening, d_opening): (f64, f64), dp: f64| {
            if opening == 0.0 && d_opening == 0.0 {
                return 0.0;
            }
            cv * opening * f.flow(dp)
        };
        let [pa, pb, at, bt] = self.edges(us);
        let (q_pa, q_pb) = (edge_flow(pa, pv - p1), edge_flow(pb, pv - p2));
        let (q_at, q_bt) = (edge_flow(at, p1 - pt), edge_flow(bt, p2 - pt));
        (q_pa - q_at, q_bt - q_pb, q_pa + q_pb)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example_valve() -> DirectionalValve {
        DirectionalValve {
            cv: 2.315e-9,
            opening: Opening::Deadband { ud: 2.0 },
            p_tr: 1e5,
        }
    }

    /// The flows alone are the flows of `flows`, bit for bit, on both
    /// sides of every edge's opening and of the laminar band.
    #[test]
    fn flow_values_are_the_flows_without_their_partials() {
        let overlap = DirectionalValve {
            cv: 4.79e-4,
            opening: Opening::Overlap {
                u_nom: 8.33e-3,
                c1: 0.05,
                c2: 0.2,
            },
            p_tr: 1e4,
        };
        for v in [example_valve(), overlap] {
            for us in [-10.0, -2.5, -2.0, -1e-3, 0.0, 3e-4, 1e-3, 2.0, 2.1, 9.9] {
                for (pv, p1, p2) in [
                    (1e7, 5e6, 3e6),
                    (1e5, 1.05e5, 0.99e5),
                    (2e6, 2e6 + 5e3, 1e7),
                ] {
                    let full = v.flows(us, pv, p1, p2, 1e5);
                    let (q_a, q_b, q_p) = v.flow_values(us, pv, p1, p2, 1e5);
                    assert_eq!(
                        [q_a, q_b, q_p].map(f64::to_bits),
                        [full.q_a, full.q_b, full.q_p].map(f64::to_bits),
                        "us = {us}, pressures {pv} {p1} {p2}"
                    );
                }
            }
        }
    }

    #[test]
    fn reference_flows_and_signs() {
        let v = example_valve();
        // The model description: 1.1 L/min at 7.9 V opening and 10 bar.
        let q = v.flows(9.9, 1e6 + 9e5, 9e5, 9e5, 9e5);
        assert!(
            (q.q_a * 60_000.0 - 1.097).abs() < 0.01,
            "{}",
            q.q_a * 60_000.0
        );
        assert_eq!(q.q_p, q.q_a);
        // Positive opening: P->A into A, B->T out of B.
        let q = v.flows(5.0, 1e7, 5e6, 3e6, 9e5);
        assert!(q.q_a > 0.0 && q.q_b > 0.0 && q.q_p == q.q_a);
        // Negative opening: A->T out of A (q_a < 0), P->B into B (q_b < 0).
        let q = v.flows(-5.0, 1e7, 5e6, 3e6, 9e5);
        assert!(q.q_a < 0.0 && q.q_b < 0.0 && q.q_p == -q.q_b);
        // Inside the deadband nothing flows.
        let q = v.flows(1.5, 1e7, 5e6, 3e6, 9e5);
        assert_eq!((q.q_a, q.q_b, q.q_p), (0.0, 0.0, 0.0));
    }

    #[test]
    fn opening_is_continuous_at_the_deadband_edges() {
        let v = example_valve();
        for us in [2.0, -2.0] {
            let a = v.flows(us * (1.0 - 1e-12), 1e7, 5e6, 3e6, 9e5);
            let b = v.flows(us * (1.0 + 1e-12), 1e7, 5e6, 3e6, 9e5);
            assert!((a.q_a - b.q_a).abs() < 1e-15 && (a.q_b - b.q_b).abs() < 1e-15);
        }
    }

    #[test]
    fn partials_match_finite_differences() {
        for v in [
            example_valve(),
            DirectionalValve {
                cv: 2.315e-9,
                opening: Opening::Overlap {
                    u_nom: 10.0,
                    c1: 0.05,
                    c2: 0.2,
                },
                p_tr: 1e5,
            },
        ] {
            for us in [-7.0, -1.0, 0.7, 3.0, 8.0] {
                let x = [us, 1.2e7, 6e6, 2e6];
                let q = v.flows(x[0], x[1], x[2], x[3], 9e5);
                for k in 0..4 {
                    let h = if k == 0 { 1e-6 } else { 1.0 };
                    let mut up = x;
                    let mut dn = x;
                    up[k] += h;
                    dn[k] -= h;
                    let a = v.flows(up[0], up[1], up[2], up[3], 9e5);
                    let b = v.flows(dn[0], dn[1], dn[2], dn[3], 9e5);
                    let fd = [
                        (a.q_a - b.q_a) / (2.0 * h),
                        (a.q_b - b.q_b) / (2.0 * h),
                        (a.q_p - b.q_p) / (2.0 * h),
                    ];
                    for r in 0..3 {
                        let an = q.partials[r][k];
                        assert!(
                            (fd[r] - an).abs() <= 1e-6 * fd[r].abs().max(1e-15),
                            "us {us} row {r} col {k}: {an} vs {}",
                            fd[r]
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn overlap_option_opens_tank_edges_in_the_centre() {
        let v = DirectionalValve {
            cv: 2.315e-9,
            opening: Opening::Overlap {
                u_nom: 10.0,
                c1: 0.05,
                c2: 0.2,
            },
            p_tr: 1e5,
        };
        // Centre: supply edges closed (positive overlap), both chambers
        // drain to tank (negative overlap).
        let q = v.flows(0.0, 1e7, 5e6, 3e6, 9e5);
        assert_eq!(q.q_p, 0.0);
        assert!(q.q_a < 0.0 && q.q_b > 0.0);
        // With zero overlaps it is an ideal critical-centre valve: at +5 V
        // P-A opens by 5 V, B-T by 5 V, A-T closed.
        let ideal = DirectionalValve {
            opening: Opening::Overlap {
                u_nom: 10.0,
                c1: 0.0,
                c2: 0.0,
            },
            ..v
        };
        let e = ideal.edges(5.0);
        assert_eq!((e[0].0, e[1].0, e[2].0, e[3].0), (5.0, 0.0, 0.0, 5.0));
    }
}
