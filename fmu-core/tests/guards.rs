//! What fmu-core refuses so that no NaN or foreign state reaches a master:
//! parameter values whose first evaluation is not finite, steps that end
//! with a non-finite output, gets of a non-finite output, FMU states of
//! another structure, and forged serialized states with a valid checksum.
//! And what it accepts on purpose: a state serialized through one FMI
//! version restored through the other (the format and the instance behind
//! both are the same).

mod common;

use common::relaxation as oc;
use common::*;
use std::ffi::c_void;

/// The serialized form of a state of `f` (FMI 3).
fn serialize3(f: &Fmi3) -> Vec<u8> {
    let mut state: *mut c_void = std::ptr::null_mut();
    let mut size = 0usize;
    // SAFETY: valid pointers throughout; the state is freed here.
    unsafe {
        assert_eq!(oc::fmi3GetFMUState(f.c, &mut state), OK);
        assert_eq!(oc::fmi3SerializedFMUStateSize(f.c, state, &mut size), OK);
        let mut bytes = vec![0u8; size];
        assert_eq!(
            oc::fmi3SerializeFMUState(f.c, state, bytes.as_mut_ptr(), size),
            OK
        );
        assert_eq!(oc::fmi3FreeFMUState(f.c, &mut state), OK);
        bytes
    }
}

/// Deserializes `bytes` into `f` and sets the state; the status of the
/// first call that fails (or OK).
fn restore3(f: &Fmi3, bytes: &[u8]) -> i32 {
    let mut state: *mut c_void = std::ptr::null_mut();
    // SAFETY: buffer of bytes.len() bytes, valid out-pointer.
    unsafe {
        let s = oc::fmi3DeserializeFMUState(f.c, bytes.as_ptr(), bytes.len(), &mut state);
        if s != OK {
            assert!(state.is_null(), "a refused state must not be handed out");
            return s;
        }
        let s = oc::fmi3SetFMUState(f.c, state);
        assert_eq!(oc::fmi3FreeFMUState(f.c, &mut state), OK);
        s
    }
}

/// The 28-byte header, then one f64 per value slot: the table's rows in
/// value-reference order (inputs, outputs, parameters), then the solver's,
/// whose value references follow the table's.
fn slot_offset(vr: u32) -> usize {
    28 + 8 * (vr as usize - 1)
}

/// `bytes` with the f64 at `offset` replaced and the checksum recomputed:
/// what a forger (or a buggy tool) would write.
fn forged(bytes: &[u8], offset: usize, value: f64) -> Vec<u8> {
    let mut b = bytes.to_vec();
    b[offset..offset + 8].copy_from_slice(&value.to_le_bytes());
    let n = b.len() - 8;
    let sum = fnv1a(&b[..n]);
    b[n..].copy_from_slice(&sum.to_le_bytes());
    b
}

fn outputs3(f: &Fmi3) -> Vec<f64> {
    ["y1", "y2", "dy1", "total"]
        .iter()
        .map(|n| f.get(vr(n)))
        .collect()
}

#[test]
fn forged_states_with_a_valid_checksum_are_checked_like_setters() {
    let f = Fmi3::initialized();
    for i in 0..50 {
        assert_eq!(f.step(f64::from(i) * 1e-3, 1e-3).0, OK);
    }
    let bytes = serialize3(&f);
    // The layout is the one this test assumes: k's slot holds k.
    let k_at = slot_offset(vr("k"));
    assert_eq!(
        f64::from_le_bytes(bytes[k_at..k_at + 8].try_into().unwrap()),
        1e3
    );
    // Untouched, the bytes restore.
    assert_eq!(restore3(&f, &forged(&bytes, k_at, 1e3)), OK);
    let before = outputs3(&f);
    for (name, value, needle) in [
        ("k", -1.0, "'k'"),
        ("k", f64::NAN, "'k'"),
        ("rtol", -1.0, "'rtol'"),
        ("max_substeps", 0.0, "'max_substeps'"),
        ("max_substeps", 2.5, "not a 32-bit integer"),
        ("explicit_step", f64::NAN, "'explicit_step'"),
        ("analytic", 0.5, "not a Boolean"),
        ("u", 1e4, "'u'"),
        ("stages", 1.0, "structural parameter stages"),
    ] {
        let offset = slot_offset(vr(name));
        f.log.take();
        assert_eq!(
            restore3(&f, &forged(&bytes, offset, value)),
            ERROR,
            "{name} = {value} was accepted from a forged state"
        );
        assert!(
            f.log.saw(needle),
            "{name} = {value}: no message with {needle}: {:?}",
            f.log.take()
        );
        assert_eq!(outputs3(&f), before, "a refused state changed the instance");
    }
    // A non-finite state value.
    // (past the model's rows and the solver parameters: the slot after
    // the last solver parameter's)
    let last_solver = fmu_core::solver_params::solver_rows().last().unwrap().name;
    let x_at = slot_offset(vr(last_solver)) + 8;
    assert_eq!(restore3(&f, &forged(&bytes, x_at, f64::INFINITY)), ERROR);
    assert!(f.log.saw("non-finite numbers in the state vector"));
}

