//! The sliding carriage: a point mass on the rod with LuGre friction and
//! end stops (card V6). States: `x` (m), `v` (m/s), `z` (m, bristles).

use hydraulics::{EndStops, LuGre};

/// Index of the position in the carriage state.
pub const X: usize = 0;
/// Index of the velocity.
pub const V: usize = 1;
/// Index of the LuGre bristle deflection.
pub const Z: usize = 2;

/// A mass sliding on LuGre friction between end stops.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Carriage {
    /// Mass, kg.
    pub mass: f64,
    /// Friction.
    pub friction: LuGre,
    /// End stops.
    pub stops: EndStops,
    /// Initial position, m.
    pub x0: f64,
}

/// Rates of the carriage and their partials.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CarriageEval {
    /// d(x, v, z)/dt.
    pub rates: [f64; 3],
    /// d(rates)/d(x, v, z).
    pub jac: [[f64; 3]; 3],
    /// d(rates)/d(driving force).
    pub d_force: [f64; 3],
    /// Friction force, N.
    pub friction: f64,
    /// End-stop force, N.
    pub stop: f64,
}

impl Carriage {
    /// Rates for state `c` = (x, v, z) under the driving force `force` (N):
    /// `x' = v`, `m v' = force - F_mu + F_stop`, `z'` per LuGre.
    pub fn eval(&self, c: &[f64; 3], force: f64) -> CarriageEval {
        let fr = self.friction.eval(c[V], c[Z]);
        let (fs, fs_x, fs_v) = self.stops.force(c[X], c[V]);
        let m = self.mass;
        CarriageEval {
            rates: [c[V], (force - fr.force + fs) / m, fr.dz],
            jac: [
                [0.0, 1.0, 0.0],
                [fs_x / m, (fs_v - fr.f_v) / m, -fr.f_z / m],
                [0.0, fr.dz_v, fr.dz_z],
            ],
            d_force: [0.0, 1.0 / m, 0.0],
            friction: fr.force,
            stop: fs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jacobian_matches_finite_differences() {
        let c = Carriage {
            mass: 200.0,
            friction: LuGre {
                sigma0: 2.15e6,
                sigma1: 6.368,
                kv: 1280.0,
                fc: 320.0,
                fs: 364.0,
                vs: 3.47e-3,
            },
            stops: EndStops {
                x_min: 0.0,
                x_max: 1.0,
                stiffness: 1e8,
                damping: 2e5,
            },
            x0: 1.0,
        };
        for s in [
            [0.5, 0.02, 1e-4],
            [1.00001, 0.001, -1e-4],
            [0.3, -4e-3, 5e-5],
        ] {
            let e = c.eval(&s, 1000.0);
            for k in 0..3 {
                let h = 1e-9;
                let mut up = s;
                let mut dn = s;
                up[k] += h;
                dn[k] -= h;
                let (a, b) = (c.eval(&up, 1000.0), c.eval(&dn, 1000.0));
                for r in 0..3 {
                    let fd = (a.rates[r] - b.rates[r]) / (2.0 * h);
                    assert!(
                        (fd - e.jac[r][k]).abs() <= 1e-5 * fd.abs().max(1.0),
                        "d{r}/d{k}: {} vs {fd}",
                        e.jac[r][k]
                    );
                }
            }
        }
    }
}
