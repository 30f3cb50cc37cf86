//! fmu-core's FMI 2 and FMI 3 functions, exported for the test model
//! `Relaxation` and called as a master would: bad input of every kind gets
//! a clear logged error and a non-OK status, and the instance keeps working
//! with its last good state.

mod common;

use common::relaxation as oc;
use common::*;
use std::ffi::{CString, c_void};

fn outputs() -> [u32; 4] {
    [vr("y1"), vr("y2"), vr("dy1"), vr("total")]
}

#[test]
fn wrong_guid_and_unknown_fmu_type_are_refused_with_a_message() {
    let bad = CString::new("{00000000-0000-0000-0000-000000000000}").unwrap();
    let log = Fmi2::try_new(&bad, 1)
        .err()
        .expect("must refuse a wrong GUID");
    assert!(
        log.iter()
            .any(|(s, c, m)| *s == ERROR && c == "logStatusError" && m.contains("GUID")),
        "{log:?}"
    );
    let log = Fmi2::try_new(&token(), 7)
        .err()
        .expect("must refuse an fmuType that is neither 0 nor 1");
    assert!(
        log.iter().any(|(_, _, m)| m.contains("fmuType 7")),
        "{log:?}"
    );
    let log = Fmi3::try_new(&bad)
        .err()
        .expect("FMI 3 must refuse a wrong token");
    assert!(
        log.iter()
            .any(|(_, _, m)| m.contains("instantiation token")),
        "{log:?}"
    );
    // No callbacks at all: refused without a crash.
    let name = CString::new("x").unwrap();
    // SAFETY: deliberately null callbacks.
    let c = unsafe {
        oc::fmi2Instantiate(
            name.as_ptr(),
            1,
            token().as_ptr(),
            std::ptr::null(),
            std::ptr::null(),
            0,
            0,
        )
    };
    assert!(c.is_null());
}

#[test]
fn null_pointers_are_errors_not_crashes() {
    // SAFETY: deliberately null instance pointers.
    unsafe {
        assert_eq!(oc::fmi2DoStep(std::ptr::null_mut(), 0.0, 1e-3, 0), ERROR);
        assert_eq!(
            oc::fmi2GetReal(
                std::ptr::null_mut(),
                std::ptr::null(),
                0,
                std::ptr::null_mut()
            ),
            ERROR
        );
        oc::fmi2FreeInstance(std::ptr::null_mut());
        assert_eq!(oc::fmi3Terminate(std::ptr::null_mut()), ERROR);
    }
    let f = Fmi2::initialized();
    let mut out = 0.0;
    // SAFETY: null vr array with nvr = 1.
    assert_eq!(
        unsafe { oc::fmi2GetReal(f.c, std::ptr::null(), 1, &mut out) },
        ERROR
    );
    assert!(f.log.saw("argument 'vr' is NULL"));
    let vrs = [vr("u")];
    // SAFETY: null value array with nvr = 1.
    assert_eq!(
        unsafe { oc::fmi2SetReal(f.c, vrs.as_ptr(), 1, std::ptr::null()) },
        ERROR
    );
    // SAFETY: null out-pointer.
    assert_eq!(
        unsafe { oc::fmi2GetRealStatus(f.c, 2, std::ptr::null_mut()) },
        ERROR
    );
    // Still works.
    assert_eq!(f.step(0.0, 1e-3), OK);
    assert!(f.get(vr("y1")) > 0.0);
}

#[test]
fn unknown_value_reference_and_wrong_type() {
    let f = Fmi2::initialized();
    let mut out = 0.0;
    let bad = 999u32;
    // SAFETY: valid arrays.
    assert_eq!(unsafe { oc::fmi2GetReal(f.c, &bad, 1, &mut out) }, ERROR);
    assert!(f.log.saw("value reference 999 does not exist"));
    let mut b = 0;
    // SAFETY: valid arrays.
    assert_eq!(
        unsafe { oc::fmi2GetBoolean(f.c, &vr("u"), 1, &mut b) },
        ERROR
    );
    assert!(f.log.saw("'u' (value reference 1) is Real, not Boolean"));
    let mut s: *const std::ffi::c_char = std::ptr::null();
    // SAFETY: valid arrays.
    assert_eq!(
        unsafe { oc::fmi2GetString(f.c, &vr("u"), 1, &mut s) },
        ERROR
    );
    assert_eq!(f.set(vr("dy1"), 1.0), ERROR);
    assert!(f.log.saw("causality output and cannot be set"));
    assert_eq!(f.step(0.0, 1e-3), OK);
}

