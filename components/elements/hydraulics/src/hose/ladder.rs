//! Analytic checks of the lumped hose ladder (the hose, "Analytic
//! check for the lumped ladder"): wave speed of the lumped line, the
//! quarter-wave frequency and the first mode of an undamped n-segment ladder.

use std::f64::consts::PI;

/// First natural frequency, Hz, of the undamped, uncorrected HoseH ladder of
/// `n` equal C-L segments (blocked inlet, constant-pressure outlet) of a
/// hose of length `hose_length` (m) whose lumped line has wave speed `a`
/// (m/s): `(n a / (pi L_hose)) sin(pi / (2 (2n + 1)))`.
pub fn lumped_ladder_first_mode(n: usize, a: f64, hose_length: f64) -> f64 {
    let n = n as f64;
    n * a / (PI * hose_length) * (PI / (2.0 * (2.0 * n + 1.0))).sin()
}

/// Quarter-wave frequency `a / (4 L_hose)` of a hose of length
/// `hose_length` (m) with wave speed `a` (m/s), Hz.
pub fn quarter_wave_frequency(a: f64, hose_length: f64) -> f64 {
    a / (4.0 * hose_length)
}

/// Wave speed of a lumped line whose segments of length `segment_length`
/// (m) have inertance `inertance` (Pa s2/m3) and compliance `compliance`
/// (m3/Pa): `a = 1 / sqrt((L / l)(C / l))`, m/s.
pub fn ladder_wave_speed(segment_length: f64, inertance: f64, compliance: f64) -> f64 {
    segment_length / (inertance * compliance).sqrt()
}

/// Resonance `1 / (2 pi sqrt(kL L kC C))` of one corrected C-L segment with
/// inertance `inertance` (Pa s2/m3), compliance `compliance` (m3/Pa) and
/// corrections `k_l`, `k_c` (1), Hz.
pub fn lumped_resonance(inertance: f64, compliance: f64, k_l: f64, k_c: f64) -> f64 {
    1.0 / (2.0 * PI * (k_l * inertance * k_c * compliance).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hose::segment::{HoseParameters, HoseSegment};

    fn rel(a: f64, b: f64) -> f64 {
        (a - b).abs() / b.abs()
    }

    /// With C and L of the whole hose (n = 1, l = L_hose) and
    /// kL = kC = 2/pi: 1/(2 pi sqrt(4/pi^2 L C)) = 1/(4 sqrt(L C)) and
    /// sqrt(L C) = L_hose / a, so the corrected resonance is a / (4 L_hose).
    /// The lumped a equals sqrt(K_eff / rho) because L and V_H use the same
    /// flow diameter: (L/l)(C/l) = rho / (pi D^2/4) * (pi D^2/4) / K_eff.
    #[test]
    fn corrected_single_segment_is_the_quarter_wave() {
        for params in [HoseParameters::reference(), HoseParameters::as_stated()] {
            let seg = HoseSegment::new(&params, 1).unwrap();
            assert!((seg.k_l - 2.0 / PI).abs() < 1e-15);
            let st = seg.state(1e7);
            let a = ladder_wave_speed(seg.length(), st.inertance(), st.compliance());
            assert!(rel(a, st.wave_speed()) < 1e-13);
            let lumped = lumped_resonance(st.inertance(), st.compliance(), seg.k_l, seg.k_c);
            let quarter = quarter_wave_frequency(st.wave_speed(), params.hose_length);
            assert!(rel(lumped, quarter) < 1e-13);
            // Same through the ladder formula: n = 1 gives a / (2 pi L_hose).
            let mode = lumped_ladder_first_mode(1, a, params.hose_length);
            assert!(rel(mode / (seg.k_l * seg.k_c).sqrt(), quarter) < 1e-13);
        }
        let st = HoseSegment::new(&HoseParameters::reference(), 1)
            .unwrap()
            .state(1e7);
        assert!((quarter_wave_frequency(st.wave_speed(), 2.0) - 106.0).abs() < 0.05);
    }

    /// Number of eigenvalues below `lambda` of the ladder's stiffness matrix
    /// tridiag(-1, [1, 2, ..., 2], -1) (Sturm sequence).
    fn eigenvalues_below(n: usize, lambda: f64) -> usize {
        let mut count = 0;
        let mut q = 1.0 - lambda;
        for i in 0..n {
            if i > 0 {
                q = 2.0 - lambda - 1.0 / q;
            }
            if q < 0.0 {
                count += 1;
            }
        }
        count
    }

    /// The ladder C dp_i/dt = Q_{i-1} - Q_i (Q_0 = 0), L dQ_i/dt = p_i - p_{i+1}
    /// (p_{n+1} = 0) gives -L C p'' = K p; its lowest eigenvalue
    /// 4 sin^2(pi / (2 (2n + 1))) is the formula's mode.
    #[test]
    fn ladder_formula_is_the_lowest_eigenvalue() {
        let (a, hose_length) = (848.0, 2.0);
        for n in 1..=20 {
            let l = hose_length / n as f64;
            let lc = (l / a) * (l / a); // L C of one segment
            let omega = 2.0 * PI * lumped_ladder_first_mode(n, a, hose_length);
            let lambda = omega * omega * lc;
            assert_eq!(eigenvalues_below(n, lambda * (1.0 - 1e-9)), 0);
            assert_eq!(eigenvalues_below(n, lambda * (1.0 + 1e-9)), 1);
        }
        // n -> infinity: the quarter wave a / (4 L_hose), from below with a
        // relative error of about 1 / (2n).
        let f = lumped_ladder_first_mode(2000, a, hose_length);
        let quarter = quarter_wave_frequency(a, hose_length);
        assert!(f < quarter && rel(f, quarter) < 3e-4);
    }
}
