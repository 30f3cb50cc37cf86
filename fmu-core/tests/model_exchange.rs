//! Model Exchange through the exported C functions of the test model
//! `Relaxation`: the life cycle of both FMI versions, the master integrating
//! the derivatives itself, directional derivatives of the derivatives
//! against central differences, and every refusal with its message.

mod common;

use common::relaxation as oc;
use common::*;
use std::ffi::{CString, c_void};

/// An FMI 2 Model Exchange instance, initialized and in Continuous-Time Mode.
fn fmi2_me() -> Fmi2 {
    let f = Fmi2::try_new(&token(), 0).expect("Model Exchange instantiation refused");
    f.init();
    let mut info = fmu_core::fmi2::fmi2EventInfo {
        newDiscreteStatesNeeded: 1,
        terminateSimulation: 1,
        nominalsOfContinuousStatesChanged: 1,
        valuesOfContinuousStatesChanged: 1,
        nextEventTimeDefined: 1,
        nextEventTime: -1.0,
    };
    // SAFETY: live instance, valid event info.
    unsafe {
        assert_eq!(oc::fmi2NewDiscreteStates(f.c, &mut info), OK);
        assert_eq!(oc::fmi2EnterContinuousTimeMode(f.c), OK);
    }
    assert_eq!(info.newDiscreteStatesNeeded, 0);
    assert_eq!(info.terminateSimulation, 0);
    assert_eq!(info.valuesOfContinuousStatesChanged, 0);
    assert_eq!(info.nextEventTimeDefined, 0);
    f
}

/// An FMI 3 Model Exchange instance, initialized and in Continuous-Time Mode.
fn fmi3_me(log: &LogBook) -> *mut c_void {
    let name = CString::new("me3").unwrap();
    // SAFETY: valid strings and logger.
    let c = unsafe {
        oc::fmi3InstantiateModelExchange(
            name.as_ptr(),
            token().as_ptr(),
            std::ptr::null(),
            0,
            1,
            log as *const LogBook as *mut c_void,
            Some(fmi3_logger),
        )
    };
    assert!(!c.is_null(), "{:?}", log.take());
    let mut flags = [1u8; 5];
    let mut next = -1.0;
    // SAFETY: live instance, valid out-pointers.
    unsafe {
        assert_eq!(oc::fmi3EnterInitializationMode(c, 0, 0.0, 0.0, 0, 0.0), OK);
        assert_eq!(oc::fmi3ExitInitializationMode(c), OK);
        let [a, b, d, e, g] = &mut flags;
        assert_eq!(
            oc::fmi3UpdateDiscreteStates(c, a, b, d, e, g, &mut next),
            OK
        );
        assert_eq!(oc::fmi3EnterContinuousTimeMode(c), OK);
    }
    assert_eq!(flags, [0; 5]);
    c
}

/// Integrates the FMI 2 instance with explicit Euler from 0 to `t_end` by
/// `h`, the way a simple master does.
fn euler_fmi2(f: &Fmi2, h: f64, t_end: f64) -> [f64; 2] {
    let mut x = [0.0; 2];
    let mut dx = [0.0; 2];
    let mut t = 0.0;
    // SAFETY: live instance, arrays of the state count.
    unsafe {
        assert_eq!(oc::fmi2GetContinuousStates(f.c, x.as_mut_ptr(), 2), OK);
        while t < t_end - h / 2.0 {
            assert_eq!(oc::fmi2GetDerivatives(f.c, dx.as_mut_ptr(), 2), OK);
            x = [x[0] + h * dx[0], x[1] + h * dx[1]];
            t += h;
            assert_eq!(oc::fmi2SetTime(f.c, t), OK);
            assert_eq!(oc::fmi2SetContinuousStates(f.c, x.as_ptr(), 2), OK);
            let (mut event, mut stop) = (1, 1);
            assert_eq!(
                oc::fmi2CompletedIntegratorStep(f.c, 1, &mut event, &mut stop),
                OK
            );
            assert_eq!((event, stop), (0, 0));
        }
    }
    x
}

#[test]
fn fmi2_master_integrates_the_derivatives() {
    let f = fmi2_me();
    // Relaxation with k = 1e3, slow = 1, u = 1 from y = 0:
    // y1 = 1 - exp(-k t), y2 follows with the slow lag.
    let x = euler_fmi2(&f, 1e-5, 0.5);
    let k: f64 = 1e3;
    let t: f64 = 0.5;
    let y1 = 1.0 - (-k * t).exp();
    // y2' = y1 - y2 with y1 ~ 1 - exp(-k t): y2 = 1 - exp(-t) - small.
    let y2 = 1.0 - (-t).exp() - ((-t).exp() - (-k * t).exp()) / (k - 1.0);
    assert!((x[0] - y1).abs() < 1e-6, "y1 {} vs {y1}", x[0]);
    assert!((x[1] - y2).abs() < 1e-4, "y2 {} vs {y2}", x[1]);
    // The outputs that show states read the master's states.
    assert_eq!(f.get(vr("y1")), x[0]);
    assert_eq!(f.get(vr("y2")), x[1]);
    // The derivative variables read the same rates as getDerivatives.
    let der = f.get_many(&[vr("der(y1)"), vr("der(y2)")]);
    assert!((der[0] - k * (1.0 - x[0])).abs() < 1e-9 * k);
    assert!((der[1] - (x[0] - x[1])).abs() < 1e-12);
    let mut nominal = [0.0; 2];
    // SAFETY: live instance.
    unsafe {
        assert_eq!(
            oc::fmi2GetNominalsOfContinuousStates(f.c, nominal.as_mut_ptr(), 2),
            OK
        );
        let mut z = [f64::NAN];
        assert_eq!(oc::fmi2GetEventIndicators(f.c, z.as_mut_ptr(), 1), OK);
        assert_eq!(z[0], 1.0 - x[0]);
        assert_eq!(f.get(vr("event_y1_reaches_u")), z[0]);
        assert_eq!(oc::fmi2Terminate(f.c), OK);
    }
    assert_eq!(nominal, [1.0, 1.0]);
}

