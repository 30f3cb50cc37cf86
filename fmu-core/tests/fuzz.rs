//! Property-based fuzzing through the exported FMI 3 functions of the test
//! model: the FMU state deserializer fed mutated, truncated, re-checksummed
//! and random buffers, and random sequences of FMI calls with odd
//! arguments. Whatever the input: no panic reaches the C boundary (it
//! would be logged as an internal error), every refusal is logged, and no
//! get returns a non-finite value with OK.
//!
//! The test command runs a few hundred cases per property; for a longer
//! run set `PROPTEST_CASES`, e.g.
//! `PROPTEST_CASES=20000 cargo test --release -p fmu-core --test fuzz`.

mod common;

use common::relaxation as oc;
use common::*;
use proptest::prelude::*;
use std::ffi::c_void;

/// Cases per property: `PROPTEST_CASES`, or 256.
fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

const OUTPUTS: [&str; 4] = ["y1", "y2", "dy1", "total"];

/// Gets every output; `Err(status)` when the FMU refuses. Values returned
/// with OK must be finite.
fn outputs(f: &Fmi3) -> Result<Vec<f64>, TestCaseError> {
    let vrs: Vec<u32> = OUTPUTS.iter().map(|n| vr(n)).collect();
    let mut v = vec![0.0; vrs.len()];
    // SAFETY: arrays of matching length.
    let s = unsafe { oc::fmi3GetFloat64(f.c, vrs.as_ptr(), vrs.len(), v.as_mut_ptr(), v.len()) };
    if s == OK {
        prop_assert!(
            v.iter().all(|x| x.is_finite()),
            "OK with non-finite outputs {v:?}"
        );
    }
    Ok(v)
}

/// Checks the log: no panic reached the boundary, and every non-OK status
/// came with a message.
fn check_log(f: &Fmi3, refused: usize) -> Result<(), TestCaseError> {
    let messages = f.log.take();
    prop_assert!(
        !messages.iter().any(|m| m.2.contains("internal error")),
        "a panic reached the C boundary: {messages:?}"
    );
    let errors = messages.iter().filter(|m| m.0 >= DISCARD).count();
    prop_assert!(
        errors >= refused,
        "{refused} refusals but {errors} messages: {messages:?}"
    );
    Ok(())
}

fn serialized_state() -> Vec<u8> {
    let f = Fmi3::initialized();
    for i in 0..30 {
        assert_eq!(f.step(f64::from(i) * 1e-3, 1e-3).0, OK);
    }
    let mut state: *mut c_void = std::ptr::null_mut();
    let mut size = 0;
    // SAFETY: valid pointers; the state is freed here.
    unsafe {
        assert_eq!(oc::fmi3GetFMUState(f.c, &mut state), OK);
        assert_eq!(oc::fmi3SerializedFMUStateSize(f.c, state, &mut size), OK);
        let mut b = vec![0u8; size];
        assert_eq!(
            oc::fmi3SerializeFMUState(f.c, state, b.as_mut_ptr(), size),
            OK
        );
        assert_eq!(oc::fmi3FreeFMUState(f.c, &mut state), OK);
        b
    }
}

/// A number a careless or hostile master might send.
fn odd_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(0.0),
        Just(-1.0),
        Just(5e-324),
        Just(1e300),
        Just(-1e300),
        -1e4..1e4f64,
        any::<f64>(),
    ]
}

/// How a valid serialized state is damaged.
#[derive(Debug, Clone)]
enum Damage {
    /// Bytes overwritten at positions (taken modulo the length).
    Bytes(Vec<(usize, u8)>),
    /// One f64 field overwritten (index modulo the number of fields).
    Field(usize, f64),
    /// Cut to a length (modulo the length).
    Truncate(usize),
    /// Entirely random bytes.
    Random(Vec<u8>),
}

