//! The substep that stepping ahead ([`Method::RosenbrockWAhead`]) takes
//! beyond a communication point, and the states it interpolates inside it.
//!
//! [`Method::RosenbrockWAhead`]: super::Method::RosenbrockWAhead

use nalgebra::SVector;

/// A substep that ends beyond the present communication point
/// ([`Method::RosenbrockWAhead`](super::Method::RosenbrockWAhead)): its ends, the state one substep before
/// (when there is one), the rates at its end, and where in it the
/// communication point lies. It is valid only for the inputs and
/// parameters it was taken with (fmu-core drops it when they change).
///
/// The state at a point inside is the quadratic through the three states
/// (linear without the earlier one): states only, no rates. A Hermite
/// cubic through the ends' rates would be a order better on smooth
/// solutions, but a stiff component's rate at a computed state is the
/// size of its eigenvalue times the state's tiny distance from its slow
/// manifold, nothing like the slow solution's slope: it bends the cubic
/// by whole percents between the ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Segment<const N: usize> {
    /// The state two substeps before its start (unused when `hq` is 0).
    pub xq: SVector<f64, N>,
    /// The length of the substep from there, s; 0 when there is none.
    pub hq: f64,
    /// The state one substep before its start (unused when `hp` is 0).
    pub xp: SVector<f64, N>,
    /// That substep's length, s; 0 when there is none.
    pub hp: f64,
    /// The state at its start.
    pub x0: SVector<f64, N>,
    /// The state at its end: where the integration goes on from.
    pub x1: SVector<f64, N>,
    /// The rates there, where the next substep starts.
    pub f1: SVector<f64, N>,
    /// Its length, s (> 0).
    pub h: f64,
    /// How far into it the present communication point lies, s (0..=h).
    pub at: f64,
}

impl<const N: usize> Segment<N> {
    /// The interpolated state `at` seconds into the segment (exactly `x1`
    /// at its end, `x0` at its start).
    pub fn state_at(&self, at: f64) -> SVector<f64, N> {
        if at >= self.h {
            return self.x1;
        }
        let (s, h, hp, hq) = (at.max(0.0), self.h, self.hp, self.hq);
        if hp > 0.0 && hq > 0.0 {
            // Lagrange weights of the points at -(hp + hq), -hp, 0 and h.
            let (a, b) = (-(hp + hq), -hp);
            let wq = (s - b) * s * (s - h) / ((a - b) * a * (a - h));
            let wp = (s - a) * s * (s - h) / ((b - a) * b * (b - h));
            let w0 = -(s - a) * (s - b) * (s - h) / (a * b * h);
            let w1 = (s - a) * (s - b) * s / ((h - a) * (h - b) * h);
            self.xq * wq + self.xp * wp + self.x0 * w0 + self.x1 * w1
        } else if hp > 0.0 {
            // Lagrange weights of the points at -hp, 0 and h.
            let wp = s * (s - h) / (hp * (hp + h));
            let w0 = -(s + hp) * (s - h) / (hp * h);
            let w1 = (s + hp) * s / ((hp + h) * h);
            self.xp * wp + self.x0 * w0 + self.x1 * w1
        } else {
            let w1 = s / h;
            self.x0 * (1.0 - w1) + self.x1 * w1
        }
    }

    /// Whether its numbers are usable: finite, a positive length, the
    /// point inside, the earlier substep's length >= 0.
    pub fn is_valid(&self) -> bool {
        let finite = [&self.xq, &self.xp, &self.x0, &self.x1, &self.f1]
            .iter()
            .all(|v| v.iter().all(|e| e.is_finite()));
        finite
            && self.h.is_finite()
            && self.h > 0.0
            && self.hp.is_finite()
            && self.hp >= 0.0
            && self.hq.is_finite()
            && self.hq >= 0.0
            && (0.0..=self.h).contains(&self.at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_segment_interpolates_a_cubic_exactly_and_keeps_its_ends() {
        // x(t) = t^3 - 3t at t = 0.2 and 1 (the earlier points), 1.5 and 3.5.
        let x = |t: f64| SVector::<f64, 1>::from([t * t * t - 3.0 * t]);
        let seg = Segment::<1> {
            xq: x(0.2),
            hq: 0.8,
            xp: x(1.0),
            hp: 0.5,
            x0: x(1.5),
            x1: x(3.5),
            f1: SVector::zeros(),
            h: 2.0,
            at: 0.0,
        };
        for at in [0.0, 0.3, 1.0, 1.7, 2.0] {
            assert!((seg.state_at(at) - x(1.5 + at)).norm() < 1e-12, "at {at}");
        }
        assert_eq!(seg.state_at(2.0), seg.x1);
        // With one earlier point: the parabola through the three.
        let q = |t: f64| SVector::<f64, 1>::from([t * t - 3.0 * t]);
        let parabola = Segment {
            xp: q(1.0),
            x0: q(1.5),
            x1: q(3.5),
            hq: 0.0,
            ..seg
        };
        assert!((parabola.state_at(0.7) - q(2.2)).norm() < 1e-12);
        // With none: the chord.
        let chord = Segment {
            hp: 0.0,
            ..parabola
        };
        assert!((chord.state_at(1.0) - (chord.x0 + chord.x1) * 0.5).norm() < 1e-12);
        assert!(seg.is_valid() && parabola.is_valid() && chord.is_valid());
        assert!(!Segment { at: 2.5, ..seg }.is_valid());
        assert!(
            !Segment {
                h: 0.0,
                at: 0.0,
                ..seg
            }
            .is_valid()
        );
        assert!(!Segment { hp: -1.0, ..seg }.is_valid());
        assert!(
            !Segment {
                hq: f64::NAN,
                ..seg
            }
            .is_valid()
        );
    }
}