#[test]
fn a_state_of_another_structure_is_refused() {
    // An instance with one lag (stages = 1, structural) ...
    let one = Fmi3::try_new(&token()).expect("instantiation");
    assert_eq!(one.set_int(vr("stages"), 1), OK);
    // SAFETY: live instance.
    unsafe {
        assert_eq!(
            oc::fmi3EnterInitializationMode(one.c, 0, 0.0, 0.0, 0, 0.0),
            OK
        );
        assert_eq!(oc::fmi3ExitInitializationMode(one.c), OK);
    }
    assert_eq!(one.step(0.0, 1e-3).0, OK);
    let bytes = serialize3(&one);
    // ... and one with two: the state does not fit.
    let two = Fmi3::initialized();
    let twin = Fmi3::initialized();
    two.log.take();
    assert_eq!(restore3(&two, &bytes), ERROR);
    assert!(
        two.log
            .saw("taken with the structural parameter stages = 1, this instance has stages = 2"),
        "{:?}",
        two.log.take()
    );
    for i in 0..20 {
        let t = f64::from(i) * 1e-3;
        assert_eq!(two.step(t, 1e-3).0, OK);
        assert_eq!(twin.step(t, 1e-3).0, OK);
    }
    assert_eq!(
        outputs3(&two),
        outputs3(&twin),
        "the refusal changed the instance"
    );
}

#[test]
fn states_move_between_fmi_2_and_fmi_3_of_the_same_model() {
    // Serialized through FMI 3 ...
    let f = Fmi3::initialized();
    for i in 0..100 {
        assert_eq!(f.step(f64::from(i) * 1e-3, 1e-3).0, OK);
    }
    let bytes = serialize3(&f);
    // ... restored through FMI 2, which then continues exactly like the
    // FMI 3 instance.
    let g = Fmi2::initialized();
    let mut state: *mut c_void = std::ptr::null_mut();
    let signed: Vec<i8> = bytes.iter().map(|&b| b as i8).collect();
    // SAFETY: buffer of signed.len() bytes, valid out-pointer.
    unsafe {
        assert_eq!(
            oc::fmi2DeSerializeFMUstate(g.c, signed.as_ptr(), signed.len(), &mut state),
            OK
        );
        assert_eq!(oc::fmi2SetFMUstate(g.c, state), OK);
        assert_eq!(oc::fmi2FreeFMUstate(g.c, &mut state), OK);
    }
    assert_eq!(g.time(), f.step(0.1, 0.0).1.max(0.1));
    for i in 100..150 {
        let t = f64::from(i) * 1e-3;
        assert_eq!(f.step(t, 1e-3).0, OK);
        assert_eq!(g.step(t, 1e-3), OK);
    }
    let via2: Vec<f64> = ["y1", "y2", "dy1", "total"]
        .iter()
        .map(|n| g.get(vr(n)))
        .collect();
    assert_eq!(via2, outputs3(&f));
}

#[test]
fn parameters_whose_first_evaluation_is_not_finite_are_refused() {
    let f = Fmi2::new();
    // Each value is inside its range; together they make dy1 = k (u - y1)
    // overflow at the initial state.
    let vrs = [vr("k"), vr("y1_0")];
    let values = [1e308, -900.0];
    // SAFETY: two vrs, two values.
    let s = unsafe { oc::fmi2SetReal(f.c, vrs.as_ptr(), 2, values.as_ptr()) };
    assert_eq!(s, ERROR);
    assert!(
        f.log.saw("give output 'dy1' = inf at the initial state"),
        "{:?}",
        f.log.take()
    );
    // Nothing changed: the defaults still initialize and step.
    f.init();
    assert_eq!(f.get(vr("k")), 1e3);
    assert_eq!(f.step(0.0, 1e-3), OK);
}

#[test]
fn a_non_finite_output_is_an_error_never_ok() {
    let f = Fmi2::new();
    assert_eq!(f.set(vr("k"), 1e306), OK);
    f.init();
    assert!(f.get(vr("dy1")).is_finite());
    // u = 1000 is inside its range, but dy1 = k (u - y1) overflows.
    assert_eq!(f.set(vr("u"), 1e3), OK);
    let mut v = 0.0;
    let dy1 = vr("dy1");
    // SAFETY: one vr, one value.
    assert_eq!(unsafe { oc::fmi2GetReal(f.c, &dy1, 1, &mut v) }, ERROR);
    assert!(f.log.saw("output 'dy1' is inf"), "{:?}", f.log.take());
}

#[test]
fn a_diverging_explicit_integration_ends_in_discard_at_the_last_good_point() {
    // Explicit Euler at 1 s on a lag with k = 1000 1/s: every substep
    // multiplies the error by 999. The state stays finite longer than the
    // output dy1 = k (u - y1), so the step that overflows the output must
    // be discarded, not returned as OK with dy1 = inf.
    let f = Fmi3::try_new(&token()).expect("instantiation");
    assert_eq!(f.set_int(vr("solver"), 2), OK);
    assert_eq!(f.set(vr("explicit_step"), 1.0), OK);
    assert_eq!(f.set(vr("limit"), 1e307), OK);
    // SAFETY: live instance.
    unsafe {
        assert_eq!(
            oc::fmi3EnterInitializationMode(f.c, 0, 0.0, 0.0, 0, 0.0),
            OK
        );
        assert_eq!(oc::fmi3ExitInitializationMode(f.c), OK);
    }
    let mut t = 0.0;
    let mut last_good = Vec::new();
    for _ in 0..200 {
        let (status, last) = f.step(t, 1.0);
        if status != OK {
            assert_eq!(status, DISCARD);
            assert_eq!(last, t, "lastSuccessfulTime must be the last good point");
            assert!(f.log.saw("discarded"), "{:?}", f.log.take());
            // The instance is still at the last good point, all finite.
            assert_eq!(outputs3(&f), last_good);
            return;
        }
        t += 1.0;
        last_good = outputs3(&f);
        assert!(
            last_good.iter().all(|v| v.is_finite()),
            "OK with a non-finite output at {t} s: {last_good:?}"
        );
    }
    panic!("explicit Euler at k h = 1000 never diverged in 200 steps");
}