fn damage() -> impl Strategy<Value = (Damage, bool)> {
    let d = prop_oneof![
        prop::collection::vec((any::<usize>(), any::<u8>()), 1..8).prop_map(Damage::Bytes),
        (any::<usize>(), odd_f64()).prop_map(|(i, v)| Damage::Field(i, v)),
        any::<usize>().prop_map(Damage::Truncate),
        prop::collection::vec(any::<u8>(), 0..600).prop_map(Damage::Random),
    ];
    // Whether the checksum is recomputed afterwards (a forger's buffer).
    (d, any::<bool>())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn damaged_serialized_states_never_crash_or_give_nan((what, resum) in damage()) {
        let good = serialized_state();
        let mut b = good.clone();
        match &what {
            Damage::Bytes(changes) => {
                for &(i, v) in changes {
                    let n = b.len();
                    b[i % n] = v;
                }
            }
            Damage::Field(i, v) => {
                let fields = (b.len() - 28 - 8) / 8;
                let at = 28 + 8 * (i % fields);
                b[at..at + 8].copy_from_slice(&v.to_le_bytes());
            }
            Damage::Truncate(n) => b.truncate(n % good.len()),
            Damage::Random(r) => b.clone_from(r),
        }
        if resum && b.len() >= 8 {
            let n = b.len() - 8;
            let sum = fnv1a(&b[..n]);
            b[n..].copy_from_slice(&sum.to_le_bytes());
        }
        let f = Fmi3::initialized();
        f.log.take();
        let mut state: *mut c_void = std::ptr::null_mut();
        // SAFETY: buffer of b.len() bytes, valid out-pointer.
        let s = unsafe { oc::fmi3DeserializeFMUState(f.c, b.as_ptr(), b.len(), &mut state) };
        let mut refused = 0;
        if s == OK {
            // SAFETY: a state from deserialize.
            let set = unsafe { oc::fmi3SetFMUState(f.c, state) };
            if set == OK {
                outputs(&f)?;
                let mut t = f.step(0.0, 0.0).1;
                if !t.is_finite() {
                    t = 0.0;
                }
                for _ in 0..5 {
                    let (s, last) = f.step(last_time(&f, t), 1e-3);
                    if s != OK {
                        refused += 1;
                        break;
                    }
                    t = last;
                    outputs(&f)?;
                }
            } else {
                refused += 1;
            }
            // SAFETY: freeing our state.
            unsafe { oc::fmi3FreeFMUState(f.c, &mut state) };
        } else {
            prop_assert!(state.is_null(), "a refused state was handed out");
            refused += 1;
        }
        check_log(&f, refused)?;
    }
}

/// The instance's time (from the time variable).
fn last_time(f: &Fmi3, fallback: f64) -> f64 {
    let mut t = f64::NAN;
    let vr_time = 0u32;
    // SAFETY: one vr, one value.
    let s = unsafe { oc::fmi3GetFloat64(f.c, &vr_time, 1, &mut t, 1) };
    if s == OK { t } else { fallback }
}

/// One FMI call with its arguments.
#[derive(Debug, Clone)]
enum Call {
    SetReal(&'static str, f64),
    SetInt(&'static str, i32),
    EnterInit,
    ExitInit,
    /// A step from the instance's time plus an offset, by h.
    Step(f64, f64),
    Get,
    StateRoundTrip,
    Terminate,
    Reset,
}

fn call() -> impl Strategy<Value = Call> {
    let real = prop::sample::select(vec![
        "u",
        "w",
        "k",
        "slow",
        "y1_0",
        "limit",
        "rtol",
        "explicit_step",
    ]);
    let int = prop::sample::select(vec!["solver", "stages", "law", "max_substeps"]);
    prop_oneof![
        4 => (real, odd_f64()).prop_map(|(n, v)| Call::SetReal(n, v)),
        2 => (int, -3..5i32).prop_map(|(n, v)| Call::SetInt(n, v)),
        1 => Just(Call::EnterInit),
        1 => Just(Call::ExitInit),
        6 => (prop_oneof![4 => Just(0.0), 1 => odd_f64()],
              prop_oneof![4 => Just(1e-3), 1 => Just(1.0), 1 => odd_f64()])
            .prop_map(|(o, h)| Call::Step(o, h)),
        2 => Just(Call::Get),
        1 => Just(Call::StateRoundTrip),
        1 => Just(Call::Terminate),
        1 => Just(Call::Reset),
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn random_call_sequences_never_crash_or_give_nan(calls in prop::collection::vec(call(), 1..40)) {
        let f = Fmi3::try_new(&token()).expect("instantiation");
        let mut refused = 0;
        for c in &calls {
            // SAFETY: a live instance and valid pointers in every call.
            let s = unsafe {
                match *c {
                    Call::SetReal(n, v) => oc::fmi3SetFloat64(f.c, &vr(n), 1, &v, 1),
                    Call::SetInt(n, v) => oc::fmi3SetInt32(f.c, &vr(n), 1, &v, 1),
                    Call::EnterInit => oc::fmi3EnterInitializationMode(f.c, 0, 0.0, 0.0, 0, 0.0),
                    Call::ExitInit => oc::fmi3ExitInitializationMode(f.c),
                    Call::Step(offset, h) => f.step(last_time(&f, 0.0) + offset, h).0,
                    Call::Get => {
                        outputs(&f)?;
                        OK
                    }
                    Call::StateRoundTrip => {
                        let mut state: *mut c_void = std::ptr::null_mut();
                        let s = oc::fmi3GetFMUState(f.c, &mut state);
                        if s == OK {
                            let back = oc::fmi3SetFMUState(f.c, state);
                            oc::fmi3FreeFMUState(f.c, &mut state);
                            back
                        } else {
                            s
                        }
                    }
                    Call::Terminate => oc::fmi3Terminate(f.c),
                    Call::Reset => oc::fmi3Reset(f.c),
                }
            };
            if s != OK {
                refused += 1;
            }
            // Whatever happened, what can be read is finite.
            outputs(&f)?;
        }
        check_log(&f, refused)?;
    }
}
