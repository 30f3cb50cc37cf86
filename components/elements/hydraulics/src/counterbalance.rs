//! Counterbalance (load-holding) valve: a pilot-assisted poppet between the
//! load side of an actuator and the line to the directional valve, with a
//! built-in check valve for free flow into the load.
//!
//! With the load-side pressure `p_load`, the outlet pressure `p_out` and the
//! pilot pressure `p_pilot` (all Pa), the opening pressure
//! `p_open = p_load + r p_pilot` (`r` the pilot ratio) lifts the poppet
//! once it exceeds the setting `p_set`:
//!
//! ```text
//! x      = (p_load + r p_pilot - p_set) / p_band
//! Q_main = s(x) f_Kmax(p_load - p_out)
//! Q      = Q_main - Q_check(p_out, p_load)        (positive load -> out)
//! ```
//!
//! where `s` is the smooth opening fraction of [`crate::check_valve`],
//! `f_Kmax` the regularised orifice law of [`crate::orifice`] with the
//! fully open coefficient `k_max`, and `Q_check` the flow of the built-in
//! [`CheckValve`] from the outlet into the load (its seat leakage is the
//! valve's leakage).
//!
//! Source: the orifice law is Merritt's (Hydraulic Control Systems, 1967);
//! the opening condition is the static force balance on the poppet, the
//! load pressure acting on the seat area and the pilot pressure on a pilot
//! area `r` times larger, against a spring preloaded to `p_set` times the
//! seat area. The outlet's own pressure on the poppet (which some designs
//! feel, some vent) is neglected, as are the poppet's dynamics and flow
//! forces. The opening is regularised over the band `p_band` exactly as
//! the check valve's is, and for the same reasons (continuous flow and
//! slope, finite Newton iterations). Once the poppet is open the flow goes
//! whichever way the pressure difference drives it.

use crate::check_valve::{CheckValve, smooth_opening};
use crate::orifice::Orifice;
use crate::validate::{non_negative, positive};

/// A counterbalance valve: pilot-opened poppet from load to outlet, free
/// flow from outlet to load through its check valve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CounterbalanceValve {
    /// Flow coefficient of the fully open poppet k_max, m3/(s sqrt(Pa)).
    pub k_max: f64,
    /// Transition pressure of the poppet's orifice law, Pa.
    pub p_tr: f64,
    /// Setting p_set, Pa: the load pressure that opens the valve without
    /// pilot pressure (usually about 1.3 times the largest load pressure).
    pub p_set: f64,
    /// Pilot ratio r (1): pilot area over seat area, typically 3 to 10.
    pub pilot_ratio: f64,
    /// Opening band p_band, Pa: fully open at `p_open = p_set + p_band`.
    pub p_band: f64,
    /// The built-in check valve, inlet at the outlet port, outlet at the
    /// load port.
    pub check: CheckValve,
}

/// Flow through a counterbalance valve and its partials.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CounterbalanceFlow {
    /// Flow from the load port to the outlet port, m3/s (negative: free
    /// flow into the load through the check valve).
    pub q: f64,
    /// dQ/dp_load, m3/(s Pa).
    pub d_load: f64,
    /// dQ/dp_out, m3/(s Pa).
    pub d_out: f64,
    /// dQ/dp_pilot, m3/(s Pa).
    pub d_pilot: f64,
}

impl CounterbalanceValve {
    /// A counterbalance valve with checked parameters: `k_max`, `p_tr`,
    /// `p_set` and `p_band` positive, `pilot_ratio` not negative, all
    /// finite, and a valid check valve.
    pub fn new(
        k_max: f64,
        p_tr: f64,
        p_set: f64,
        pilot_ratio: f64,
        p_band: f64,
        check: CheckValve,
    ) -> Result<Self, String> {
        positive("flow coefficient", "k_max", k_max, "m3/(s sqrt(Pa))")?;
        positive("orifice transition pressure", "p_tr", p_tr, "Pa")?;
        positive("setting", "p_set", p_set, "Pa")?;
        non_negative("pilot ratio", "pilot_ratio", pilot_ratio, "(1)")?;
        positive("opening band", "p_band", p_band, "Pa")?;
        check
            .validate()
            .map_err(|e| format!("built-in check valve: {e}"))?;
        Ok(CounterbalanceValve {
            k_max,
            p_tr,
            p_set,
            pilot_ratio,
            p_band,
            check,
        })
    }

