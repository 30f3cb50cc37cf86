//! Clamped B-spline curves in the plane, for characteristic curves given by
//! control points (a valve's flow gain over spool signal, FourBar `MODEL.md`
//! F7): the curve `(u(t), y(t)) = sum_i B_i,p(t) (u_i, y_i)`, `t` in
//! `[0, 1]`, with a clamped uniform knot vector, read as a function `y(u)`
//! by solving `u(t) = u` for `t`.
//!
//! Clamped means the curve starts at the first control point and ends at the
//! last; a collinear control polygon gives a straight line whatever the
//! degree. Degree 1 to 3, any number of control points (at least 2; the
//! degree is lowered to `n - 1` when there are fewer than `degree + 1`
//! points). Fixed capacity, no allocation: at most [`MAX_POINTS`] points.

use std::sync::OnceLock;

/// Most control points a curve holds.
pub const MAX_POINTS: usize = 16;

/// The basis functions of one clamped uniform knot vector on each of its
/// spans `k` as cubics in `s = t - knots[k]` (power basis, constant term
/// first): `bases[k][r]` is `N_(k-p+r),p`. They depend on the number of
/// points and the degree alone (the knots do), so each pair is computed
/// once per process ([`BASES`]) and shared by every curve that has it.
type SpanBases = [[[f64; 4]; 4]; MAX_POINTS];

/// [`SpanBases`] per `(points, degree)`, index `points * 4 + degree`,
/// filled by [`BSplineCurve::new`].
static BASES: [OnceLock<SpanBases>; (MAX_POINTS + 1) * 4] =
    [const { OnceLock::new() }; (MAX_POINTS + 1) * 4];

/// Intervals of the table of the inverse `t(u)` (even in `u`) whose cubic
/// Hermite interpolation starts the inversion `u(t) = u`: Newton then
/// needs one step, as a rule.
const SAMPLES: usize = 32;

/// A clamped B-spline curve `y(u)` over increasing control abscissae.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BSplineCurve {
    n: usize,
    degree: usize,
    u: [f64; MAX_POINTS],
    y: [f64; MAX_POINTS],
    knots: [f64; MAX_POINTS + 4],
    /// `t` and `dt/du` at `u = u0 + j (u1 - u0) / SAMPLES`.
    inverse: [[f64; 2]; SAMPLES + 1],
    /// u(t) on knot span `k` as a cubic in `t - knots[k]` (power basis,
    /// constant term first), built once from the abscissae: the inversion
    /// `u(t) = u` iterates on it instead of on the basis recursion.
    upoly: [[f64; 4]; MAX_POINTS],
}

/// A curve value and its slope.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CurvePoint {
    /// y(u).
    pub value: f64,
    /// dy/du.
    pub slope: f64,
}

