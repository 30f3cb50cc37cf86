//! ValveCylinder, driven as a master drives the FMU, against the numbers
//! the model description (`valve-drive/MODEL.md`) says an implementation
//! must reproduce for the repeatable scenario: the 10 s signal, -6 V then
//! +9 V in each 2.5 s period.

use fmu_core::testing::TestMaster;
use valve_drive::ValveCylinder;
use valve_drive::valve_cylinder::NX;

struct Run {
    x: Vec<f64>,
    v: Vec<f64>,
    p1: Vec<f64>,
    p2: Vec<f64>,
    pv: Vec<f64>,
    f_mu: Vec<f64>,
    margin_moving: Vec<f64>,
}

fn simulate(quasi_static: bool) -> Run {
    let mut fmu = TestMaster::<ValveCylinder, NX>::new();
    fmu.set("quasi_static", f64::from(u8::from(quasi_static)))
        .unwrap();
    fmu.enter_initialization().unwrap();
    fmu.exit_initialization().unwrap();
    let mut run = Run {
        x: vec![],
        v: vec![],
        p1: vec![],
        p2: vec![],
        pv: vec![],
        f_mu: vec![],
        margin_moving: vec![],
    };
    let h = 1e-3;
    run.pv.push(fmu.get("pv").unwrap());
    for k in 0..10_000 {
        let t = k as f64 * h;
        let u: f64 = if (t % 2.5) < 1.25 - 1e-9 { -6.0 } else { 9.0 };
        fmu.set("U", u).unwrap();
        fmu.step(h).unwrap_or_else(|e| panic!("t = {t}: {e}"));
        let [x, v, p1, p2, pv, f_mu] =
            ["x", "v", "p1", "p2", "pv", "F_mu"].map(|name| fmu.get(name).unwrap());
        run.x.push(x);
        run.v.push(v);
        run.p1.push(p1);
        run.p2.push(p2);
        run.pv.push(pv);
        run.f_mu.push(f_mu);
        if v.abs() > 5e-3 && x > 0.0 && x < 1.0 {
            run.margin_moving.push(pv - p1.max(p2));
        }
    }
    run
}

fn range(v: &[f64]) -> (f64, f64) {
    (
        v.iter().copied().fold(f64::INFINITY, f64::min),
        v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    )
}

fn close(value: f64, published: f64, tol: f64, what: &str) {
    assert!(
        (value - published).abs() <= tol,
        "{what}: {value} vs the model description's {published} (tolerance {tol})"
    );
}

#[test]
fn repeatable_scenario_reproduces_the_model_description() {
    for qs in [false, true] {
        let r = simulate(qs);
        let (x_lo, x_hi) = range(&r.x);
        close(x_lo, 0.9831, 2e-4, "x min [m]");
        close(x_hi, 1.0001, 1e-4, "x max [m]");
        let on_stop = r.x.iter().filter(|&&x| x > 1.0).count() as f64 * 1e-3;
        close(on_stop, 4.86, 0.02, "time on the stop [s]");
        let (v_lo, v_hi) = range(&r.v);
        close(v_lo * 1e3, -25.0, 0.5, "v min [mm/s]");
        close(v_hi * 1e3, 88.0, 0.5, "v max [mm/s]");
        close(range(&r.p1).1 / 1e5, 121.5, 0.2, "p1 max [bar]");
        close(range(&r.p2).1 / 1e5, 91.4, 0.2, "p2 max [bar]");
        close(range(&r.pv).1 / 1e5, 140.0, 0.1, "pv max [bar]");
        if !qs {
            // The stiff small volume starts at 9 bar (quasi-static: from the balance).
            close(range(&r.pv).0 / 1e5, 9.0, 0.01, "pv min [bar]");
        }
        let (f_lo, f_hi) = range(&r.f_mu);
        close(f_lo, -352.0, 1.0, "F_mu min [N]");
        close(f_hi, 432.0, 1.0, "F_mu max [N]");
        // The compensator holds 10.00 bar across the valve while moving.
        let mean = r.margin_moving.iter().sum::<f64>() / r.margin_moving.len() as f64;
        close(
            mean / 1e5,
            10.0,
            0.05,
            "margin pv - max(p1, p2) while moving [bar]",
        );
    }
}