    /// The opening pressure `p_load + r p_pilot`, Pa.
    #[inline]
    pub fn opening_pressure(&self, p_load: f64, p_pilot: f64) -> f64 {
        p_load + self.pilot_ratio * p_pilot
    }

    /// Flow from load to outlet and its partials with respect to the three
    /// pressures (Pa).
    #[inline]
    pub fn flow(&self, p_load: f64, p_out: f64, p_pilot: f64) -> CounterbalanceFlow {
        let x = (self.opening_pressure(p_load, p_pilot) - self.p_set) / self.p_band;
        let (s, ds) = smooth_opening(x);
        let ds = ds / self.p_band;
        // The check valve passes flow from the outlet into the load.
        let (qc, dc_out, dc_load) = self.check.flow(p_out, p_load);
        let mut r = CounterbalanceFlow {
            q: -qc,
            d_load: -dc_load,
            d_out: -dc_out,
            d_pilot: 0.0,
        };
        if s > 0.0 {
            let law = Orifice {
                k: self.k_max,
                p_tr: self.p_tr,
            };
            let (f, df) = law.flow_and_slope(p_load - p_out);
            r.q += s * f;
            r.d_load += ds * f + s * df;
            r.d_out -= s * df;
            r.d_pilot += ds * self.pilot_ratio * f;
        }
        r
    }