impl BSplineCurve {
    /// The curve through the control points `(u[i], y[i])` of the given
    /// degree (1..=3). An error when there are fewer than 2 or more than
    /// [`MAX_POINTS`] points, the lengths differ, a value is not finite, or
    /// the abscissae do not strictly increase (the curve must be a function
    /// of `u`).
    pub fn new(u: &[f64], y: &[f64], degree: usize) -> Result<Self, String> {
        let n = u.len();
        if n != y.len() {
            return Err(format!(
                "{} abscissae but {} ordinates: each control point needs both",
                n,
                y.len()
            ));
        }
        if !(2..=MAX_POINTS).contains(&n) {
            return Err(format!(
                "a curve needs 2 to {MAX_POINTS} control points, not {n}"
            ));
        }
        if !(1..=3).contains(&degree) {
            return Err(format!("curve degree {degree}: must be 1, 2 or 3"));
        }
        if let Some(i) = (0..n).find(|&i| !u[i].is_finite() || !y[i].is_finite()) {
            return Err(format!(
                "control point {} = ({}, {}) is not finite",
                i + 1,
                u[i],
                y[i]
            ));
        }
        if let Some(i) = (1..n).find(|&i| u[i] <= u[i - 1]) {
            return Err(format!(
                "control point abscissae must increase: point {} at {} does not follow {}",
                i + 1,
                u[i],
                u[i - 1]
            ));
        }
        let p = degree.min(n - 1);
        let mut curve = BSplineCurve {
            n,
            degree: p,
            u: [0.0; MAX_POINTS],
            y: [0.0; MAX_POINTS],
            knots: [0.0; MAX_POINTS + 4],
            inverse: [[0.0; 2]; SAMPLES + 1],
            upoly: [[0.0; 4]; MAX_POINTS],
        };
        curve.u[..n].copy_from_slice(u);
        curve.y[..n].copy_from_slice(y);
        // Clamped uniform knots: p + 1 zeros, n - p - 1 interior, p + 1 ones.
        let spans = (n - p) as f64;
        for k in 0..n + p + 1 {
            curve.knots[k] = if k <= p {
                0.0
            } else if k >= n {
                1.0
            } else {
                (k - p) as f64 / spans
            };
        }
        let bases = BASES[n * 4 + p].get_or_init(|| curve.span_bases());
        for k in p..n {
            for r in 0..=p {
                for (c, b) in curve.upoly[k].iter_mut().zip(bases[k][r]) {
                    *c += b * curve.u[k + r - p];
                }
            }
        }
        // The inverse at even u, each solved to round-off from [0, 1].
        let (u0, u1) = (u[0], u[n - 1]);
        for j in 0..=SAMPLES {
            let uj = u0 + (u1 - u0) * j as f64 / SAMPLES as f64;
            let t = match j {
                0 => 0.0,
                SAMPLES => 1.0,
                _ => {
                    curve
                        .solve(uj, 0.0, 1.0, j as f64 / SAMPLES as f64, false)
                        .0
                }
            };
            let (_, _, du, _) = curve.at_parameter(t);
            curve.inverse[j] = [t, if du > 0.0 { 1.0 / du } else { 0.0 }];
        }
        Ok(curve)
    }

    /// The basis functions on every span as cubics ([`SpanBases`]).
    fn span_bases(&self) -> SpanBases {
        let mut bases = [[[0.0; 4]; 4]; MAX_POINTS];
        for k in self.degree..self.n {
            for r in 0..=self.degree {
                bases[k][r] = self.span_polynomial(k, |b| b[r]);
            }
        }
        bases
    }

    /// A function of span `k`'s basis values (a polynomial of degree
    /// p <= 3 in `t` there) in the power basis of `s = t - knots[k]`:
    /// interpolated at four points of the span (Newton's divided
    /// differences, exact for a cubic up to round-off).
    fn span_polynomial(&self, k: usize, f: impl Fn(&[f64; 4]) -> f64) -> [f64; 4] {
        let (t0, t1) = (self.knots[k], self.knots[k + 1]);
        let h = t1 - t0;
        if h <= 0.0 {
            return [0.0; 4];
        }
        let s = [0.0, h / 3.0, 2.0 * h / 3.0, h];
        // Evaluate with span k's own basis (also at its right end).
        let at = |x: f64| -> f64 { f(&self.basis(k, t0 + x).0) };
        let mut a = [at(s[0]), at(s[1]), at(s[2]), at(s[3])];
        for order in 1..4 {
            for i in (order..4).rev() {
                a[i] = (a[i] - a[i - 1]) / (s[i] - s[i - order]);
            }
        }
        // a0 + a1 s + a2 s (s - s1) + a3 s (s - s1)(s - s2), expanded.
        let (s1, s2) = (s[1], s[2]);
        [
            a[0],
            a[1] - a[2] * s1 + a[3] * s1 * s2,
            a[2] - a[3] * (s1 + s2),
            a[3],
        ]
    }

    /// The same curve with new ordinates `y` (one per control point): the
    /// abscissae, and so the parameter inversion, stay, which makes this
    /// cheap enough to call at every evaluation (an estimator moves the
    /// ordinates). An error for a wrong count or a value that is not
    /// finite.
    pub fn with_ordinates(&self, y: &[f64]) -> Result<Self, String> {
        if y.len() != self.n {
            return Err(format!(
                "{} ordinates for a curve of {} control points",
                y.len(),
                self.n
            ));
        }
        if let Some(i) = y.iter().position(|v| !v.is_finite()) {
            return Err(format!("ordinate {} = {} is not finite", i + 1, y[i]));
        }
        let mut curve = *self;
        curve.y[..self.n].copy_from_slice(y);
        Ok(curve)
    }

