//! The hose FMUs reproduce the frequency-domain numbers of the model
//! description through FMI: the first resonance and the amplitude ratio of
//! the H form with one and seven segments (p1 / p2, a pressure ratio in
//! plain dB), the Y form's first resonance, and the step-response
//! oscillation frequency, within 1 % and 0.5 dB. Needs the packaged FMUs
//! (`cargo run --release -p build-fmu`).

use validation::fmi::fmu3::Fmu3;
use validation::freq::{SweepOptions, frequencies, resonances, sweep};
use validation::repo_root;

fn load(model: &str) -> Fmu3 {
    let path = repo_root().join(format!("dist/fmi3/{model}.fmu"));
    assert!(
        path.exists(),
        "{} is missing: run `cargo run --release -p build-fmu` first",
        path.display()
    );
    Fmu3::load(&path).unwrap()
}

/// The highest resonance peak of `output` between `fmin` and `fmax`.
fn peak(model: &str, input: &str, output: &str, n: u32, fmin: f64, fmax: f64) -> (f64, f64) {
    let fmu = load(model);
    let opts = SweepOptions {
        input: input.into(),
        outputs: vec![output.into()],
        amplitude: 3e5,
        settings: vec![("n".into(), f64::from(n))],
        frequencies: frequencies(fmin, fmax, 41, false),
        settle: 0.2,
        transient: 0.3,
        periods: 5,
        steps_per_period: 64,
        max_step: 1e-3,
        rtol: 1e-6,
    };
    let r = sweep(&fmu, &opts, false).unwrap();
    resonances(&r.points, 0)
        .into_iter()
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .expect("a resonance peak")
}

fn within(value: f64, expected: f64, rel: f64, what: &str) {
    assert!(
        (value / expected - 1.0).abs() <= rel,
        "{what}: {value} vs {expected} in the model description"
    );
}

#[test]
fn h_form_first_resonance_and_ratio_one_segment() {
    let (f, db) = peak("HoseH", "p2", "p1", 1, 95.0, 115.0);
    within(f, 105.7, 0.01, "HoseH n = 1 resonance [Hz]");
    assert!(
        (db - 23.7).abs() <= 0.5,
        "HoseH n = 1 ratio {db} dB vs 23.7 dB in the model description"
    );
    let (fq, _) = peak("HoseH", "p2", "Q2", 1, 95.0, 115.0);
    within(fq, 105.9, 0.01, "HoseH n = 1 Q2 resonance [Hz]");
}

#[test]
fn h_form_first_resonance_and_ratio_seven_segments() {
    let (f, db) = peak("HoseH", "p2", "p1", 7, 88.0, 108.0);
    within(f, 97.5, 0.01, "HoseH n = 7 resonance [Hz]");
    assert!(
        (db - 26.8).abs() <= 0.5,
        "HoseH n = 7 ratio {db} dB vs 26.8 dB in the model description"
    );
}

#[test]
fn y_form_first_resonance() {
    let (f, _) = peak("HoseY", "p2", "Q1", 1, 200.0, 225.0);
    within(f, 212.0, 0.01, "HoseY Q1 resonance [Hz]");
}

/// Oscillation frequency of p1 after p2 steps from 100 to 110 bar (1e7 to
/// 1.1e7 Pa).
fn step_frequency(n: u32) -> f64 {
    let fmu = load("HoseH");
    let mut inst = fmu.instantiate("step").unwrap();
    inst.set_parameters(&[("n".into(), f64::from(n)), ("rtol".into(), 1e-8)])
        .unwrap();
    inst.initialize(1.0).unwrap();
    let (p2, p1) = (fmu.vr("p2").unwrap(), fmu.vr("p1").unwrap());
    let h = 2e-5;
    let mut trace = Vec::new();
    for k in 0..10_000 {
        let t = k as f64 * h;
        inst.set_vr(p2, if t >= 0.01 - 1e-12 { 1.1e7 } else { 1e7 })
            .unwrap();
        assert_eq!(inst.do_step(t, h), 0);
        trace.push((t + h, inst.get_vr(p1).unwrap()));
    }
    // The dominant frequency of p1 after the step: the peak of its Fourier
    // magnitude over 0.01..0.2 s (mean removed), scanned in 0.02 Hz steps
    // (several segments add faint higher modes that spoil a count of maxima).
    let window: Vec<(f64, f64)> = trace.into_iter().filter(|(t, _)| *t > 0.01).collect();
    let mean = window.iter().map(|(_, p)| p).sum::<f64>() / window.len() as f64;
    let magnitude = |f: f64| {
        let w = 2.0 * std::f64::consts::PI * f;
        let (re, im) = window.iter().fold((0.0, 0.0), |(re, im), (t, p)| {
            (
                re + (p - mean) * (w * t).cos(),
                im + (p - mean) * (w * t).sin(),
            )
        });
        re.hypot(im)
    };
    (0..4000)
        .map(|i| 60.0 + 0.02 * i as f64)
        .max_by(|a, b| magnitude(*a).total_cmp(&magnitude(*b)))
        .expect("frequencies")
}

#[test]
fn step_response_oscillation_frequency() {
    within(
        step_frequency(1),
        107.6,
        0.01,
        "HoseH n = 1 step oscillation [Hz]",
    );
    within(
        step_frequency(7),
        99.5,
        0.01,
        "HoseH n = 7 step oscillation [Hz]",
    );
}
