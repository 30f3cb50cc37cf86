//! Every description in `examples/` reads without a diagnostic and has
//! states; and, while the engine FMU that will run them is not there, the
//! crane boom is integrated here in process (linearly implicit Euler on
//! the assembly's rates and Jacobian) to see that its physics behave: the
//! load rises, is held by the counterbalance valve with the valve centred,
//! and the pressures are what the parts' laws say. The figures that count
//! are the independent references' (validation/python/reference/); this
//! is a plausibility check of the files.

use circuit_file::{Circuit, read};
use std::path::{Path, PathBuf};

fn examples() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
}

fn read_example(path: &Path) -> Result<Circuit, String> {
    let text = std::fs::read_to_string(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    read(&text, &name).map_err(|d| {
        d.iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    })
}

#[test]
fn every_example_reads_and_has_states() {
    let files = examples();
    assert!(!files.is_empty(), "no examples in {files:?}");
    for path in &files {
        match read_example(path) {
            Ok(c) => {
                assert!(c.assembly.state_count() > 0, "{}: no state", path.display());
                assert!(!c.outputs.is_empty(), "{}: no output", path.display());
                assert!(
                    c.experiment.stop_time.is_some(),
                    "{}: no stop time",
                    path.display()
                );
                println!(
                    "{}: {} ({} states, {} inputs, {} outputs)",
                    path.display(),
                    c.name,
                    c.assembly.state_count(),
                    c.inputs.len(),
                    c.outputs.len()
                );
            }
            Err(message) => panic!("{}:\n{message}", path.display()),
        }
    }
}

/// `a x = b` by Gaussian elimination with partial pivoting (`a` column
/// major, n x n); `b` becomes `x`.
fn solve(a: &mut [f64], b: &mut [f64], n: usize) {
    for k in 0..n {
        let p = (k..n)
            .max_by(|&i, &j| a[k * n + i].abs().total_cmp(&a[k * n + j].abs()))
            .unwrap();
        if p != k {
            for c in 0..n {
                a.swap(c * n + k, c * n + p);
            }
            b.swap(k, p);
        }
        let pivot = a[k * n + k];
        assert!(pivot != 0.0, "singular Newton matrix");
        for i in k + 1..n {
            let f = a[k * n + i] / pivot;
            if f != 0.0 {
                for c in k..n {
                    a[c * n + i] -= f * a[c * n + k];
                }
                b[i] -= f * b[k];
            }
        }
    }
    for k in (0..n).rev() {
        let mut s = b[k];
        for c in k + 1..n {
            s -= a[c * n + k] * b[c];
        }
        b[k] = s / a[k * n + k];
    }
}

/// Integrates `circuit` from its start state over `[0, stop]` with the
/// inputs `u(t)`, by linearly implicit Euler at step `h`; returns the
/// outputs (by name) at the times `at`.
fn integrate(
    circuit: &Circuit,
    u: impl Fn(f64) -> Vec<f64>,
    stop: f64,
    h: f64,
    at: &[f64],
) -> Vec<Vec<(String, f64)>> {
    let a = &circuit.assembly;
    let n = a.state_count();
    let mut x = vec![0.0; n];
    a.initial_state(&u(0.0), &mut x);
    let mut dx = vec![0.0; n];
    let mut jac = vec![0.0; n * n];
    let mut samples = Vec::new();
    let mut next = 0;
    let steps = (stop / h).round() as usize;
    let sample = |x: &[f64], t: f64| -> Vec<(String, f64)> {
        let mut y = vec![0.0; circuit.outputs.len()];
        circuit.output_values(&u(t), x, &mut y);
        circuit
            .outputs
            .iter()
            .map(|o| o.name.clone())
            .zip(y)
            .collect()
    };
    for k in 0..=steps {
        let t = k as f64 * h;
        while next < at.len() && at[next] <= t + 0.5 * h {
            samples.push(sample(&x, t));
            next += 1;
        }
        if k == steps {
            break;
        }
        jac.fill(0.0);
        let input = u(t + h);
        a.evaluate(&input, &x, &mut dx, Some((&mut jac, n)));
        // (I - h J) d = h f(x)
        for v in jac.iter_mut() {
            *v *= -h;
        }
        for i in 0..n {
            jac[i * n + i] += 1.0;
            dx[i] *= h;
        }
        solve(&mut jac, &mut dx, n);
        for i in 0..n {
            x[i] += dx[i];
        }
        assert!(x.iter().all(|v| v.is_finite()), "diverged at t = {t}");
    }
    samples
}

fn value(sample: &[(String, f64)], name: &str) -> f64 {
    sample
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no output {name}"))
        .1
}

#[test]
fn crane_boom_lifts_holds_and_lowers() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/crane_boom.toml");
    let circuit = read_example(&path).unwrap_or_else(|m| panic!("{m}"));
    // Lift for 2 s from t = 0.5 s, centre the valve for 5 s, lower for
    // 2 s from t = 7.5 s, centre again.
    let u = |t: f64| {
        vec![if (0.5..2.5).contains(&t) {
            -10.0
        } else if (7.5..9.5).contains(&t) {
            6.0
        } else {
            0.0
        }]
    };
    let times = [0.4, 2.4, 3.5, 7.4, 9.4, 11.0];
    let out = integrate(&circuit, u, 11.0, 1e-4, &times);
    for (t, s) in times.iter().zip(&out) {
        println!(
            "t = {t:4} s: s = {:7.2} mm, v = {:7.2} mm/s, p_A = {:6.1} bar, p_B = {:6.1} bar, line B {:6.1} bar, pump {:6.1} bar, relief {:5.1} L/min, cbv {:6.2} L/min",
            value(s, "s") * 1e3,
            value(s, "v") * 1e3,
            value(s, "p_A") * 1e-5,
            value(s, "p_B") * 1e-5,
            value(s, "p_line_B") * 1e-5,
            value(s, "p_pump") * 1e-5,
            value(s, "q_relief") * 6e4,
            value(s, "q_cbv") * 6e4,
        );
    }
    let g = 9.80665;
    let hold_pressure = 6000.0 * g / 50.27e-4;
    // Before the valve moves: held at rest, the rod side at m g / A2, the
    // pump's flow over the relief valve.
    let s0 = &out[0];
    assert!((value(s0, "p_B") / hold_pressure - 1.0).abs() < 0.01);
    assert!(value(s0, "v").abs() < 1e-3);
    assert!((value(s0, "q_relief") * 6e4 - 40.0).abs() < 0.5);
    // Lifting: the rod retracts at about Q / A2 = 133 mm/s, nothing over
    // the relief valve.
    let lift = &out[1];
    assert!(value(lift, "v") < -0.12 && value(lift, "v") > -0.14);
    assert!(value(lift, "q_relief").abs() * 6e4 < 0.1);
    // Held with the valve centred: the load stays within a millimetre over
    // 3.9 s, the rod side back at the holding pressure.
    let (held, later) = (&out[2], &out[3]);
    let sink = value(later, "s") - value(held, "s");
    assert!((0.0..1e-3).contains(&sink), "sink {sink} m");
    assert!((value(later, "p_B") / hold_pressure - 1.0).abs() < 0.02);
    // Lowering under control: the rod extends, the pump's whole flow into
    // A (v = Q / A1 = 85 mm/s), the pilot holding the valve open.
    let lower = &out[4];
    assert!(value(lower, "v") > 0.07 && value(lower, "v") < 0.1);
    assert!(value(lower, "q_cbv") > 0.0);
    // Centred again: stopped and held.
    assert!(value(&out[5], "v").abs() < 1e-3);
}
