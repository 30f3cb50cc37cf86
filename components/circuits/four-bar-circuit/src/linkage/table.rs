//! The linkage's dynamics as functions of the crank angle alone, tabulated
//! once at configuration (`MODEL.md` M4-M6).
//!
//! A one-degree-of-freedom linkage's equation of motion is
//! `M(θ) θ'' = G(θ) - C(θ) θ'^2 + F s'(θ)` with the generalised mass `M`,
//! the generalised gravity force `G = R^T Q_g`, the velocity term
//! `C = R^T M dR/dθ` and the cylinder length `s`. All four depend on θ
//! only, so the loop closure and the velocity transformation need not be
//! solved at every evaluation: the exact values and derivatives at the nodes
//! of an even grid (the warm-start grid, 0.5°) are interpolated piecewise by
//! quintic Hermite polynomials (values, first and second derivatives at both
//! ends of a cell; `C`'s second derivative by a difference quotient,
//! [`super::Linkage`]'s `node`). The Jacobian takes the interpolants' own
//! derivatives, so it is the exact Jacobian of the interpolated rates. On
//! FourBar's linkage the interpolated rates agree with the exact
//! evaluation to 1e-11 relative or better (tested); outside the grid the
//! linkage is evaluated exactly.

/// One node: `s`, `M`, `G` and `C` with their first two θ-derivatives.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Node {
    pub s: [f64; 3],
    pub m: [f64; 3],
    pub g: [f64; 3],
    pub c: [f64; 3],
}

/// The interpolated quantities at one θ with their θ-derivatives.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Interpolated {
    /// `s`, `ds/dθ`, `d2s/dθ2`.
    pub s: [f64; 3],
    /// `M`, `dM/dθ`.
    pub m: [f64; 2],
    /// `G`, `dG/dθ`.
    pub g: [f64; 2],
    /// `C`, `dC/dθ`.
    pub c: [f64; 2],
}

impl Interpolated {
    /// The quantities at a node itself.
    pub fn at_node(n: &Node) -> Self {
        Interpolated {
            s: n.s,
            m: [n.m[0], n.m[1]],
            g: [n.g[0], n.g[1]],
            c: [n.c[0], n.c[1]],
        }
    }
}

/// The nodes on the grid `first + i step`.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Table {
    first: f64,
    step: f64,
    nodes: Vec<Node>,
}

impl Table {
    /// The table of `nodes` at `first + i step`.
    pub fn new(first: f64, step: f64, nodes: Vec<Node>) -> Self {
        Table { first, step, nodes }
    }

    /// The quantities at θ, or `None` outside the grid.
    #[inline]
    pub fn at(&self, theta: f64) -> Option<Interpolated> {
        let x = (theta - self.first) / self.step;
        let last = self.nodes.len().checked_sub(1)?;
        // Also refuses NaN.
        if !(x >= 0.0 && x <= last as f64) {
            return None;
        }
        let i = (x as usize).min(last.saturating_sub(1));
        let (a, b) = (self.nodes.get(i)?, self.nodes.get(i + 1)?);
        let t = x - i as f64;
        let h = self.step;
        let q = Quintic::new(t);
        let (s, ds, dds) = q.eval(&a.s, &b.s, h);
        let (m, dm, _) = q.eval(&a.m, &b.m, h);
        let (g, dg, _) = q.eval(&a.g, &b.g, h);
        let (c, dc, _) = q.eval(&a.c, &b.c, h);
        Some(Interpolated {
            s: [s, ds, dds],
            m: [m, dm],
            g: [g, dg],
            c: [c, dc],
        })
    }
}

/// The quintic Hermite basis on `[0, 1]` at `t`: the weights of the values,
/// first and second derivatives at both ends, and their first and second
/// derivatives in `t`.
struct Quintic {
    w: [[f64; 6]; 3],
}