    /// The switching functions: the poppet's `p_open - p_set` (it lifts)
    /// and `p_open - p_set - p_band` (fully open), then the check valve's
    /// two ([`CheckValve::switching`] from outlet to load). Flow and
    /// partials are continuous across all four.
    pub fn switching(&self, p_load: f64, p_out: f64, p_pilot: f64) -> [f64; 4] {
        let x = self.opening_pressure(p_load, p_pilot) - self.p_set;
        let [c0, c1] = self.check.switching(p_out, p_load);
        [x, x - self.p_band, c0, c1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Set at 250 bar, pilot ratio 4, opening over 10 bar; 8 mm seat; the
    /// check valve cracks at 2 bar.
    fn example() -> CounterbalanceValve {
        let k = Orifice::circular(0.65, 8e-3, 870.0, 1e4).k;
        let check = CheckValve::new(k, 1e4, 2e5, 2e5, 1e-13).unwrap();
        CounterbalanceValve::new(k, 1e4, 2.5e7, 4.0, 1e6, check).unwrap()
    }

    fn assert_partials(v: &CounterbalanceValve, p: [f64; 3]) {
        let e = v.flow(p[0], p[1], p[2]);
        let analytic = [e.d_load, e.d_out, e.d_pilot];
        let h = 10.0;
        let mut fds = [0.0; 3];
        for i in 0..3 {
            let (mut a, mut b) = (p, p);
            a[i] += h;
            b[i] -= h;
            fds[i] = (v.flow(a[0], a[1], a[2]).q - v.flow(b[0], b[1], b[2]).q) / (2.0 * h);
        }
        let scale = fds.iter().fold(v.check.g_leak, |m, d| m.max(d.abs()));
        for i in 0..3 {
            assert!(
                (analytic[i] - fds[i]).abs() <= 1e-5 * scale,
                "partial {i} at {p:?}: {} vs {}",
                analytic[i],
                fds[i]
            );
        }
    }

    #[test]
    fn partials_agree_with_central_differences() {
        let v = example();
        // Holding a load (closed), cracking by load pressure alone, by
        // pilot, inside the band, near full opening, fully open, reversed
        // through the open poppet, and free flow through the check valve
        // near its cracking and full opening.
        for p in [
            [1.5e7, 1e5, 0.0],
            [2.49e7, 1e5, 0.0],
            [2.501e7, 1e5, 0.0],
            [1e7, 2e5, 3.74e6],
            [1e7, 2e5, 3.76e6],
            [1e7, 2e5, 3.875e6],
            [1e7, 2e5, 3.99e6],
            [1e7, 2e5, 4.01e6],
            [8e6, 1e6, 6e6],
            [2e6, 1e7, 8e6],
            [5e6, 5e6 + 1.99e5, 0.0],
            [5e6, 5e6 + 2.01e5, 0.0],
            [5e6, 5e6 + 3e5, 0.0],
            [5e6, 5e6 + 3.99e5, 0.0],
            [5e6, 5e6 + 4.01e5, 0.0],
            [5e6, 2e7, 0.0],
        ] {
            assert_partials(&v, p);
        }
    }

    #[test]
    fn holds_the_load_until_pilot_opens_it_and_lets_flow_in_freely() {
        let v = example();
        let load = 1.5e7;
        // Holding: only the check valve's seat leakage, backwards across it.
        let held = v.flow(load, 1e5, 0.0);
        assert_eq!(held.q, v.check.g_leak * (load - 1e5));
        assert_eq!(held.d_pilot, 0.0);
        // The pilot needed: (25 - 15) MPa / 4 = 2.5 MPa cracks it, 0.25 MPa
        // more opens it fully, and then the poppet is the orifice.
        assert_eq!(v.flow(load, 1e5, 2.5e6).q, held.q);
        let open = v.flow(load, 1e5, 2.75e6);
        let orifice = Orifice {
            k: v.k_max,
            p_tr: v.p_tr,
        };
        assert!((open.q - orifice.flow(load - 1e5) - held.q).abs() <= 1e-14 * open.q);
        assert_eq!(open.d_pilot, 0.0);
        // Filling the load side: free flow through the check valve, no pilot.
        let filling = v.flow(5e6, 1e7, 0.0);
        let (qc, _, _) = v.check.flow(1e7, 5e6);
        assert_eq!(filling.q, -qc);
        assert!(filling.q < -1e-3);
    }

    #[test]
    fn switching_marks_the_poppet_and_the_check_valve() {
        let v = example();
        let s = v.switching(1.5e7, 1e5, 2.5e6);
        assert_eq!(s[0], 0.0);
        assert_eq!(s[1], -1e6);
        assert_eq!(s[2], 1e5 - 1.5e7 - 2e5);
    }

    #[test]
    fn constructor_rejects_bad_parameters_by_name() {
        let ok = example();
        let new =
            |k, p_set, r, band, check| CounterbalanceValve::new(k, 1e4, p_set, r, band, check);
        assert_eq!(
            new(ok.k_max, 2.5e7, -3.0, 1e6, ok.check).unwrap_err(),
            "pilot ratio pilot_ratio = -3 (1) must not be negative"
        );
        assert_eq!(
            new(ok.k_max, 0.0, 4.0, 1e6, ok.check).unwrap_err(),
            "setting p_set = 0 Pa must be positive"
        );
        assert!(
            new(0.0, 2.5e7, 4.0, 1e6, ok.check)
                .unwrap_err()
                .starts_with("flow coefficient k_max = 0")
        );
        assert!(
            new(ok.k_max, 2.5e7, 4.0, -1.0, ok.check)
                .unwrap_err()
                .contains("p_band = -1 Pa")
        );
        let bad_check = CheckValve {
            p_crack: -5.0,
            ..ok.check
        };
        assert_eq!(
            new(ok.k_max, 2.5e7, 4.0, 1e6, bad_check).unwrap_err(),
            "built-in check valve: cracking pressure p_crack = -5 Pa must not be negative"
        );
    }
}
