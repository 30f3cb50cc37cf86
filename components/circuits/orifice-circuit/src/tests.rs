//! Unit tests of the OrificeChain equations against the model description.

use super::*;

fn model() -> (OrificeChain, Inputs) {
    fmu_core::default_model::<OrificeChain, NX>().unwrap()
}

fn jacobian(m: &OrificeChain, u: &Inputs, x: &SVector<f64, NX>) -> SMatrix<f64, NX, NX> {
    let mut j = SMatrix::zeros();
    assert!(m.rates_and_jacobian(u, x, &mut j).1);
    j
}

#[test]
fn table_follows_core_conventions_and_validates() {
    let desc = fmu_core::checked_description::<OrificeChain, NX>().unwrap();
    // The variables and their value references in table order.
    let names: Vec<&str> = desc.variables.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(
        &names[..8],
        &["ps", "pt", "p1", "p2", "Q1", "Q2", "Q3", "Cd"]
    );
    assert_eq!(desc.variable_by_name("Cd").unwrap().value_reference, 8);
    assert_eq!(
        desc.variable_by_name("bulk_log_natural")
            .unwrap()
            .value_reference,
        23
    );
}

#[test]
fn jacobian_matches_finite_differences() {
    let (m, u) = model();
    // Points on both sides of the orifice law's transition (p_tr = 1e4 Pa),
    // away from the kink of max(p, 0) in the bulk modulus at p = 0.
    for x in [
        [100.0, 50.0],
        [3.0e6, 1.5e6],
        [6.666e6, 3.333e6],
        [5.0e3, 2.0e3],
        [-2.0e5, 4.0e6],
    ] {
        let x = SVector::from(x);
        let j = jacobian(&m, &u, &x);
        for c in 0..2 {
            let h = 1e-4 * x[c].abs().max(1e2);
            let mut xp = x;
            let mut xm = x;
            xp[c] += h;
            xm[c] -= h;
            let fd = (m.rates(&u, &xp) - m.rates(&u, &xm)) / (2.0 * h);
            for r in 0..2 {
                let scale = j.column(c).abs().max().max(1e-12);
                assert!(
                    (fd[r] - j[(r, c)]).abs() <= 1e-5 * scale,
                    "x = {x:?}, J[{r},{c}] = {} vs FD {}",
                    j[(r, c)],
                    fd[r]
                );
            }
        }
    }
}

#[test]
fn steady_state_is_two_thirds_and_one_third() {
    let (m, u) = model();
    let x = SVector::from([2.0e7 / 3.0, 1.0e7 / 3.0]);
    let f = m.rates(&u, &x);
    // At the steady state both pressure rates vanish (up to rounding).
    assert!(f.norm() < 1e-3, "rates at steady state {f:?}");
    let [q1, q2, q3] = m.flows(&u, &x);
    assert!((q1 / 4.0557786759736e-5 - 1.0).abs() < 1e-9);
    assert!((q1 - q2).abs() < 1e-15 && (q2 - q3).abs() < 1e-15);
}

#[test]
fn eigenvalues_match_the_model_description() {
    let (m, u) = model();
    let eig = |x: [f64; 2]| {
        let j = jacobian(&m, &u, &SVector::from(x));
        let tr = j.trace();
        let det = j.determinant();
        let disc = (tr * tr / 4.0 - det).sqrt();
        (tr / 2.0 - disc, tr / 2.0 + disc)
    };
    let (fast, slow) = eig([2.0e7 / 3.0, 1.0e7 / 3.0]);
    assert!((fast / -1.25e3 - 1.0).abs() < 0.01, "fast {fast}");
    assert!((slow / -11.36 - 1.0).abs() < 0.01, "slow {slow}");
    let (fast0, _) = eig([0.0, 0.0]);
    assert!((fast0 / -2.39e4 - 1.0).abs() < 0.01, "start-up {fast0}");
}

#[test]
fn output_partials_match_finite_differences() {
    let (m, u) = model();
    let x = SVector::from([4.0e6, 1.0e6]);
    let out = |u: &Inputs, x: &SVector<f64, NX>, of: usize| {
        fmu_core::table::OutputRecord::get(&m.all_outputs(u, x), of)
    };
    for of in [output::p1, output::p2, output::Q1, output::Q2, output::Q3] {
        for i in [state::p1, state::p2] {
            let h = 10.0;
            let mut xp = x;
            let mut xm = x;
            xp[i] += h;
            xm[i] -= h;
            let fd = (out(&u, &xp, of) - out(&u, &xm, of)) / (2.0 * h);
            let an = m.output_partial(&u, &x, of, Known::State(i)).unwrap();
            assert!((fd - an).abs() <= 1e-6 * fd.abs().max(1e-15), "d{of}/dx{i}");
        }
        for (input, set) in [
            (
                input::ps,
                (|u: &mut Inputs, v: f64| u.ps += v) as fn(&mut Inputs, f64),
            ),
            (input::pt, |u: &mut Inputs, v: f64| u.pt += v),
        ] {
            let h = 10.0;
            let eval = |dv: f64| {
                let mut w = u.clone();
                set(&mut w, dv);
                out(&w, &x, of)
            };
            let fd = (eval(h) - eval(-h)) / (2.0 * h);
            let an = m.output_partial(&u, &x, of, Known::Input(input)).unwrap();
            assert!(
                (fd - an).abs() <= 1e-6 * fd.abs().max(1e-15),
                "d{of}/d{input}"
            );
        }
    }
}