    /// Number of control points.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether the curve has no control points (never: at least 2).
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The degree in use.
    pub fn degree(&self) -> usize {
        self.degree
    }

    /// First and last abscissa.
    pub fn domain(&self) -> (f64, f64) {
        (self.u[0], self.u[self.n - 1])
    }

    /// The knot span `k` with `knots[k] <= t < knots[k + 1]` (the last
    /// non-empty span for `t = 1`).
    fn span(&self, t: f64) -> usize {
        let p = self.degree;
        let mut k = p;
        while k + 1 < self.n && self.knots[k + 1] <= t {
            k += 1;
        }
        k
    }

    /// The `p + 1` non-zero basis functions on span `k` at `t` and their
    /// derivatives (Cox-de Boor recursion).
    fn basis(&self, k: usize, t: f64) -> ([f64; 4], [f64; 4]) {
        let p = self.degree;
        let kn = &self.knots;
        // Degree p - 1 basis first (for the derivative), then degree p.
        let mut n = [0.0f64; 4];
        n[0] = 1.0;
        let mut lower = [0.0f64; 4];
        for d in 1..=p {
            if d == p {
                lower = n;
            }
            let mut next = [0.0f64; 4];
            for r in 0..=d {
                // Basis function index i = k - d + r of degree d.
                let i = k + r - d;
                let mut v = 0.0;
                if r > 0 {
                    let den = kn[i + d] - kn[i];
                    if den > 0.0 {
                        v += (t - kn[i]) / den * n[r - 1];
                    }
                }
                if r < d {
                    let den = kn[i + d + 1] - kn[i + 1];
                    if den > 0.0 {
                        v += (kn[i + d + 1] - t) / den * n[r];
                    }
                }
                next[r] = v;
            }
            n = next;
        }
        // dN_i,p/dt = p (N_i,p-1 / (t_i+p - t_i) - N_i+1,p-1 / (t_i+p+1 - t_i+1)).
        let mut dn = [0.0f64; 4];
        for r in 0..=p {
            let i = k + r - p;
            let mut v = 0.0;
            if r > 0 {
                let den = kn[i + p] - kn[i];
                if den > 0.0 {
                    v += lower[r - 1] / den;
                }
            }
            if r < p {
                let den = kn[i + p + 1] - kn[i + 1];
                if den > 0.0 {
                    v -= lower[r] / den;
                }
            }
            dn[r] = p as f64 * v;
        }
        (n, dn)
    }

    /// The curve point at parameter `t` in `[0, 1]`: `(u, y, du/dt, dy/dt)`.
    pub fn at_parameter(&self, t: f64) -> (f64, f64, f64, f64) {
        let t = t.clamp(0.0, 1.0);
        let k = self.span(t);
        let (n, dn) = self.basis(k, t);
        let (mut u, mut y, mut du, mut dy) = (0.0, 0.0, 0.0, 0.0);
        for r in 0..=self.degree {
            let i = k + r - self.degree;
            u += n[r] * self.u[i];
            y += n[r] * self.y[i];
            du += dn[r] * self.u[i];
            dy += dn[r] * self.y[i];
        }
        (u, y, du, dy)
    }

    /// `y(u)` and `dy/du`. Outside the control abscissae the curve is held
    /// at its end values (slope 0). Inside, `u(t) = u` is solved by
    /// safeguarded Newton (bisection when a step leaves the bracket): `u(t)`
    /// increases with `t` because the abscissae do.
    pub fn eval(&self, u: f64) -> CurvePoint {
        let (u0, u1) = self.domain();
        if u <= u0 {
            return CurvePoint {
                value: self.y[0],
                slope: 0.0,
            };
        }
        if u >= u1 {
            return CurvePoint {
                value: self.y[self.n - 1],
                slope: 0.0,
            };
        }
        let (t, k) = self.parameter_of(u);
        // (new() has filled them; this only reads them.)
        let bases = BASES[self.n * 4 + self.degree].get_or_init(|| self.span_bases());
        // y(t) and dy/dt from the span's basis polynomials, du/dt from u's.
        let x = t - self.knots[k];
        let (mut y, mut dy) = (0.0, 0.0);
        for r in 0..=self.degree {
            let c = &bases[k][r];
            let v = self.y[k + r - self.degree];
            y += (((c[3] * x + c[2]) * x + c[1]) * x + c[0]) * v;
            dy += ((3.0 * c[3] * x + 2.0 * c[2]) * x + c[1]) * v;
        }
        let c = &self.upoly[k];
        let du = (3.0 * c[3] * x + 2.0 * c[2]) * x + c[1];
        CurvePoint {
            value: y,
            slope: if du > 0.0 { dy / du } else { 0.0 },
        }
    }

