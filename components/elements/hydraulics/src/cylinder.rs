//! Double-acting cylinder with chamber volumes from the piston position and
//! end stops (V5 of the valve drive and V6).

/// A double-acting cylinder: chamber A (piston side, area `a1`) grows with
/// the position `x`, chamber B (rod side, area `a2`) shrinks; each chamber
/// has its own dead volume (its volume at its end of the stroke). Its end
/// stops are an [`crate::EndStops`] element.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cylinder {
    /// Piston area, m2.
    pub a1: f64,
    /// Annulus (rod side) area, m2.
    pub a2: f64,
    /// Stroke, m.
    pub stroke: f64,
    /// Dead volume of chamber A (lines included): its volume at `x = 0`,
    /// m3.
    pub v_dead_a: f64,
    /// Dead volume of chamber B (lines included): its volume at
    /// `x = stroke`, m3.
    pub v_dead_b: f64,
}

impl Cylinder {
    /// Volume of chamber A (m3) at position `x`; never below the dead volume's
    /// tenth, so that a piston pushed into a stop keeps a positive volume.
    #[inline]
    pub fn volume_a(&self, x: f64) -> f64 {
        (self.a1 * x + self.v_dead_a).max(0.1 * self.v_dead_a)
    }

    /// Volume of chamber B (m3) at position `x`.
    #[inline]
    pub fn volume_b(&self, x: f64) -> f64 {
        (self.a2 * (self.stroke - x) + self.v_dead_b).max(0.1 * self.v_dead_b)
    }

    /// d(volume_a)/dx (m2).
    #[inline]
    pub fn dvolume_a(&self, x: f64) -> f64 {
        if self.a1 * x + self.v_dead_a > 0.1 * self.v_dead_a {
            self.a1
        } else {
            0.0
        }
    }

    /// d(volume_b)/dx (m2).
    #[inline]
    pub fn dvolume_b(&self, x: f64) -> f64 {
        if self.a2 * (self.stroke - x) + self.v_dead_b > 0.1 * self.v_dead_b {
            -self.a2
        } else {
            0.0
        }
    }

    /// Hydraulic force on the piston (N, positive extending).
    #[inline]
    pub fn force(&self, p1: f64, p2: f64) -> f64 {
        p1 * self.a1 - p2 * self.a2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example() -> Cylinder {
        Cylinder {
            a1: 8.04e-4,
            a2: 4.24e-4,
            stroke: 1.0,
            v_dead_a: 1e-3,
            v_dead_b: 1e-3,
        }
    }

    #[test]
    fn volumes_and_force() {
        let c = example();
        assert!((c.volume_a(0.5) - (4.02e-4 + 1e-3)).abs() < 1e-15);
        assert!((c.volume_b(0.5) - (2.12e-4 + 1e-3)).abs() < 1e-15);
        assert_eq!(c.dvolume_a(0.5), 8.04e-4);
        assert_eq!(c.dvolume_b(0.5), -4.24e-4);
        // 140 bar on the piston side: 11.3 kN (model description).
        assert!((c.force(1.4e7, 0.0) / 11_256.0 - 1.0).abs() < 1e-3);
    }
}