#[test]
fn non_finite_inputs_are_rejected_and_the_old_value_kept() {
    let f = Fmi2::initialized();
    assert_eq!(f.set(vr("u"), 5.0), OK);
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert_eq!(f.set(vr("u"), bad), ERROR);
        assert!(f.log.saw("is not finite"));
    }
    // Outside the input's range: refused, with the range in the message.
    assert_eq!(f.set(vr("u"), 1e4), ERROR);
    assert!(
        f.log
            .saw("value 10000 for 'u' is outside its range [-1000, 1000]")
    );
    assert_eq!(f.get(vr("u")), 5.0);
    // A batch with one bad value changes nothing.
    let vrs = [vr("u"), vr("w")];
    let vals = [7.0, f64::NAN];
    // SAFETY: arrays of length 2.
    assert_eq!(
        unsafe { oc::fmi2SetReal(f.c, vrs.as_ptr(), 2, vals.as_ptr()) },
        ERROR
    );
    assert_eq!(f.get(vr("u")), 5.0);
    assert_eq!(f.step(0.0, 1e-3), OK);
}

#[test]
fn unphysical_parameters_are_rejected() {
    let f = Fmi2::new();
    assert_eq!(f.set(vr("k"), -1.0), ERROR);
    assert!(f.log.saw("outside its range (0, inf)"));
    // An open bound excludes the limit itself.
    assert_eq!(f.set(vr("k"), 0.0), ERROR);
    assert!(
        f.log
            .saw("value 0 1/s for 'k' is outside its range (0, inf)")
    );
    // A rule only the model knows: refused with the model's reason.
    assert_eq!(f.set(vr("y1_0"), 2e6), ERROR);
    assert!(
        f.log
            .saw("refused, nothing changed: |y1_0| = 2000000 exceeds limit")
    );
    // Integers must be whole and in range, Booleans 0 or 1.
    assert_eq!(f.set_int(vr("stages"), 3), ERROR);
    assert!(f.log.saw("'stages' is outside its range [1, 2]"));
    assert_eq!(f.set(vr("k"), 2e3), OK);
    f.init();
    assert_eq!(f.get(vr("k")), 2e3);
    assert_eq!(f.get(vr("y1_0")), 0.0);
    // Fixed parameters cannot change after initialization; tunable ones can.
    assert_eq!(f.set(vr("k"), 3e3), ERROR);
    assert!(f.log.saw("fixed parameter"));
    assert_eq!(f.get(vr("k")), 2e3);
    assert_eq!(f.set(vr("slow"), 2.0), OK);
    assert_eq!(f.set(vr("slow"), -2.0), ERROR);
    assert_eq!(f.get(vr("slow")), 2.0);
    // Solver parameters are tunable, but checked.
    assert_eq!(f.set(vr("rtol"), -1.0), ERROR);
    assert_eq!(f.set_int(vr("solver"), 7), ERROR);
    assert_eq!(f.set_int(vr("solver"), 3), OK);
    assert_eq!(f.step(0.0, 1e-3), OK);
}

#[test]
fn calls_in_the_wrong_state_are_refused() {
    let f = Fmi2::new();
    assert_eq!(f.step(0.0, 1e-3), ERROR);
    assert!(f.log.saw("fmi2DoStep: not allowed in state Instantiated"));
    // SAFETY: live instance.
    unsafe {
        assert_eq!(oc::fmi2ExitInitializationMode(f.c), ERROR);
        assert_eq!(oc::fmi2Terminate(f.c), ERROR);
    }
    f.init();
    // SAFETY: live instance.
    unsafe {
        assert_eq!(oc::fmi2EnterInitializationMode(f.c), ERROR);
        assert_eq!(oc::fmi2SetupExperiment(f.c, 0, 0.0, 0.0, 0, 0.0), ERROR);
        assert_eq!(oc::fmi2Terminate(f.c), OK);
    }
    assert_eq!(f.step(0.0, 1e-3), ERROR);
    assert!(f.log.saw("not allowed in state Terminated"));
    // Reset brings it back.
    // SAFETY: live instance.
    assert_eq!(unsafe { oc::fmi2Reset(f.c) }, OK);
    f.init();
    assert_eq!(f.step(0.0, 1e-3), OK);
}