    /// Whether `other` is the same curve: the same points and degree (the
    /// rest is derived from them). Cheaper than `==`, which also compares
    /// the derived tables.
    pub fn same_curve(&self, other: &BSplineCurve) -> bool {
        self.n == other.n
            && self.degree == other.degree
            && self.u[..self.n] == other.u[..other.n]
            && self.y[..self.n] == other.y[..other.n]
    }

    /// The parameter `t` with `u(t) = u`, for `u` inside the domain, and
    /// its span: the cubic Hermite interpolant of the inverse's table
    /// brackets and starts Newton's method on the span polynomials.
    fn parameter_of(&self, u: f64) -> (f64, usize) {
        let (u0, u1) = self.domain();
        let width = (u1 - u0) / SAMPLES as f64;
        let x = ((u - u0) / width).clamp(0.0, SAMPLES as f64);
        let j = (x as usize).min(SAMPLES - 1);
        let s = x - j as f64;
        let ([ta, ma], [tb, mb]) = (self.inverse[j], self.inverse[j + 1]);
        let (s2, s3) = (s * s, s * s * s);
        let guess = (2.0 * s3 - 3.0 * s2 + 1.0) * ta
            + (s3 - 2.0 * s2 + s) * width * ma
            + (3.0 * s2 - 2.0 * s3) * tb
            + (s3 - s2) * width * mb;
        self.solve(u, ta, tb, guess.clamp(ta, tb), true)
    }

    /// Solves `u(t) = u` for `t` in the bracket `[lo, hi]` from `t`:
    /// Newton's method on the span polynomials, bisection when a step
    /// leaves the bracket. Ends when a step is at round-off, or (`quick`)
    /// when a Newton step within one span is so small that the error after
    /// it, about `|u''| / (2 u')` times its square, is below 1e-15 of the
    /// parameter range. Returns `t` and its span.
    fn solve(&self, u: f64, mut lo: f64, mut hi: f64, mut t: f64, quick: bool) -> (f64, usize) {
        let mut k = self.span(t);
        for _ in 0..100 {
            // The span of t (it moves by one at most, as a rule).
            while k > self.degree && t < self.knots[k] {
                k -= 1;
            }
            while k + 1 < self.n && self.knots[k + 1] <= t {
                k += 1;
            }
            let c = &self.upoly[k];
            let x = t - self.knots[k];
            let ut = ((c[3] * x + c[2]) * x + c[1]) * x + c[0];
            let dut = (3.0 * c[3] * x + 2.0 * c[2]) * x + c[1];
            let f = ut - u;
            if f == 0.0 {
                break;
            }
            if f > 0.0 {
                hi = t;
            } else {
                lo = t;
            }
            let newton = t - f / dut;
            let next = if dut > 0.0 && newton > lo && newton < hi {
                newton
            } else {
                0.5 * (lo + hi)
            };
            let step = (next - t).abs();
            let curvature = (3.0 * c[3] * x + c[2]).abs() / dut;
            // (The quick end needs the step to stay on the span whose
            // polynomial it followed: across a knot u(t) is another cubic.)
            let same_span = self.knots[k] <= next && (next < self.knots[k + 1] || k + 1 == self.n);
            let done = step <= 4.0 * f64::EPSILON
                || hi - lo <= f64::EPSILON
                || (quick && next == newton && same_span && curvature * step * step <= 1e-15);
            t = next;
            if done {
                break;
            }
        }
        // The span of the final t.
        while k > self.degree && t < self.knots[k] {
            k -= 1;
        }
        while k + 1 < self.n && self.knots[k + 1] <= t {
            k += 1;
        }
        (t, k)
    }

