//! End stops of a sliding body (V6 of the valve drive).

/// Stiff spring-dampers at `x_min` and `x_max` that push the body back and
/// never pull it (contact only while the force they would give pushes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EndStops {
    /// Lower stop position, m.
    pub x_min: f64,
    /// Upper stop position, m.
    pub x_max: f64,
    /// Contact stiffness, N/m.
    pub stiffness: f64,
    /// Contact damping, N s/m.
    pub damping: f64,
}

impl EndStops {
    /// Contact force (N, positive towards +x) at position `x` (m) and
    /// velocity `v` (m/s), with its partials with respect to `x` and `v`.
    #[inline]
    pub fn force(&self, x: f64, v: f64) -> (f64, f64, f64) {
        let (k, c) = (self.stiffness, self.damping);
        if x < self.x_min {
            let f = -k * (x - self.x_min) - c * v;
            if f > 0.0 {
                (f, -k, -c)
            } else {
                (0.0, 0.0, 0.0)
            }
        } else if x > self.x_max {
            let f = -k * (x - self.x_max) - c * v;
            if f < 0.0 {
                (f, -k, -c)
            } else {
                (0.0, 0.0, 0.0)
            }
        } else {
            (0.0, 0.0, 0.0)
        }
    }

    /// The switching functions of the stops at position `x` (m): `x -
    /// x_min` and `x_max - x`, each changing sign where the body reaches a
    /// stop (where the contact force, damping included, starts: its jump).
    pub fn switching(&self, x: f64) -> [f64; 2] {
        [x - self.x_min, self.x_max - x]
    }

    /// Whether `x` is in contact with a stop.
    pub fn in_contact(&self, x: f64) -> bool {
        x < self.x_min || x > self.x_max
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example() -> EndStops {
        EndStops {
            x_min: 0.0,
            x_max: 1.0,
            stiffness: 1e8,
            damping: 2e5,
        }
    }

    #[test]
    fn end_stops_only_push() {
        let s = example();
        assert_eq!(s.force(0.5, 1.0).0, 0.0);
        // Beyond the upper stop moving outward: pushed back.
        let (f, dx, dv) = s.force(1.0 + 1e-4, 0.01);
        assert!(f < 0.0 && dx < 0.0 && dv < 0.0);
        // Beyond the upper stop but leaving fast: the damper would pull; it does not.
        assert_eq!(s.force(1.0 + 1e-6, -1.0).0, 0.0);
        // Below the lower stop: pushed towards +x.
        assert!(s.force(-1e-4, 0.0).0 > 0.0);
        // 0.11 mm penetration at the full piston force of 10.9 kN (model description).
        let f = 1.4e7 * 8.04e-4 - 9e5 * 4.24e-4;
        assert!(((f / s.stiffness) * 1e3 - 0.11).abs() < 0.01);
    }
}