#[test]
fn bad_step_arguments_keep_the_time() {
    let f = Fmi2::initialized();
    let t = f.run(0.0, 1e-3, 10);
    let before = f.get_many(&outputs());
    for (tc, h, msg) in [
        (t, 0.0, "must be > 0"),
        (t, -1e-3, "must be > 0"),
        (t, f64::NAN, "must be finite"),
        (t + 1e-3, 1e-3, "is not the instance's time"),
        (0.0, 1e-3, "is not the instance's time"),
    ] {
        assert_eq!(f.step(tc, h), ERROR);
        assert!(f.log.saw(msg), "{msg}");
    }
    assert_eq!(f.time(), t);
    assert_eq!(f.get_many(&outputs()), before);
    assert_eq!(f.step(t, 1e-3), OK);
}

#[test]
fn the_masters_tolerance_is_the_rtol_and_the_log_says_so() {
    // Logging on (instantiated with loggingOn = 1): the events category
    // says which rtol the integrator runs at.
    let f = Fmi2::new();
    // SAFETY: live instance.
    unsafe {
        assert_eq!(oc::fmi2SetupExperiment(f.c, 1, 1e-4, 0.0, 0, 0.0), OK);
    }
    assert!(
        f.log
            .saw("the master's tolerance 0.0001 sets the parameter rtol to 0.0001")
    );
    // SAFETY: live instance.
    unsafe {
        assert_eq!(oc::fmi2EnterInitializationMode(f.c), OK);
        assert_eq!(oc::fmi2ExitInitializationMode(f.c), OK);
    }
    assert_eq!(f.get(vr("rtol")), 1e-4);
    assert!(f.log.saw("at rtol = 0.0001"));
    // Without a tolerance from the master the parameter stays.
    let g = Fmi2::initialized();
    assert!(g.log.saw("at rtol = 0.000001"));
    assert!(!g.log.saw("the master's tolerance"));
}

#[test]
fn stop_time_is_enforced() {
    let f = Fmi2::new();
    // SAFETY: live instance.
    unsafe {
        assert_eq!(oc::fmi2SetupExperiment(f.c, 0, 0.0, 0.0, 1, 0.01), OK);
        assert_eq!(oc::fmi2EnterInitializationMode(f.c), OK);
        assert_eq!(oc::fmi2ExitInitializationMode(f.c), OK);
    }
    assert_eq!(f.step(0.0, 0.02), ERROR);
    assert!(f.log.saw("beyond stopTime"));
    assert_eq!(f.step(0.0, 0.01), OK);
}

#[test]
fn solver_failure_discards_and_keeps_the_last_good_state() {
    let f = Fmi2::initialized();
    let t = f.run(0.0, 1e-3, 5);
    let before = f.get_many(&outputs());
    assert_eq!(f.set_int(vr("max_substeps"), 2), OK);
    assert_eq!(f.set(vr("rtol"), 1e-12), OK);
    assert_eq!(f.step(t, 0.5), DISCARD);
    let msgs = f.log.take();
    assert!(
        msgs.iter().any(|(s, c, m)| *s == DISCARD
            && c == "logStatusDiscard"
            && m.contains("max_substeps")),
        "{msgs:?}"
    );
    let mut last = f64::NAN;
    // SAFETY: valid out-pointer; 2 = fmi2LastSuccessfulTime.
    assert_eq!(unsafe { oc::fmi2GetRealStatus(f.c, 2, &mut last) }, OK);
    assert_eq!(last, t);
    assert_eq!(f.time(), t);
    assert_eq!(f.get_many(&outputs()), before);
    // With sane settings the same step now succeeds.
    assert_eq!(f.set_int(vr("max_substeps"), 100_000), OK);
    assert_eq!(f.set(vr("rtol"), 1e-6), OK);
    assert_eq!(f.step(t, 0.5), OK);

    // FMI 3 reports lastSuccessfulTime from doStep itself.
    let g = Fmi3::initialized();
    let (s, last) = g.step(0.0, 1e-3);
    assert_eq!((s, last), (OK, 1e-3));
    let vrs = [vr("max_substeps")];
    let two = [2i32];
    // SAFETY: arrays of length 1.
    assert_eq!(
        unsafe { oc::fmi3SetInt32(g.c, vrs.as_ptr(), 1, two.as_ptr(), 1) },
        OK
    );
    let (s, last) = g.step(1e-3, 1.0);
    assert_eq!(s, DISCARD);
    assert_eq!(last, 1e-3);
    assert_eq!(g.get(vr("time")), 1e-3);
}