#[test]
fn physical_ranges_come_from_the_table() {
    let rows = <OrificeChain as fmu_core::Table>::rows();
    let row = |name: &str| *rows.iter().find(|r| r.name == name).unwrap();
    assert!(row("d1").check(-1e-3).is_err());
    assert!(row("V2").check(0.0).is_err());
    assert!(row("a3").check(1.0).is_err());
    assert!(row("a3").check(1.01).is_ok());
    assert!(row("Cd").check(1.0).is_ok());
    assert!(row("Cd").check(1.1).is_err());
    assert!(row("V2").check(1e-6).is_ok());
    assert!(row("ps").check(-5e4).is_ok());
    assert!(row("ps").check(-2e5).is_err());
}

#[test]
fn a_vanishing_transition_pressure_is_refused_with_its_coefficient() {
    let mut m = fmu_core::testing::TestMaster::<OrificeChain, NX>::new();
    let why = m.set("p_tr", 5e-324).unwrap_err();
    assert!(why.contains("p_tr = 5e-324 refused"), "{why}");
    assert!(
        why.contains("cubic coefficient of orifice 1 (E2) = inf"),
        "{why}"
    );
    m.enter_initialization().unwrap();
    assert_eq!(m.get("p_tr").unwrap(), 1e4, "the old value must stay");
}

/// The FMU crate's resources folder, as the FMU carries it.
fn resources() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fmus/orifice-chain/resources")
}

/// p2 after `steps` communication steps of 1 ms from the start-up state,
/// with the trained model `choice` (0: physics with Rodas3), every 100th.
fn startup_p2(choice: f64, steps: usize) -> Vec<f64> {
    let mut m = fmu_core::testing::TestMaster::<OrificeChain, NX>::with_resources(&resources());
    m.set("p2_surrogate", choice).unwrap();
    if choice != 0.0 {
        m.set("solver", 3.0).unwrap();
        m.set("explicit_step", 1e-3).unwrap();
    }
    m.enter_initialization().unwrap();
    m.exit_initialization().unwrap();
    let mut p2 = Vec::new();
    for k in 1..=steps {
        m.step(1e-3).unwrap();
        if k % 100 == 0 {
            p2.push(m.get("p2").unwrap());
        }
    }
    p2
}

#[test]
fn trained_p2_follows_the_physics_through_the_start_up() {
    let physics = startup_p2(0.0, 1000);
    for choice in [1.0, 2.0] {
        let trained = startup_p2(choice, 1000);
        for (k, (a, b)) in trained.iter().zip(&physics).enumerate() {
            // 0.5 % of the steady p2 (3.3 MPa): the models' own accuracy is
            // about a tenth of that.
            assert!(
                (a - b).abs() < 0.005 * 3.33e6,
                "surrogate {choice} at {} s: {a} vs {b}",
                (k + 1) as f64 * 0.1
            );
        }
    }
}

#[test]
fn trained_p2_steps_by_whole_periods_only() {
    let mut m = fmu_core::testing::TestMaster::<OrificeChain, NX>::with_resources(&resources());
    m.set("p2_surrogate", 1.0).unwrap();
    m.set("solver", 3.0).unwrap();
    m.set("explicit_step", 1e-3).unwrap();
    m.enter_initialization().unwrap();
    m.exit_initialization().unwrap();
    m.step(2e-3).unwrap();
    let why = m.step(1.5e-3).unwrap_err();
    assert!(
        why.contains("Discard") && why.contains("period 1e-3 s"),
        "{why}"
    );
    // The instance stays usable at its last good state.
    m.step(1e-3).unwrap();
}

#[test]
fn a_missing_or_corrupt_weights_file_is_refused_with_its_name() {
    let mut m = fmu_core::testing::TestMaster::<OrificeChain, NX>::new();
    let why = m.set("p2_surrogate", 1.0).unwrap_err();
    assert!(why.contains("orifice-chain-p2-narx.txt"), "{why}");
    m.enter_initialization().unwrap();
    assert_eq!(
        m.get("p2_surrogate").unwrap(),
        0.0,
        "the old value must stay"
    );

    let dir = tempfile_dir("corrupt");
    let text = std::fs::read_to_string(resources().join("orifice-chain-p2-lolimot.txt")).unwrap();
    // Change one digit of the first local model's parameters.
    let at = text.find("models ").unwrap();
    let line_end = at + text[at..].find('\n').unwrap() + 1;
    let digit = line_end + text[line_end..].find(|c: char| c.is_ascii_digit()).unwrap();
    let mut bytes = text.into_bytes();
    bytes[digit] = if bytes[digit] == b'7' { b'8' } else { b'7' };
    std::fs::write(dir.join("orifice-chain-p2-lolimot.txt"), bytes).unwrap();
    let mut m = fmu_core::testing::TestMaster::<OrificeChain, NX>::with_resources(&dir);
    let why = m.set("p2_surrogate", 2.0).unwrap_err();
    assert!(
        why.contains("orifice-chain-p2-lolimot.txt") && why.contains("corrupt"),
        "{why}"
    );
    // The valve drive's weights in the place of the orifice chain's: the
    // slot and the names do not fit.
    let drive = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../valve-drive/resources/valve-drive-pv-narx.txt");
    std::fs::copy(drive, dir.join("orifice-chain-p2-narx.txt")).unwrap();
    let why = m.set("p2_surrogate", 1.0).unwrap_err();
    assert!(why.contains("valve-drive/pv"), "{why}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn model_exchange_refuses_a_trained_p2() {
    let mut m = fmu_core::testing::TestMaster::<OrificeChain, NX>::with_resources(&resources())
        .model_exchange();
    let why = m.set("p2_surrogate", 1.0).unwrap_err();
    assert!(why.contains("co-simulation only"), "{why}");
    m.enter_initialization().unwrap();
    assert_eq!(m.get("p2_surrogate").unwrap(), 0.0);
}

/// A fresh folder under the system's temporary folder.
fn tempfile_dir(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "orifice-chain-{tag}-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
