//! Unit tests of the LiftActuator model, and the behaviour of the paper's
//! lift (its Fig. 4) through the FMI calls.

use super::*;
use fmu_core::Record;
use fmu_core::testing::TestMaster;

fn model() -> LiftActuator {
    LiftActuator::configure(
        &Params::defaults(),
        &Context::new(&fmu_core::ResourceFolder::Unavailable(String::new())),
    )
    .unwrap()
}

#[test]
fn table_follows_core_conventions_and_validates() {
    let desc = fmu_core::checked_description::<LiftActuator, NX>().unwrap();
    let names: Vec<&str> = desc.variables.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(
        &names[..10],
        &[
            "u", "F_ext", "x_p", "v_p", "p_A", "p_B", "Q_A", "Q_B", "x_v", "F_f"
        ]
    );
    // The valve group comes first.
    assert_eq!(names[10], "p_S");
    // fmu-core's variables follow; time is the last.
    assert_eq!(names.last(), Some(&"time"));
}

#[test]
fn jacobian_matches_finite_differences() {
    let m = model();
    let nominal = m.nominal();
    for (u, x) in [
        (1.0, [0.008, 0.3, 5.9e6, 1.1e6, 0.6, 4.1]),
        (0.0, [0.0, 0.0, 1.02e5, 0.99e5, -1e-5, 1e-4]),
        (-0.7, [-0.005, -0.1, 3e6, 6e6, 1.00004, -0.02]),
        (0.3, [0.002, 0.02, 2e6, 1.5e6, 0.4, 3e-4]),
    ] {
        let u = Inputs { u, F_ext: 250.0 };
        let x = SVector::<f64, NX>::from(x);
        let mut j = SMatrix::zeros();
        let (f, analytic) = m.rates_and_jacobian(&u, &x, &mut j);
        assert!(analytic);
        assert_eq!(f, m.rates(&u, &x));
        for c in 0..NX {
            let h = 1e-7 * x[c].abs().max(nominal[c] * 1e-2);
            let (mut up, mut dn) = (x, x);
            up[c] += h;
            dn[c] -= h;
            let fd = (m.rates(&u, &up) - m.rates(&u, &dn)) / (2.0 * h);
            for r in 0..NX {
                let scale = (0..NX)
                    .map(|k| (j[(r, k)] * nominal[k]).abs())
                    .fold(0.0, f64::max);
                assert!(
                    ((fd[r] - j[(r, c)]) * nominal[c]).abs() <= 1e-5 * scale.max(1e-30),
                    "x {x:?}: J[{r},{c}] = {} vs FD {}",
                    j[(r, c)],
                    fd[r]
                );
            }
        }
    }
}

/// One sample of the lift: time and the outputs that Fig. 4 shows.
#[derive(Debug, Clone, Copy)]
struct Sample {
    t: f64,
    x_p: f64,
    v_p: f64,
    p_a: f64,
    p_b: f64,
}

/// The paper's experiment through the FMI calls: 5 s at 1 ms, u = 0 until
/// 1 s, then 1.
fn lift() -> Vec<Sample> {
    let mut fmu = TestMaster::<LiftActuator, NX>::new();
    fmu.enter_initialization().unwrap();
    fmu.exit_initialization().unwrap();
    let mut trace = Vec::new();
    for n in 0..5000 {
        let t = n as f64 * 1e-3;
        fmu.set("u", if n >= 1000 { 1.0 } else { 0.0 }).unwrap();
        fmu.step(1e-3).unwrap();
        trace.push(Sample {
            t: t + 1e-3,
            x_p: fmu.get("x_p").unwrap(),
            v_p: fmu.get("v_p").unwrap(),
            p_a: fmu.get("p_A").unwrap(),
            p_b: fmu.get("p_B").unwrap(),
        });
    }
    trace
}

#[test]
fn the_lift_shows_the_papers_fig_4() {
    let (ps, pt) = (7.6e6, 1e5);
    let trace = lift();
    let during = |a: f64, b: f64| trace.iter().filter(move |s| s.t > a && s.t <= b);
    // Before the command the load rests on the lower stop and both
    // chambers vent to tank.
    for s in during(0.5, 1.0) {
        assert!(s.x_p.abs() < 2e-5 && s.v_p.abs() < 1e-4, "{s:?}");
        assert!(
            (s.p_a - pt).abs() < 1e3 && (s.p_b - pt).abs() < 1e3,
            "{s:?}"
        );
    }
    // The jump: p_A goes most of the way to p_S within 0.1 s.
    let jump = during(1.0, 1.1).map(|s| s.p_a).fold(0.0, f64::max);
    assert!(jump > 0.9 * ps, "p_A peaks at {jump} Pa after the step");
    // The sag while the piston moves fast, and the rise of p_B.
    let moving: Vec<_> = during(1.0, 2.0).filter(|s| s.v_p > 1.0).collect();
    assert!(moving.len() > 100, "{} ms above 1 m/s", moving.len());
    let sag = moving.iter().map(|s| s.p_a).fold(f64::INFINITY, f64::min);
    assert!(sag < 0.85 * ps && sag > 0.6 * ps, "p_A sags to {sag} Pa");
    let rise = moving.iter().map(|s| s.p_b).fold(0.0, f64::max);
    assert!(rise > 5.0 * pt, "p_B rises to {rise} Pa");
    let peak = moving.iter().map(|s| s.v_p).fold(0.0, f64::max);
    assert!((3.5..5.0).contains(&peak), "peak speed {peak} m/s");
    // Full stroke, and p_A settled at p_S (within 1 %), p_B back at p_T.
    let top = trace.iter().find(|s| s.x_p > 0.999).expect("full stroke");
    assert!(top.t < 1.5, "full stroke reached at {} s", top.t);
    let end = trace.last().unwrap();
    assert!((end.x_p - 1.0).abs() < 1e-3, "{end:?}");
    assert!((end.p_a - ps).abs() < 0.01 * ps, "{end:?}");
    assert!((end.p_b - pt).abs() < 0.01 * ps, "{end:?}");
}

/// The circuit as parts with ports: the hydraulics (an actuator) on the
/// piston's flange, the external force delivered onto the flange. The
/// same rates, Jacobian, start and event indicators as the equations
/// written out, bit for bit.
#[test]
fn composed_from_its_parts_it_gives_the_same_equations_bit_for_bit() {
    let (m, mut u) = fmu_core::default_model::<LiftActuator, NX>().unwrap();
    let a = m.assembly().unwrap();
    a.check_table::<LiftActuator>().unwrap();
    a.check_event_indicators(&LiftActuator::event_indicators())
        .unwrap();
    let states = fmu_core::testing::sample_states(
        &[-2e-3, -1.0, -1e5, -1e5, -1e-3, -5.0],
        &[2e-3, 1.0, 2.2e7, 2.2e7, 1.001, 5.0],
        200,
    );
    for (command, force) in [(-0.8, 0.0), (0.0, 350.0), (0.6, -1200.0)] {
        u.u = command;
        u.F_ext = force;
        let problems =
            fmu_core::testing::composition_differences(&m, &u, &a, &[u.u, u.F_ext], &states);
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}