/// fmi2Terminated after the last doStep (3 = fmi2Terminated).
fn fmi2_terminated(f: &Fmi2) -> i32 {
    let mut value = 9;
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { oc::fmi2GetBooleanStatus(f.c, 3, &mut value) }, OK);
    value
}

#[test]
fn a_discard_that_a_retry_cannot_cure_reports_terminated() {
    // max_substeps exceeded: a shorter step may succeed, so the first
    // refusal is a plain Discard; the very same step again fails the same
    // way (the integrator started afresh), so the second says terminated,
    // and a master that retries unchanged (FMPy with FMI 2) stops.
    let f = Fmi2::initialized();
    let t = f.run(0.0, 1e-3, 5);
    assert_eq!(fmi2_terminated(&f), 0);
    assert_eq!(f.set_int(vr("max_substeps"), 2), OK);
    assert_eq!(f.set(vr("rtol"), 1e-12), OK);
    assert_eq!(f.step(t, 0.5), DISCARD);
    assert_eq!(fmi2_terminated(&f), 0);
    assert!(f.log.saw("retry with a shorter step"));
    assert_eq!(f.step(t, 0.5), DISCARD);
    assert_eq!(fmi2_terminated(&f), 1);
    assert!(f.log.saw("failed again, as it would every time"));
    // Another step (shorter) is a new try: plain Discard again, and a
    // step the settings allow succeeds and clears the flag.
    assert_eq!(f.step(t, 0.25), DISCARD);
    assert_eq!(fmi2_terminated(&f), 0);
    assert_eq!(f.set_int(vr("max_substeps"), 100_000), OK);
    assert_eq!(f.step(t, 0.25), OK);
    assert_eq!(fmi2_terminated(&f), 0);

    // FMI 3: doStep's terminateSimulation says the same.
    let g = Fmi3::initialized();
    assert_eq!(g.step(0.0, 1e-3), (OK, 1e-3));
    let vrs = [vr("max_substeps")];
    let two = [2i32];
    // SAFETY: arrays of length 1.
    assert_eq!(
        unsafe { oc::fmi3SetInt32(g.c, vrs.as_ptr(), 1, two.as_ptr(), 1) },
        OK
    );
    let step = |h: f64| {
        let (mut ev, mut term, mut early, mut last) = (9u8, 9u8, 9u8, f64::NAN);
        // SAFETY: all out-pointers valid.
        let s =
            unsafe { oc::fmi3DoStep(g.c, 1e-3, h, 1, &mut ev, &mut term, &mut early, &mut last) };
        (s, term, last)
    };
    assert_eq!(step(1.0), (DISCARD, 0, 1e-3));
    assert_eq!(step(1.0), (DISCARD, 1, 1e-3));
    assert_eq!(step(0.5), (DISCARD, 0, 1e-3));
}

#[test]
fn undefined_rates_discard_the_step_and_keep_the_state() {
    // The rates are NaN beyond |y1| = limit: the integrator cannot pass
    // y1 = 0.5 on its way to u = 1.
    let f = Fmi2::new();
    assert_eq!(f.set(vr("limit"), 0.5), OK);
    f.init();
    let t = f.run(0.0, 1e-4, 3);
    let before = f.get_many(&outputs());
    assert!(before[0] < 0.5);
    assert_eq!(f.step(t, 0.1), DISCARD);
    assert!(f.log.saw("discarded, state kept"));
    assert_eq!(f.time(), t);
    assert_eq!(f.get_many(&outputs()), before);
    // Every explicit method fails just as cleanly.
    for method in [2, 3] {
        assert_eq!(f.set_int(vr("solver"), method), OK);
        assert_eq!(f.step(t, 0.1), DISCARD);
        assert!(f.log.saw("NaN or infinite"));
        assert_eq!(f.get_many(&outputs()), before);
    }
}

