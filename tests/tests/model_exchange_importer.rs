//! The estimator's FMI 3 Model Exchange importer (`validation::fmi::fmu3`, the
//! C API through libloading, with `fmi3GetDirectionalDerivative` that the
//! `fmi` crate lacks) on every built FMI 3 FMU: the life cycle, states and
//! derivatives as the model description names them, and the Jacobian of
//! the derivatives from directional derivatives against central
//! differences of `getContinuousStateDerivatives`, through nothing but the
//! C API.

use anyhow::{Context, Result, ensure};
use fmu_tests::{FmiVersion, dist_fmus, workspace_root};
use validation::fmi::fmu3::Fmu3;

/// Checks one FMU; the error names what disagreed.
fn check(path: &std::path::Path) -> Result<()> {
    let fmu = Fmu3::load(path)?;
    let states = fmu.description.continuous_states();
    let n = fmu.state_count();
    ensure!(n == states.len() && n > 0, "no continuous states");
    let mut inst = fmu.instantiate_model_exchange("importer")?;
    inst.initialize_model_exchange(1.0)?;
    let mut x0 = vec![0.0; n];
    let mut nominal = vec![0.0; n];
    inst.states(&mut x0)?;
    inst.nominals(&mut nominal)?;
    // The states are the variables the description names.
    for (i, &(state, _)) in states.iter().enumerate() {
        ensure!(
            inst.get_vr(state)? == x0[i],
            "state {i} differs from its variable"
        );
    }
    // A state near the initial one, off its kinks (as in the Python test).
    let x: Vec<f64> = (0..n)
        .map(|i| x0[i] + 0.01 * nominal[i].abs() * (1.0 + (i as f64 * 0.618) % 1.0 * 3.0))
        .collect();
    inst.set_states(&x)?;
    let mut dx = vec![0.0; n];
    inst.derivatives(&mut dx)?;
    for (i, &(_, der)) in states.iter().enumerate() {
        ensure!(
            inst.get_vr(der)? == dx[i],
            "der {i}: the variable and getContinuousStateDerivatives differ"
        );
    }
    let knowns: Vec<u32> = states.iter().map(|&(s, _)| s).collect();
    let jac = inst.derivative_jacobian(&knowns)?;
    let mut fd = vec![vec![0.0; n]; n];
    for j in 0..n {
        let h = 1e-6 * x[j].abs().max(nominal[j].abs());
        let (mut up, mut down) = (x.clone(), x.clone());
        up[j] += h;
        down[j] -= h;
        let (mut f_up, mut f_down) = (vec![0.0; n], vec![0.0; n]);
        inst.set_states(&up)?;
        inst.derivatives(&mut f_up)?;
        inst.set_states(&down)?;
        inst.derivatives(&mut f_down)?;
        for i in 0..n {
            fd[i][j] = (f_up[i] - f_down[i]) / (2.0 * h);
        }
    }
    // Scaled by the nominals; 1e-6 of each row's largest entry (1e-9 of
    // the largest overall for a row that is zero).
    let scaled = |m: &Vec<Vec<f64>>, i: usize, j: usize| m[i][j] * nominal[j] / nominal[i];
    let largest = (0..n)
        .flat_map(|i| (0..n).map(move |j| (i, j)))
        .map(|(i, j)| scaled(&fd, i, j).abs())
        .fold(0.0, f64::max);
    for i in 0..n {
        let row = (0..n)
            .map(|j| scaled(&fd, i, j).abs())
            .fold(1e-9 * largest, f64::max)
            .max(1e-300);
        for j in 0..n {
            let err = (scaled(&jac, i, j) - scaled(&fd, i, j)).abs() / row;
            ensure!(
                err <= 1e-6,
                "d der(state {i}) / d state {j}: directional derivative {}, central \
                 differences {} (scaled error {err:.2e})",
                jac[i][j],
                fd[i][j]
            );
        }
    }
    // An event changes nothing in these circuits' states.
    inst.set_states(&x)?;
    inst.event(|_| Ok(()))?;
    let mut after = vec![0.0; n];
    inst.states(&mut after)?;
    ensure!(after == x, "an event changed the states");
    Ok(())
}

#[test]
fn every_fmi3_fmu_runs_as_model_exchange_through_the_c_api() {
    let fmus = dist_fmus(&workspace_root().join("dist"), FmiVersion::Fmi3)
        .expect("the FMI 3 FMUs in dist/");
    assert!(!fmus.is_empty(), "no FMI 3 FMUs in dist/fmi3");
    let failures: Vec<String> = fmus
        .iter()
        .filter_map(|(model, path)| {
            check(path)
                .with_context(|| model.clone())
                .err()
                .map(|e| format!("{e:#}"))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