#[test]
fn fmi3_master_integrates_the_derivatives_and_events_change_inputs() {
    let log = LogBook::new();
    let c = fmi3_me(&log);
    let mut n = 0usize;
    let mut x = [0.0; 2];
    let mut dx = [0.0; 2];
    // SAFETY: live instance, arrays of the state count.
    unsafe {
        assert_eq!(oc::fmi3GetNumberOfContinuousStates(c, &mut n), OK);
        assert_eq!(n, 2);
        assert_eq!(oc::fmi3GetNumberOfEventIndicators(c, &mut n), OK);
        assert_eq!(n, 1);
        assert_eq!(oc::fmi3GetContinuousStates(c, x.as_mut_ptr(), 2), OK);
        let h = 1e-5;
        let mut t = 0.0;
        for step in 0..20_000 {
            if step == 10_000 {
                // An input change at an event: u = -1 from t = 0.1 s.
                assert_eq!(oc::fmi3EnterEventMode(c), OK);
                let u = vr("u");
                assert_eq!(oc::fmi3SetFloat64(c, &u, 1, &-1.0, 1), OK);
                let mut flags = [0u8; 5];
                let mut next = 0.0;
                let [a, b, d, e, g] = &mut flags;
                assert_eq!(
                    oc::fmi3UpdateDiscreteStates(c, a, b, d, e, g, &mut next),
                    OK
                );
                assert_eq!(oc::fmi3EnterContinuousTimeMode(c), OK);
            }
            assert_eq!(
                oc::fmi3GetContinuousStateDerivatives(c, dx.as_mut_ptr(), 2),
                OK
            );
            x = [x[0] + h * dx[0], x[1] + h * dx[1]];
            t += h;
            assert_eq!(oc::fmi3SetTime(c, t), OK);
            assert_eq!(oc::fmi3SetContinuousStates(c, x.as_ptr(), 2), OK);
        }
        // After 0.1 s towards -1 with k = 1e3, y1 is at -1.
        assert!((x[0] + 1.0).abs() < 1e-9, "y1 = {}", x[0]);
        assert_eq!(oc::fmi3Terminate(c), OK);
        oc::fmi3FreeInstance(c);
    }
}

#[test]
fn derivative_directional_derivatives_match_central_differences() {
    for analytic in [true, false] {
        let f = Fmi2::try_new(&token(), 0).unwrap();
        f.set_bool(vr("analytic"), analytic);
        f.init();
        // SAFETY: live instance.
        unsafe { assert_eq!(oc::fmi2EnterContinuousTimeMode(f.c), OK) };
        let x0 = [0.3, -0.2];
        // SAFETY: as above.
        unsafe { assert_eq!(oc::fmi2SetContinuousStates(f.c, x0.as_ptr(), 2), OK) };
        let unknowns = [vr("der(y1)"), vr("der(y2)")];
        let knowns = [vr("y1"), vr("y2"), vr("u")];
        let rates = |x: [f64; 2], u: f64| [1e3 * (u - x[0]), x[0] - x[1]];
        for (j, &known) in knowns.iter().enumerate() {
            let mut sens = [f64::NAN; 2];
            // SAFETY: arrays of matching lengths.
            let s = unsafe {
                oc::fmi2GetDirectionalDerivative(
                    f.c,
                    unknowns.as_ptr(),
                    2,
                    &known,
                    1,
                    &1.0,
                    sens.as_mut_ptr(),
                )
            };
            assert_eq!(s, OK);
            let h = 1e-6;
            let (mut xp, mut xm, mut up, mut um) = (x0, x0, 1.0, 1.0);
            if j < 2 {
                xp[j] += h;
                xm[j] -= h;
            } else {
                up += h;
                um -= h;
            }
            let (rp, rm) = (rates(xp, up), rates(xm, um));
            for i in 0..2 {
                let fd = (rp[i] - rm[i]) / (2.0 * h);
                let scale = fd.abs().max(1.0);
                assert!(
                    (sens[i] - fd).abs() < 1e-6 * scale,
                    "analytic {analytic}: d der{i} / d known {j}: {} vs {fd}",
                    sens[i]
                );
            }
        }
    }
}