fn trace(f: &Fmi2, t0: f64, n: usize) -> Vec<Vec<f64>> {
    let mut t = t0;
    (0..n)
        .map(|_| {
            assert_eq!(f.step(t, 1e-3), OK);
            t += 1e-3;
            f.get_many(&outputs())
        })
        .collect()
}

#[test]
fn fmu_state_round_trips_bit_for_bit() {
    // Rodas3, and the real-time methods with the Jacobian and LU factors
    // they carry from step to step.
    // Stepping ahead (6) carries a substep beyond the point it stands at:
    // the restored instance serves the next points from it.
    for solver in [1, 4, 5, 6] {
        round_trip_with_solver(solver);
    }
}

fn round_trip_with_solver(solver: i32) {
    let f = Fmi2::initialized();
    assert_eq!(f.set_int(vr("solver"), solver), OK);
    let t = f.run(0.0, 1e-3, 200);
    let mut state: *mut c_void = std::ptr::null_mut();
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { oc::fmi2GetFMUstate(f.c, &mut state) }, OK);
    let first = trace(&f, t, 200);
    // SAFETY: state from this instance.
    assert_eq!(unsafe { oc::fmi2SetFMUstate(f.c, state) }, OK);
    assert_eq!(f.time(), t);
    let second = trace(&f, t, 200);
    assert_eq!(
        first, second,
        "solver {solver}: get/set state must restore bit for bit"
    );

    // Serialize, continue elsewhere, deserialize into a fresh instance.
    let mut size = 0usize;
    // SAFETY: valid pointers.
    assert_eq!(
        unsafe { oc::fmi2SerializedFMUstateSize(f.c, state, &mut size) },
        OK
    );
    let mut bytes = vec![0i8; size];
    // SAFETY: buffer of `size` bytes.
    assert_eq!(
        unsafe { oc::fmi2SerializeFMUstate(f.c, state, bytes.as_mut_ptr(), size) },
        OK
    );
    let g = Fmi2::initialized();
    if solver >= 4 {
        // Another Jacobian (and substep ahead) in the fresh instance: the
        // state brings its own.
        assert_eq!(g.set_int(vr("solver"), solver), OK);
        g.run(0.0, 1e-3, 3);
    }
    let mut restored: *mut c_void = std::ptr::null_mut();
    // SAFETY: buffer of `size` bytes, valid out-pointer.
    assert_eq!(
        unsafe { oc::fmi2DeSerializeFMUstate(g.c, bytes.as_ptr(), size, &mut restored) },
        OK
    );
    // SAFETY: state from deserialize.
    assert_eq!(unsafe { oc::fmi2SetFMUstate(g.c, restored) }, OK);
    assert_eq!(
        trace(&g, t, 200),
        first,
        "solver {solver}: deserialized state must continue bit for bit"
    );

    // Truncated, corrupted and foreign buffers are rejected.
    let mut other: *mut c_void = std::ptr::null_mut();
    for (buf, why) in [
        (bytes[..size - 3].to_vec(), "checksum"),
        (bytes[..10].to_vec(), "truncated"),
        (
            {
                let mut b = bytes.clone();
                b[40] ^= 0x10;
                b
            },
            "checksum",
        ),
        ((0..size).map(|i| (i * 7) as i8).collect(), "bad magic"),
    ] {
        // SAFETY: buffer of buf.len() bytes.
        assert_eq!(
            unsafe { oc::fmi2DeSerializeFMUstate(g.c, buf.as_ptr(), buf.len(), &mut other) },
            ERROR
        );
        assert!(g.log.saw(why), "{why}");
        assert!(other.is_null());
    }
    // A state of an FMI 3 instance of the same model works in FMI 2 only
    // through bytes: the pointer itself is foreign to another instance's
    // checks only if it is not a live snapshot.
    // SAFETY: freeing states we own; afterwards the pointer is null.
    unsafe {
        assert_eq!(oc::fmi2FreeFMUstate(f.c, &mut state), OK);
        assert!(state.is_null());
        assert_eq!(oc::fmi2FreeFMUstate(g.c, &mut restored), OK);
    }
    // The instance still steps.
    assert_eq!(g.step(g.time(), 1e-3), OK);
}

