//! Unit tests of the hose models.

use super::*;
use fmu_core::{Record, ResourceFolder};

fn model<const F: u8>(n: i32) -> (HoseModel<F>, <HoseModel<F> as Table>::Inputs)
where
    HoseModel<F>: FormTable,
{
    fmu_core::checked_description::<HoseModel<F>, NX>().unwrap();
    let none = ResourceFolder::Unavailable(String::new());
    let mut values = Vec::new();
    <HoseModel<F> as Table>::Params::rows(&mut values);
    let mut starts: Vec<f64> = values.iter().map(|r| r.start).collect();
    let n_slot = values.iter().position(|r| r.name == "n").unwrap();
    starts[n_slot] = f64::from(n);
    let params = <HoseModel<F> as Table>::Params::from_values(&starts);
    let m = HoseModel::<F>::configure(&params, &Context::new(&none)).unwrap();
    (m, <HoseModel<F> as Table>::Inputs::defaults())
}

fn jacobian<const F: u8>(
    m: &HoseModel<F>,
    u: &<HoseModel<F> as Table>::Inputs,
    x: &SVector<f64, NX>,
) -> SMatrix<f64, NX, NX>
where
    HoseModel<F>: FormTable,
{
    let mut j = SMatrix::zeros();
    let (f, analytic) = m.rates_and_jacobian(u, x, &mut j);
    assert!(analytic);
    assert_eq!(f, m.rates(u, x));
    j
}

fn check_form<const F: u8>()
where
    HoseModel<F>: FormTable,
{
    for n in [1, 3, 7] {
        let (m, u) = model::<F>(n);
        let x0 = m.initial_state(&u);
        // The initial state is a steady state.
        let r = m.rates(&u, &x0);
        let nominal = m.nominal();
        for i in 0..NX {
            assert!(
                (r[i] * 1e-3 / nominal[i]).abs() < 1e-6,
                "form {F} n {n}: rate {i} = {} at the steady state",
                r[i]
            );
        }
        // Jacobian vs central differences at a perturbed state.
        let mut x = x0;
        for i in 0..m.active_states() {
            x[i] += nominal[i] * 0.3 * ((i as f64) * 1.7).sin();
        }
        let j = jacobian(&m, &u, &x);
        for c in 0..m.active_states() {
            let h = 1e-6 * nominal[c];
            let mut up = x;
            let mut dn = x;
            up[c] += h;
            dn[c] -= h;
            let fd = (m.rates(&u, &up) - m.rates(&u, &dn)) / (2.0 * h);
            for row in 0..NX {
                let scale = (0..NX)
                    .map(|k| (j[(row, k)] * nominal[k]).abs())
                    .fold(0.0, f64::max);
                assert!(
                    ((fd[row] - j[(row, c)]) * nominal[c]).abs() <= 1e-5 * scale.max(1e-30),
                    "form {F} n {n}: J[{row},{c}] = {} vs FD {}",
                    j[(row, c)],
                    fd[row]
                );
            }
        }
        // Nothing outside the active states moves.
        for i in m.active_states()..NX {
            assert_eq!(r[i], 0.0);
            assert!((0..NX).all(|k| j[(i, k)] == 0.0 && j[(k, i)] == 0.0));
        }
        // The blocks cover the active states: nodes first, then flows.
        assert_eq!(m.nodes().start, 0);
        assert_eq!(m.branches().start, m.nodes().len);
        assert_eq!(m.nodes().len + m.branches().len, m.active_states());
    }
}

#[test]
fn form_h() {
    check_form::<0>();
}

#[test]
fn form_g() {
    check_form::<1>();
}

#[test]
fn form_y() {
    check_form::<2>();
}

#[test]
fn form_z() {
    check_form::<3>();
}

#[test]
fn outputs_are_the_line_ends_in_each_causality() {
    let (m, u) = model::<0>(3);
    let x = m.initial_state(&u);
    let out = m.all_outputs(&u, &x);
    // Form H at steady state: the outflow is the inflow, p1 is the first node.
    assert!((out.Q2 - u.Q1).abs() < 1e-12);
    assert_eq!(out.p1, x[m.nodes().index(0)]);
    assert!(out.p1 > u.p2);
    let (m, u) = model::<2>(2);
    let x = m.initial_state(&u);
    let out = m.all_outputs(&u, &x);
    // Form Y: the steady flow that p1 - p2 drives, the same at both ends.
    assert!(out.Q1 > 0.0 && (out.Q1 - out.Q2).abs() < 1e-12);
}

/// The oscillation frequency of the slowest lightly damped mode, Hz, from
/// the Jacobian at the steady state.
fn first_mode_hz<const F: u8>(n: i32) -> f64
where
    HoseModel<F>: FormTable,
{
    let (m, u) = model::<F>(n);
    let k = m.active_states();
    let j = jacobian(&m, &u, &m.initial_state(&u));
    let a = fmu_core::nalgebra::DMatrix::<f64>::from_fn(k, k, |r, c| j[(r, c)]);
    let eig = a.complex_eigenvalues();
    eig.iter()
        .filter(|e| e.im > 1.0)
        .map(|e| e.im / (2.0 * std::f64::consts::PI))
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn first_modes_near_the_model_description() {
    // c/(4 L_hose) = 106.0 Hz; H n = 1 resonance 105.7 Hz; H n = 7 97.5 Hz
    // (its ladder with the kn correction); Y resonates at twice H (212 Hz).
    let h1 = first_mode_hz::<0>(1);
    assert!((h1 / 106.0 - 1.0).abs() < 0.01, "H n=1: {h1} Hz");
    let h7 = first_mode_hz::<0>(7);
    assert!((h7 / 98.4 - 1.0).abs() < 0.02, "H n=7: {h7} Hz");
    let y1 = first_mode_hz::<2>(1);
    assert!((y1 / 212.0 - 1.0).abs() < 0.01, "Y n=1: {y1} Hz");
}

#[test]
fn a_state_of_another_segment_count_is_refused() {
    use fmu_core::testing::TestMaster;
    let mut fourteen = TestMaster::<HoseH, NX>::new();
    fourteen.set("n", 14.0).unwrap();
    fourteen.enter_initialization().unwrap();
    fourteen.exit_initialization().unwrap();
    fourteen.step(1e-3).unwrap();
    let inst = fourteen.instance();
    let bytes = inst.serialize(&inst.snapshot());
    let mut one = TestMaster::<HoseH, NX>::new();
    one.enter_initialization().unwrap();
    one.exit_initialization().unwrap();
    let refused = one.instance().deserialize("deserialize", &bytes).is_err();
    let why = one.new_messages().join(" ");
    assert!(refused, "an n = 14 state was accepted by an n = 1 instance");
    assert!(
        why.contains("structural parameter n = 14, this instance has n = 1"),
        "{why}"
    );
    // A live snapshot is refused the same way.
    let snap = fourteen.instance().snapshot();
    assert!(one.instance().restore("setFMUState", &snap).is_err());
    assert_eq!(one.get("n").unwrap(), 1.0);
    one.step(1e-3).unwrap();
}