#[test]
fn wrong_calls_are_refused_and_change_nothing() {
    let f = fmi2_me();
    let x0 = [0.25, 0.5];
    let mut x = [0.0; 2];
    // SAFETY: live instance; deliberately wrong counts, NaN and NULL.
    unsafe {
        assert_eq!(oc::fmi2SetContinuousStates(f.c, x0.as_ptr(), 2), OK);
        assert_eq!(oc::fmi2SetContinuousStates(f.c, x0.as_ptr(), 3), ERROR);
        assert!(f.log.saw("nx = 3, but the model has 2 continuous states"));
        let bad = [f64::NAN, 0.0];
        assert_eq!(oc::fmi2SetContinuousStates(f.c, bad.as_ptr(), 2), ERROR);
        assert!(f.log.saw("is not finite; the states are unchanged"));
        assert_eq!(oc::fmi2SetContinuousStates(f.c, std::ptr::null(), 2), ERROR);
        assert_eq!(oc::fmi2GetDerivatives(f.c, x.as_mut_ptr(), 1), ERROR);
        assert_eq!(oc::fmi2GetEventIndicators(f.c, x.as_mut_ptr(), 2), ERROR);
        assert!(
            f.log
                .saw("2 event indicators asked for; this model declares 1")
        );
        assert_eq!(oc::fmi2SetTime(f.c, f64::INFINITY), ERROR);
        assert_eq!(oc::fmi2SetTime(f.c, -1.0), ERROR);
        assert!(f.log.saw("not before the start time"));
        // Wrong states of the state machine.
        assert_eq!(oc::fmi2EnterContinuousTimeMode(f.c), ERROR);
        assert!(f.log.saw("not allowed in state Continuous-Time Mode"));
        assert_eq!(oc::fmi2DoStep(f.c, 0.0, 1e-3, 0), ERROR);
        assert!(f.log.saw("created for Model Exchange"));
        let mut info = std::mem::zeroed::<fmu_core::fmi2::fmi2EventInfo>();
        assert_eq!(oc::fmi2NewDiscreteStates(f.c, &mut info), ERROR);
        assert_eq!(oc::fmi2NewDiscreteStates(f.c, std::ptr::null_mut()), ERROR);
        // A fixed parameter cannot change after initialization, a tunable
        // one only in Event Mode.
        assert_eq!(f.set(vr("k"), 5.0), ERROR);
        assert_eq!(f.set(vr("slow"), 5.0), ERROR);
        assert_eq!(oc::fmi2EnterEventMode(f.c), OK);
        assert_eq!(f.set(vr("slow"), 5.0), OK);
        assert_eq!(oc::fmi2EnterContinuousTimeMode(f.c), OK);
        // Nothing above changed the states.
        assert_eq!(oc::fmi2GetContinuousStates(f.c, x.as_mut_ptr(), 2), OK);
    }
    assert_eq!(x, x0);
    // Rates that are not finite (|y1| beyond `limit`: outside the model's
    // domain) are a Discard, not NaNs and not an Error: the master's
    // integrator tries a smaller step, and the instance stays usable.
    let far = [2e6, 0.0];
    let mut dx = [7.0; 2];
    // SAFETY: as above.
    unsafe {
        assert_eq!(oc::fmi2SetContinuousStates(f.c, far.as_ptr(), 2), OK);
        assert_eq!(oc::fmi2GetDerivatives(f.c, dx.as_mut_ptr(), 2), DISCARD);
        assert_eq!(dx, [7.0; 2], "no values are returned with the Discard");
        assert_eq!(oc::fmi2SetContinuousStates(f.c, x0.as_ptr(), 2), OK);
        assert_eq!(oc::fmi2GetDerivatives(f.c, dx.as_mut_ptr(), 2), OK);
    }
    assert!(dx.iter().all(|v| v.is_finite()));
    assert!(
        f.log
            .saw("outside what the model can evaluate; no values are returned")
    );
}

#[test]
fn fmu_state_of_a_model_exchange_instance_round_trips() {
    let f = fmi2_me();
    let x0 = [0.125, 0.75];
    let mut state: *mut c_void = std::ptr::null_mut();
    let mut x = [0.0; 2];
    // SAFETY: live instance and state.
    unsafe {
        assert_eq!(oc::fmi2SetTime(f.c, 0.5), OK);
        assert_eq!(oc::fmi2SetContinuousStates(f.c, x0.as_ptr(), 2), OK);
        assert_eq!(oc::fmi2GetFMUstate(f.c, &mut state), OK);
        let other = [9.0, 9.0];
        assert_eq!(oc::fmi2SetContinuousStates(f.c, other.as_ptr(), 2), OK);
        assert_eq!(oc::fmi2SetTime(f.c, 0.75), OK);
        assert_eq!(oc::fmi2SetFMUstate(f.c, state), OK);
        assert_eq!(oc::fmi2GetContinuousStates(f.c, x.as_mut_ptr(), 2), OK);
        assert_eq!(oc::fmi2FreeFMUstate(f.c, &mut state), OK);
    }
    assert_eq!(x, x0);
    assert_eq!(f.time(), 0.5);
}