#[test]
fn fmi3_state_serialization_round_trip_and_rejection() {
    let f = Fmi3::initialized();
    let mut t = 0.0;
    for _ in 0..100 {
        assert_eq!(f.step(t, 1e-3).0, OK);
        t += 1e-3;
    }
    let mut state: *mut c_void = std::ptr::null_mut();
    let mut size = 0usize;
    // SAFETY: valid pointers throughout.
    unsafe {
        assert_eq!(oc::fmi3GetFMUState(f.c, &mut state), OK);
        assert_eq!(oc::fmi3SerializedFMUStateSize(f.c, state, &mut size), OK);
    }
    let mut bytes = vec![0u8; size];
    // SAFETY: buffer of `size` bytes.
    assert_eq!(
        unsafe { oc::fmi3SerializeFMUState(f.c, state, bytes.as_mut_ptr(), size) },
        OK
    );
    let p1 = f.get(vr("y1"));
    for _ in 0..50 {
        assert_eq!(f.step(t, 1e-3).0, OK);
        t += 1e-3;
    }
    let mut back: *mut c_void = std::ptr::null_mut();
    // SAFETY: valid pointers.
    unsafe {
        assert_eq!(
            oc::fmi3DeserializeFMUState(f.c, bytes.as_ptr(), size, &mut back),
            OK
        );
        assert_eq!(oc::fmi3SetFMUState(f.c, back), OK);
    }
    assert_eq!(f.get(vr("y1")), p1);
    bytes[size / 2] ^= 1;
    let mut bad: *mut c_void = std::ptr::null_mut();
    // SAFETY: valid pointers.
    assert_eq!(
        unsafe { oc::fmi3DeserializeFMUState(f.c, bytes.as_ptr(), size, &mut bad) },
        ERROR
    );
    assert!(f.log.saw("rejected"));
    // SAFETY: freeing our states.
    unsafe {
        assert_eq!(oc::fmi3FreeFMUState(f.c, &mut state), OK);
        assert_eq!(oc::fmi3FreeFMUState(f.c, &mut back), OK);
        // A freed state is no longer accepted.
        assert_eq!(oc::fmi3SetFMUState(f.c, std::ptr::null_mut()), ERROR);
    }
}

#[test]
fn directional_derivatives_are_the_model_partials() {
    let f = Fmi2::initialized();
    let t = f.run(0.0, 1e-3, 3);
    let k = 1e3;
    let knowns = [vr("u"), vr("w"), vr("y1"), vr("y2")];
    // d(y1, y2, dy1, total)/d(u, w, y1, y2), row = output: dy1 analytic,
    // total by fmu-core's finite differences.
    let expected = [
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
        [k, 0.0, -k, 0.0],
        [1.0, 1.0, 0.0, 1.0],
    ];
    for (c, &known) in knowns.iter().enumerate() {
        let mut seed = [0.0; 4];
        seed[c] = 1.0;
        let mut sens = [f64::NAN; 4];
        // SAFETY: arrays sized as declared.
        assert_eq!(
            unsafe {
                oc::fmi2GetDirectionalDerivative(
                    f.c,
                    outputs().as_ptr(),
                    4,
                    knowns.as_ptr(),
                    4,
                    seed.as_ptr(),
                    sens.as_mut_ptr(),
                )
            },
            OK
        );
        for r in 0..4 {
            assert!(
                (sens[r] - expected[r][c]).abs() <= 1e-6 * expected[r][c].abs().max(1.0),
                "d{}/d{known}: {} vs {}",
                outputs()[r],
                sens[r],
                expected[r][c]
            );
        }
        if c < 2 {
            // The same through the FMI interface: perturb the input.
            let v0 = f.get(known);
            let h = 1e-3;
            assert_eq!(f.set(known, v0 + h), OK);
            let up = f.get_many(&outputs());
            assert_eq!(f.set(known, v0 - h), OK);
            let down = f.get_many(&outputs());
            assert_eq!(f.set(known, v0), OK);
            for r in 0..4 {
                let fd = (up[r] - down[r]) / (2.0 * h);
                assert!(
                    (fd - sens[r]).abs() <= 1e-6 * fd.abs().max(1.0),
                    "{fd} vs {}",
                    sens[r]
                );
            }
        }
    }
    // Knowns that are neither inputs nor states are refused.
    let (u, kn, s) = ([vr("dy1")], [vr("k")], [1.0]);
    let mut out = [0.0];
    // SAFETY: arrays of length 1.
    assert_eq!(
        unsafe {
            oc::fmi2GetDirectionalDerivative(
                f.c,
                u.as_ptr(),
                1,
                kn.as_ptr(),
                1,
                s.as_ptr(),
                out.as_mut_ptr(),
            )
        },
        ERROR
    );
    assert!(f.log.saw("cannot be a known"));
    assert_eq!(f.step(t, 1e-3), OK);
}