    /// The weight of each control point's ordinate in `y(u)` (`y(u) =
    /// sum_i w_i y_i`, the B-spline basis at the parameter of `u`), into
    /// `w` (one entry per control point): the derivative of the curve's
    /// value with respect to each ordinate. Outside the domain the end
    /// point has weight 1.
    pub fn weights(&self, u: f64, w: &mut [f64]) {
        w.iter_mut().for_each(|v| *v = 0.0);
        let (u0, u1) = self.domain();
        if u <= u0 {
            w[0] = 1.0;
            return;
        }
        if u >= u1 {
            w[self.n - 1] = 1.0;
            return;
        }
        let t = self.parameter_of(u).0.clamp(0.0, 1.0);
        let k = self.span(t);
        let (basis, _) = self.basis(k, t);
        for r in 0..=self.degree {
            w[k + r - self.degree] = basis[r];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The parameter of `u` by bisection on the basis recursion alone (to
    /// the last bit): the reference for the inversion on the span
    /// polynomials.
    fn parameter_by_bisection(c: &BSplineCurve, u: f64) -> f64 {
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if mid <= lo || mid >= hi {
                break;
            }
            if c.at_parameter(mid).0 < u {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        0.5 * (lo + hi)
    }

    #[test]
    fn the_inversion_on_span_polynomials_agrees_with_bisection_to_1e_12() {
        let curves = [
            (
                vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0],
                vec![0.0, 5.0, 12.0, 30.0, 70.0, 95.0],
            ),
            (
                vec![0.0, 2.5, 5.0, 7.5, 10.0],
                vec![0.0, 12.0, 35.0, 65.0, 95.0],
            ),
            (
                vec![0.0, 0.3, 0.5, 3.0, 9.7, 10.0, 14.0],
                vec![0.0, 1.0, 2.0, 50.0, 60.0, 90.0, 95.0],
            ),
            (vec![-1.0, 1e-3, 2.0], vec![3.0, -1.0, 7.0]),
        ];
        for (u, y) in &curves {
            for degree in 1..=3 {
                let c = BSplineCurve::new(u, y, degree).unwrap();
                let (u0, u1) = c.domain();
                let scale = y.iter().fold(0.0f64, |m, v| m.max(v.abs()));
                for i in 1..2000 {
                    // Off the control abscissae, where a degree-1 curve has a kink.
                    let x = u0 + (u1 - u0) * (i as f64 + 0.37) / 2000.0;
                    let got = c.eval(x);
                    let (_, want, du, dy) = c.at_parameter(parameter_by_bisection(&c, x));
                    assert!(
                        (got.value - want).abs() <= 1e-12 * scale,
                        "degree {degree}, u = {x}: {} against {want}",
                        got.value
                    );
                    let slope = dy / du;
                    assert!(
                        (got.slope - slope).abs() <= 1e-9 * slope.abs().max(scale / (u1 - u0)),
                        "degree {degree}, u = {x}: slope {} against {slope}",
                        got.slope
                    );
                }
            }
        }
    }

    #[test]
    fn a_collinear_polygon_is_a_straight_line_at_every_degree() {
        let u = [0.0, 2.0, 4.0, 6.0, 8.0, 10.0];
        let y = [0.0, 19.0, 38.0, 57.0, 76.0, 95.0];
        for degree in 1..=3 {
            let c = BSplineCurve::new(&u, &y, degree).unwrap();
            for k in 0..=100 {
                let x = 0.1 * k as f64;
                let p = c.eval(x);
                assert!((p.value - 9.5 * x).abs() < 1e-11, "{degree} {x} {p:?}");
                if k > 0 && k < 100 {
                    assert!((p.slope - 9.5).abs() < 1e-9, "{degree} {x} {p:?}");
                }
            }
        }
    }

    #[test]
    fn clamped_ends_and_held_outside() {
        let c = BSplineCurve::new(
            &[0.0, 2.5, 5.0, 7.5, 10.0],
            &[0.0, 12.0, 35.0, 65.0, 95.0],
            3,
        )
        .unwrap();
        assert_eq!(c.eval(0.0).value, 0.0);
        assert!((c.eval(10.0).value - 95.0).abs() < 1e-12);
        assert_eq!(c.eval(-3.0).value, 0.0);
        assert_eq!(c.eval(12.0).value, 95.0);
        // Progressive: the midpoint lies below the chord.
        assert!(c.eval(5.0).value < 47.5);
    }

    #[test]
    fn slope_agrees_with_central_differences() {
        let c = BSplineCurve::new(
            &[0.0, 2.0, 4.0, 6.0, 8.0, 10.0],
            &[0.0, 5.0, 12.0, 30.0, 70.0, 95.0],
            3,
        )
        .unwrap();
        for k in 1..100 {
            let x = 0.1 * k as f64 + 0.013;
            let h = 1e-6;
            let fd = (c.eval(x + h).value - c.eval(x - h).value) / (2.0 * h);
            let s = c.eval(x).slope;
            assert!((s - fd).abs() <= 1e-6 * (1.0 + s.abs()), "{x}: {s} vs {fd}");
        }
    }

    #[test]
    fn degree_one_interpolates_the_control_points() {
        let c = BSplineCurve::new(&[0.0, 1.0, 3.0], &[0.0, 4.0, 5.0], 1).unwrap();
        assert!((c.eval(1.0).value - 4.0).abs() < 1e-12);
        assert!((c.eval(2.0).value - 4.5).abs() < 1e-12);
        assert!((c.eval(0.5).slope - 4.0).abs() < 1e-9);
    }

    #[test]
    fn partition_of_unity() {
        let c = BSplineCurve::new(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[1.0; 7], 3).unwrap();
        for k in 0..=50 {
            let (_, y, _, dy) = c.at_parameter(k as f64 / 50.0);
            assert!((y - 1.0).abs() < 1e-14 && dy.abs() < 1e-12);
        }
    }

    #[test]
    fn bad_control_points_are_refused_with_a_reason() {
        assert!(
            BSplineCurve::new(&[0.0], &[0.0], 3)
                .unwrap_err()
                .contains("2 to")
        );
        assert!(
            BSplineCurve::new(&[0.0, 1.0, 1.0], &[0.0, 1.0, 2.0], 2)
                .unwrap_err()
                .contains("increase")
        );
        assert!(
            BSplineCurve::new(&[0.0, 1.0], &[0.0, f64::NAN], 1)
                .unwrap_err()
                .contains("not finite")
        );
        assert!(
            BSplineCurve::new(&[0.0, 1.0], &[0.0, 1.0], 4)
                .unwrap_err()
                .contains("degree")
        );
    }

    #[test]
    fn new_ordinates_give_the_curve_built_from_scratch() {
        let u = [0.0, 2.0, 4.0, 6.0, 8.0, 10.0];
        let linear = BSplineCurve::new(&u, &[0.0, 19.0, 38.0, 57.0, 76.0, 95.0], 3).unwrap();
        let y = [0.0, 5.0, 12.0, 30.0, 70.0, 95.0];
        let moved = linear.with_ordinates(&y).unwrap();
        let fresh = BSplineCurve::new(&u, &y, 3).unwrap();
        for k in 0..=50 {
            let x = 0.2 * k as f64;
            assert_eq!(moved.eval(x), fresh.eval(x), "at {x} V");
        }
        assert!(
            linear
                .with_ordinates(&y[..5])
                .unwrap_err()
                .contains("5 ordinates")
        );
        let mut bad = y;
        bad[2] = f64::NAN;
        assert!(
            linear
                .with_ordinates(&bad)
                .unwrap_err()
                .contains("ordinate 3")
        );
    }

    #[test]
    fn weights_give_the_value_and_its_ordinate_derivatives() {
        let u = [0.0, 2.5, 5.0, 7.5, 10.0];
        let y = [0.0, 12.0, 35.0, 65.0, 95.0];
        let c = BSplineCurve::new(&u, &y, 3).unwrap();
        let mut w = [0.0; 5];
        for k in 0..=40 {
            let x = -1.0 + 0.3 * k as f64;
            c.weights(x, &mut w);
            let value: f64 = w.iter().zip(&y).map(|(a, b)| a * b).sum();
            assert!((value - c.eval(x).value).abs() < 1e-12, "{x}");
            for j in 0..5 {
                let mut e = [0.0; 5];
                e[j] = 1.0;
                let unit = c.with_ordinates(&e).unwrap().eval(x).value;
                assert!((w[j] - unit).abs() < 1e-12, "{x} {j}");
            }
        }
    }
}
