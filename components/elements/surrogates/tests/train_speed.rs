//! Training speed on the size the crate is meant for: 200,000 samples of 5
//! inputs, a 5-40-40-1 network and a 30-model LOLIMOT. Ignored by default
//! (minutes in a debug build); run with
//! `cargo test --release -p surrogates --test train_speed -- --ignored --nocapture`.

use std::time::Instant;

use surrogates::{Dataset, LolimotConfig, MlpConfig, Rng, train_lolimot, train_mlp};

/// A time series like the valve drive's volume pressure: inputs valve flow
/// Qv, outflow Q3 (m^3/s), bulk modulus B (Pa), volume Vv (m^3) and the
/// previous pressure; output the pressure one step (1e-4 s) later, with a
/// pressure-dependent leak so the map is nonlinear. The inputs are smooth
/// random signals (filtered noise).
fn valve_series(n: usize, seed: u64) -> Dataset {
    let dt = 1e-4;
    let mut rng = Rng::new(seed);
    let mut d = Dataset::new(5, 1)
        .unwrap()
        .with_names(&["Qv", "Q3", "B", "Vv", "pv_prev"], &["pv"])
        .unwrap()
        .with_period(dt)
        .unwrap();
    let (mut qv, mut q3, mut b, mut vv) = (0.0f64, 0.0f64, 1.3e9f64, 5e-4f64);
    let mut p = 5e6f64;
    for _ in 0..n {
        qv = 0.999 * qv + 2e-5 * rng.normal();
        q3 = 0.999 * q3 + 2e-5 * rng.normal();
        b = (b + 2e6 * rng.normal()).clamp(1e9, 1.6e9);
        vv = (vv + 2e-6 * rng.normal()).clamp(1e-4, 1e-3);
        let leak = 2e-11 * p.max(0.0).sqrt() * p.signum() * 1e3;
        let p_next = (p + dt * b / vv * (qv - q3 - leak)).clamp(0.0, 2.5e7);
        d.push(&[qv, q3, b, vv, p], &[p_next]);
        p = p_next;
    }
    d
}

#[test]
#[ignore]
fn mlp_5_40_40_1_on_200k_samples() {
    let data = valve_series(200_000, 1);
    let config = MlpConfig {
        hidden: vec![40, 40],
        block: 2000,
        max_epochs: 60,
        patience: 10,
        verbose: true,
        progress_every: 5,
        ..MlpConfig::default()
    };
    let t0 = Instant::now();
    let (s, r) = train_mlp(&data, &config).unwrap();
    let per_epoch = t0.elapsed().as_secs_f64() / r.train_mse.len() as f64;
    eprintln!(
        "MLP 5-40-40-1, 200k samples: {} epochs in {:.1} s ({per_epoch:.2} s per epoch), best \
         epoch {}, test RMSE {:.4e} Pa ({:.3e} normalized)\n{}",
        r.train_mse.len(),
        r.wall_time.as_secs_f64(),
        r.best_epoch,
        r.test_rmse[0],
        r.test_rmse_normalized[0],
        s.note()
    );
}

#[test]
#[ignore]
fn lolimot_30_models_on_200k_samples() {
    let data = valve_series(200_000, 1);
    let config = LolimotConfig {
        max_models: 30,
        block: 2000,
        verbose: true,
        ..LolimotConfig::default()
    };
    let (s, r) = train_lolimot(&data, &config).unwrap();
    eprintln!(
        "LOLIMOT 30 models, 200k samples: {:.1} s, test RMSE {:.4e} Pa ({:.3e} normalized)\n{}",
        r.wall_time.as_secs_f64(),
        r.outputs[0].test_rmse,
        r.outputs[0].test_rmse_normalized,
        s.note()
    );
    assert!(r.wall_time.as_secs() < 60);
}