#[test]
fn fmi3_typed_access_checks() {
    let f = Fmi3::initialized();
    let mut v8 = 0i8;
    // SAFETY: arrays of length 1.
    assert_eq!(
        unsafe { oc::fmi3GetInt8(f.c, &vr("u"), 1, &mut v8, 1) },
        ERROR
    );
    assert!(f.log.saw("is Float64, not Int8"));
    let mut two = [0.0; 2];
    // SAFETY: out array of length 2, one vr.
    assert_eq!(
        unsafe { oc::fmi3GetFloat64(f.c, &vr("u"), 1, two.as_mut_ptr(), 2) },
        ERROR
    );
    assert!(f.log.saw("nValues"));
    // Nothing asked of a type the model has none of: fine.
    // SAFETY: empty arrays.
    assert_eq!(
        unsafe { oc::fmi3GetInt8(f.c, std::ptr::null(), 0, std::ptr::null_mut(), 0) },
        OK
    );
    let mut b = 0u8;
    // SAFETY: arrays of length 1.
    assert_eq!(
        unsafe { oc::fmi3GetBoolean(f.c, &vr("analytic"), 1, &mut b, 1) },
        OK
    );
    assert_eq!(b, 1);
    let mut n = 0i32;
    // SAFETY: arrays of length 1.
    assert_eq!(
        unsafe { oc::fmi3GetInt32(f.c, &vr("stages"), 1, &mut n, 1) },
        OK
    );
    assert_eq!(n, 2);
    // Null out-pointers of doStep.
    // SAFETY: deliberately null out-pointers.
    let s = unsafe {
        oc::fmi3DoStep(
            f.c,
            0.0,
            1e-3,
            0,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    };
    assert_eq!(s, ERROR);
    assert!(f.log.saw("argument 'eventHandlingNeeded' is NULL"));
    // An FMI 3 instance is not an FMI 2 component.
    // SAFETY: live instance of the other interface.
    assert_eq!(unsafe { oc::fmi2DoStep(f.c, 0.0, 1e-3, 0) }, ERROR);
    assert!(f.log.saw("created through the Fmi3 interface"));
    // Capabilities the FMU lacks, and Model Exchange functions on a
    // Co-Simulation instance, answer with an error and a message.
    // SAFETY: live instance.
    unsafe {
        assert_eq!(oc::fmi3EnterConfigurationMode(f.c), ERROR);
        assert_eq!(oc::fmi3EnterEventMode(f.c), ERROR);
        let mut x = [0.0; 2];
        assert_eq!(oc::fmi3GetContinuousStates(f.c, x.as_mut_ptr(), 2), ERROR);
    }
    assert!(f.log.saw("created for Co-Simulation"));
    assert_eq!(f.step(0.0, 1e-3).0, OK);
    // Scheduled Execution instantiation refused.
    let name = CString::new("se").unwrap();
    // SAFETY: valid strings; null logger allowed in FMI 3.
    let se = unsafe {
        oc::fmi3InstantiateScheduledExecution(
            name.as_ptr(),
            token().as_ptr(),
            std::ptr::null(),
            0,
            0,
            std::ptr::null_mut(),
            None,
            None,
            None,
            None,
        )
    };
    assert!(se.is_null());
}

#[test]
fn log_categories_are_honoured() {
    let f = Fmi2::initialized();
    let cats = [CString::new("logStatusError").unwrap()];
    let ptrs: Vec<_> = cats.iter().map(|c| c.as_ptr()).collect();
    // SAFETY: array of one C string.
    assert_eq!(
        unsafe { oc::fmi2SetDebugLogging(f.c, 0, 1, ptrs.as_ptr()) },
        OK
    );
    f.log.take();
    assert_eq!(f.set(vr("u"), f64::NAN), ERROR);
    assert!(f.log.take().is_empty(), "logStatusError was disabled");
    // SAFETY: as above.
    assert_eq!(
        unsafe { oc::fmi2SetDebugLogging(f.c, 1, 1, ptrs.as_ptr()) },
        OK
    );
    assert_eq!(f.set(vr("u"), f64::NAN), ERROR);
    assert!(f.log.saw("not finite"));
    let unknown = [CString::new("logNoSuchThing").unwrap()];
    let uptr: Vec<_> = unknown.iter().map(|c| c.as_ptr()).collect();
    // SAFETY: array of one C string.
    assert_eq!(
        unsafe { oc::fmi2SetDebugLogging(f.c, 1, 1, uptr.as_ptr()) },
        ERROR
    );
    assert!(f.log.saw("unknown log categories: logNoSuchThing"));
}

#[test]
fn two_instances_in_two_threads_match_one_thread() {
    let run = |supply: f64| {
        let f = Fmi2::initialized();
        assert_eq!(f.set(vr("u"), supply), OK);
        let mut out = Vec::new();
        let mut t = 0.0;
        for _ in 0..500 {
            assert_eq!(f.step(t, 1e-3), OK);
            t += 1e-3;
            out.push(f.get_many(&outputs()));
        }
        out
    };
    let sequential = (run(1.0), run(-2.0));
    let a = std::thread::spawn(move || run(1.0));
    let b = std::thread::spawn(move || run(-2.0));
    let threaded = (a.join().unwrap(), b.join().unwrap());
    assert_eq!(sequential, threaded);
}

#[test]
fn the_integrated_solution_is_the_exact_one() {
    // y1 = 1 - exp(-k t), y2 = 1 - (k exp(-s t) - s exp(-k t)) / (k - s)
    // for u = 1 from rest; with the analytic Jacobian and with finite
    // differences, and with one lag only (stages = 1: y2 inactive).
    let (k, slow) = (1e3, 1.0);
    for analytic in [true, false] {
        let f = Fmi2::new();
        assert_eq!(f.set_bool(vr("analytic"), analytic), OK);
        assert_eq!(f.set(vr("rtol"), 1e-9), OK);
        f.init();
        let t = f.run(0.0, 1e-3, 1000);
        let y1 = 1.0 - (-k * t).exp();
        let y2 = 1.0 - (k * (-slow * t).exp() - slow * (-k * t).exp()) / (k - slow);
        let got = f.get_many(&[vr("y1"), vr("y2")]);
        assert!(
            (got[0] - y1).abs() < 1e-7,
            "analytic {analytic}: {} vs {y1}",
            got[0]
        );
        assert!(
            (got[1] - y2).abs() < 1e-7,
            "analytic {analytic}: {} vs {y2}",
            got[1]
        );
    }
    let f = Fmi2::new();
    assert_eq!(f.set_int(vr("stages"), 1), OK);
    f.init();
    f.run(0.0, 1e-3, 100);
    assert_eq!(f.get(vr("y2")), 0.0);
    assert!((f.get(vr("y1")) - 1.0).abs() < 1e-6);
}

#[test]
fn structural_parameters_in_configuration_mode() {
    let f = Fmi3::try_new(&token()).expect("instantiation");
    // SAFETY: live instance.
    assert_eq!(unsafe { oc::fmi3EnterConfigurationMode(f.c) }, OK);
    assert_eq!(f.set_int(vr("stages"), 1), OK);
    assert_eq!(f.set(vr("k"), 5.0), ERROR);
    assert!(f.log.saw("only structural parameters can"));
    // SAFETY: live instance.
    unsafe {
        assert_eq!(oc::fmi3ExitConfigurationMode(f.c), OK);
        assert_eq!(
            oc::fmi3EnterInitializationMode(f.c, 0, 0.0, 0.0, 0, 0.0),
            OK
        );
        assert_eq!(oc::fmi3ExitInitializationMode(f.c), OK);
    }
    // Fixed for the simulation now.
    assert_eq!(f.set_int(vr("stages"), 2), ERROR);
    assert!(
        f.log
            .saw("structural parameter and cannot be changed in Step Mode")
    );
    assert_eq!(f.step(0.0, 0.1).0, OK);
    assert_eq!(f.get(vr("y2")), 0.0);
}

#[test]
fn the_documentation_check_names_undocumented_variables() {
    // The test model's page has no variable tables: every variable is named.
    let err = fmu_core::testing::check_documentation::<oc::Relaxation>().unwrap_err();
    assert!(
        err.contains("'u' is in no table") && err.contains("'stages' is in no table"),
        "{err}"
    );
}