impl Quintic {
    #[inline]
    fn new(t: f64) -> Self {
        let (t2, t3) = (t * t, t * t * t);
        let (t4, t5) = (t3 * t, t3 * t2);
        Quintic {
            w: [
                [
                    1.0 - 10.0 * t3 + 15.0 * t4 - 6.0 * t5,
                    t - 6.0 * t3 + 8.0 * t4 - 3.0 * t5,
                    0.5 * (t2 - 3.0 * t3 + 3.0 * t4 - t5),
                    10.0 * t3 - 15.0 * t4 + 6.0 * t5,
                    -4.0 * t3 + 7.0 * t4 - 3.0 * t5,
                    0.5 * (t3 - 2.0 * t4 + t5),
                ],
                [
                    -30.0 * t2 + 60.0 * t3 - 30.0 * t4,
                    1.0 - 18.0 * t2 + 32.0 * t3 - 15.0 * t4,
                    0.5 * (2.0 * t - 9.0 * t2 + 12.0 * t3 - 5.0 * t4),
                    30.0 * t2 - 60.0 * t3 + 30.0 * t4,
                    -12.0 * t2 + 28.0 * t3 - 15.0 * t4,
                    0.5 * (3.0 * t2 - 8.0 * t3 + 5.0 * t4),
                ],
                [
                    -60.0 * t + 180.0 * t2 - 120.0 * t3,
                    -36.0 * t + 96.0 * t2 - 60.0 * t3,
                    0.5 * (2.0 - 18.0 * t + 36.0 * t2 - 20.0 * t3),
                    60.0 * t - 180.0 * t2 + 120.0 * t3,
                    -24.0 * t + 84.0 * t2 - 60.0 * t3,
                    0.5 * (6.0 * t - 24.0 * t2 + 20.0 * t3),
                ],
            ],
        }
    }

    /// The interpolant through `a` and `b` (value, first and second
    /// θ-derivative at each end of a cell of width `h`) and its first two
    /// θ-derivatives.
    ///
    /// The end values enter through their difference (the value weights
    /// sum to one, their derivatives to zero): the rounding of two nearly
    /// equal values then costs nothing when the derivatives divide by `h`.
    #[inline]
    fn eval(&self, a: &[f64; 3], b: &[f64; 3], h: f64) -> (f64, f64, f64) {
        let data = [b[0] - a[0], h * a[1], h * h * a[2], h * b[1], h * h * b[2]];
        let dot = |w: &[f64; 6]| {
            w[3] * data[0] + w[1] * data[1] + w[2] * data[2] + w[4] * data[3] + w[5] * data[4]
        };
        (
            a[0] + dot(&self.w[0]),
            dot(&self.w[1]) / h,
            dot(&self.w[2]) / (h * h),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bases_reproduce_polynomials_of_their_degree() {
        // f = θ^5 - 2θ^3 + θ on cells of width 0.3: the quintic is exact.
        let f = |x: f64| {
            [
                x.powi(5) - 2.0 * x.powi(3) + x,
                5.0 * x.powi(4) - 6.0 * x * x + 1.0,
                20.0 * x.powi(3) - 12.0 * x,
            ]
        };
        let (first, step) = (-0.6, 0.3);
        let nodes = (0..5)
            .map(|i| {
                let x = first + step * i as f64;
                Node {
                    s: f(x),
                    m: f(x),
                    g: f(x),
                    c: f(x),
                }
            })
            .collect();
        let table = Table::new(first, step, nodes);
        for k in 0..=40 {
            let x = first + 1.2 * k as f64 / 40.0;
            let v = table.at(x).unwrap();
            let e = f(x);
            for d in 0..3 {
                assert!((v.s[d] - e[d]).abs() < 1e-12, "x = {x}, derivative {d}");
            }
            assert!((v.m[1] - e[1]).abs() < 1e-12);
            assert!((v.c[0] - e[0]).abs() < 1e-12 && (v.c[1] - e[1]).abs() < 1e-12);
        }
        assert!(table.at(first - 1e-9).is_none());
        assert!(table.at(first + 1.2 + 1e-9).is_none());
        assert!(table.at(f64::NAN).is_none());
    }
}
