//! Categories 2-4: functions called in states the standard forbids, NULL
//! pointers for every pointer argument (and a NULL instance for every
//! function), and wrong value references and types.

use super::api::{ERROR, Inst, Lib, OK, Ptr, WARNING, kind, status_name};
use super::suite::{Ctx, MID, STEPS, Stage, check_refusal};
use super::xml::{Ty, Var};
use std::ffi::{c_char, c_void};
use validation::fmi::{fmi2, fmi3};

type Call<'c> = Box<dyn Fn(&Inst) -> i32 + 'c>;

/// A variable of `ty` that may be set in Step Mode (an input first), with
/// a valid value (its start).
fn settable_of(ctx: &Ctx, ty: Ty) -> Option<(u32, f64)> {
    let vars = &ctx.desc().variables;
    let pick = |f: &dyn Fn(&Var) -> bool| vars.iter().find(|v| v.ty == ty && f(v)).cloned();
    let v = pick(&|v| v.causality == "input").or_else(|| pick(&|v| v.tunable_in_step_mode()))?;
    Some((v.vr, v.start.unwrap_or(0.0)))
}

/// Unknowns and knowns of a valid directional derivative: the first Real
/// output, and the first Real input (none when the model has none).
fn derivative_args(ctx: &Ctx) -> (Vec<u32>, Vec<u32>) {
    let d = ctx.desc();
    let unknowns = ctx.outputs.first().map(|o| vec![o.0]).unwrap_or_default();
    let knowns = d
        .variables
        .iter()
        .find(|v| v.ty == Ty::Real && v.causality == "input")
        .map(|v| vec![v.vr])
        .unwrap_or_default();
    (unknowns, knowns)
}

/// Time of the instance at a stage.
fn time_at(ctx: &Ctx, stage: Stage) -> f64 {
    match stage {
        Stage::Step(k) => ctx.times[k],
        Stage::Terminated => ctx.times[STEPS],
        _ => 0.0,
    }
}

/// Category 2: every function in every state the standard forbids it in.
pub(crate) fn wrong_states(ctx: &mut Ctx) {
    let cat = "states";
    ctx.tally.begin(cat);
    use Stage::*;
    let s = Step(MID);
    let lib = ctx.lib;
    let h = ctx.h;
    let (unknowns, knowns) = derivative_args(ctx);
    let mut ops: Vec<(&str, Vec<Stage>, Call)> = Vec::new();
    let times: Vec<f64> = [Instantiated, Init, s, Terminated, Config]
        .iter()
        .map(|st| time_at(ctx, *st))
        .collect();
    let t_of = move |st: Stage| match st {
        Instantiated | Config => times[0],
        Init => times[1],
        Step(_) => times[2],
        Terminated => times[3],
    };
    let all_vrs = ctx.vrs.clone();
    if !lib.fmi3() {
        let f = *lib.v2();
        ops.push((
            "fmi2SetupExperiment",
            vec![Init, s, Terminated],
            Box::new(move |i| unsafe { (f.setup_experiment)(i.ptr, 0, 0.0, 0.0, 0, 0.0) }),
        ));
        ops.push((
            "fmi2EnterInitializationMode",
            vec![Init, s, Terminated],
            Box::new(move |i| unsafe { (f.enter_initialization_mode)(i.ptr) }),
        ));
        ops.push((
            "fmi2ExitInitializationMode",
            vec![Instantiated, s, Terminated],
            Box::new(move |i| unsafe { (f.exit_initialization_mode)(i.ptr) }),
        ));
        ops.push((
            "fmi2Terminate",
            vec![Instantiated, Init, Terminated],
            Box::new(move |i| unsafe { (f.terminate)(i.ptr) }),
        ));
        ops.push((
            "fmi2CancelStep",
            vec![Instantiated, Init, s, Terminated],
            Box::new(move |i| unsafe { (f.cancel_step)(i.ptr) }),
        ));
        ops.push((
            "fmi2GetString",
            vec![Instantiated],
            Box::new(move |i| unsafe {
                (f.get_string)(i.ptr, std::ptr::null(), 0, std::ptr::null_mut())
            }),
        ));
        ops.push((
            "fmi2SetString",
            vec![Terminated],
            Box::new(move |i| unsafe {
                (f.set_string)(i.ptr, std::ptr::null(), 0, std::ptr::null())
            }),
        ));
        ops.push((
            "fmi2GetStatus",
            vec![Instantiated, Init],
            Box::new(move |i| {
                let mut v = 0;
                unsafe { (f.get_status)(i.ptr, kind::DO_STEP_STATUS, &mut v) }
            }),
        ));
        ops.push((
            "fmi2GetRealStatus",
            vec![Instantiated, Init],
            Box::new(move |i| {
                let mut v = 0.0;
                unsafe { (f.get_real_status)(i.ptr, kind::LAST_SUCCESSFUL_TIME, &mut v) }
            }),
        ));
        ops.push((
            "fmi2GetIntegerStatus",
            vec![Instantiated, Init],
            Box::new(move |i| {
                let mut v = 0;
                unsafe { (f.get_integer_status)(i.ptr, kind::DO_STEP_STATUS, &mut v) }
            }),
        ));
        ops.push((
            "fmi2GetBooleanStatus",
            vec![Instantiated, Init],
            Box::new(move |i| {
                let mut v = 0;
                unsafe { (f.get_boolean_status)(i.ptr, kind::TERMINATED, &mut v) }
            }),
        ));
        ops.push((
            "fmi2GetStringStatus",
            vec![Instantiated, Init],
            Box::new(move |i| {
                let mut v: *const c_char = std::ptr::null();
                unsafe { (f.get_string_status)(i.ptr, kind::PENDING_STATUS, &mut v) }
            }),
        ));
        ops.push((
            "fmi2GetRealOutputDerivatives",
            vec![Instantiated, Init],
            Box::new(move |i| {
                let vr = [0u32];
                let order = [1i32];
                let mut v = [0.0];
                unsafe {
                    (f.get_real_output_derivatives)(
                        i.ptr,
                        vr.as_ptr(),
                        1,
                        order.as_ptr(),
                        v.as_mut_ptr(),
                    )
                }
            }),
        ));
        ops.push((
            "fmi2SetRealInputDerivatives",
            vec![Instantiated, Terminated],
            Box::new(move |i| {
                let vr = [knowns_first(&all_vrs)];
                let order = [1i32];
                let v = [0.0];
                unsafe {
                    (f.set_real_input_derivatives)(
                        i.ptr,
                        vr.as_ptr(),
                        1,
                        order.as_ptr(),
                        v.as_ptr(),
                    )
                }
            }),
        ));
    } else {
        let f = *lib.v3();
        let structural = ctx.desc().has_structural();
        let tunable_structural = ctx
            .desc()
            .variables
            .iter()
            .any(|v| v.structural && v.variability == "tunable");
        ops.push((
            "fmi3EnterInitializationMode",
            vec![Init, s, Terminated, Config],
            Box::new(move |i| unsafe { (f.enter_initialization_mode)(i.ptr, 0, 0.0, 0.0, 0, 0.0) }),
        ));
        ops.push((
            "fmi3ExitInitializationMode",
            vec![Instantiated, s, Terminated, Config],
            Box::new(move |i| unsafe { (f.exit_initialization_mode)(i.ptr) }),
        ));
        let mut enter_config = vec![Init, Terminated];
        if structural {
            enter_config.push(Config);
        } else {
            // No structural parameter: Configuration Mode has no use.
            enter_config.push(Instantiated);
        }
        if !tunable_structural {
            enter_config.push(s);
        }
        ops.push((
            "fmi3EnterConfigurationMode",
            enter_config,
            Box::new(move |i| unsafe { (f.enter_configuration_mode)(i.ptr) }),
        ));
        ops.push((
            "fmi3ExitConfigurationMode",
            vec![Instantiated, Init, s, Terminated],
            Box::new(move |i| unsafe { (f.exit_configuration_mode)(i.ptr) }),
        ));
        ops.push((
            "fmi3Terminate",
            vec![Instantiated, Terminated, Config],
            Box::new(move |i| unsafe { (f.terminate)(i.ptr) }),
        ));
    }
    // Both versions through the neutral wrapper.
    for st in [Instantiated, Init, Terminated, Config] {
        let name = if lib.fmi3() {
            "fmi3DoStep"
        } else {
            "fmi2DoStep"
        };
        let t = t_of(st);
        ops.push((name, vec![st], Box::new(move |i| i.do_step(t, h))));
    }
    for ty in Ty::ALL {
        let Some(vrs) = ctx.vrs.get(&ty).cloned() else {
            continue;
        };
        let get_name = match (lib.fmi3(), ty) {
            (false, Ty::Real) => "fmi2GetReal",
            (false, Ty::Integer) => "fmi2GetInteger",
            (false, Ty::Boolean) => "fmi2GetBoolean",
            (true, Ty::Real) => "fmi3GetFloat64",
            (true, Ty::Integer) => "fmi3GetInt32",
            (true, Ty::Boolean) => "fmi3GetBoolean",
        };
        ops.push((
            get_name,
            vec![Instantiated],
            Box::new(move |i| i.get(ty, &vrs).0),
        ));
        if let Some((vr, value)) = settable_of(ctx, ty) {
            let set_name = get_name.replace("Get", "Set");
            let name: &'static str = Box::leak(set_name.into_boxed_str());
            let mut forbidden = vec![Terminated];
            if lib.fmi3() && ctx.desc().has_structural() {
                // Only structural parameters in Configuration Mode.
                forbidden.push(Config);
            }
            ops.push((name, forbidden, Box::new(move |i| i.set(ty, vr, value))));
        }
    }
    let dd_name = if lib.fmi3() {
        "fmi3GetDirectionalDerivative"
    } else {
        "fmi2GetDirectionalDerivative"
    };
    let mut dd_forbidden = vec![Instantiated];
    if lib.fmi3() {
        dd_forbidden.push(Config);
    }
    if !ctx.desc().provides_derivatives() {
        dd_forbidden.clear();
    }
    ops.push((
        dd_name,
        dd_forbidden,
        Box::new(move |i| i.directional_derivative(&unknowns, &knowns)),
    ));

    let has_config = lib.fmi3() && ctx.desc().has_structural();
    for (name, forbidden, call) in &ops {
        for stage in forbidden {
            if *stage == Config && !has_config {
                continue;
            }
            let r = ctx.attack(*stage, false, false, |i| call(i));
            ctx.tally
                .case(cat, format!("{name} in {}", stage.name()), r);
        }
    }
    ctx.tally.end(cat);
}

fn knowns_first(vrs: &std::collections::BTreeMap<Ty, Vec<u32>>) -> u32 {
    vrs.get(&Ty::Real)
        .and_then(|v| v.get(1))
        .copied()
        .unwrap_or(1)
}

const NUL: *const u32 = std::ptr::null();

/// Calls `f` with a fresh FMU state of `i` (freed afterwards); -100 when no
/// state can be had (a status no FMU returns, so the case fails visibly).
fn with_state(f: &dyn Fn(&Inst, Ptr) -> i32, i: &Inst) -> i32 {
    let (st_status, mut st) = i.get_state();
    if st_status != OK {
        return -100;
    }
    let r = f(i, st);
    i.free_state(&mut st);
    r
}

/// Category 3: NULL for every pointer argument, and a NULL instance for
/// every function.
pub(crate) fn null_pointers(ctx: &mut Ctx) {
    let cat = "null pointers";
    ctx.tally.begin(cat);
    let lib = ctx.lib;
    let s = Stage::Step(MID);
    let t = ctx.times[MID];
    let h = ctx.h;
    let (unknowns, knowns) = derivative_args(ctx);
    let real = ctx
        .vrs
        .get(&Ty::Real)
        .and_then(|v| v.first())
        .copied()
        .unwrap_or(0);
    let mut cases: Vec<(String, Stage, Call)> = Vec::new();
    // Per type: NULL value references, NULL values.
    for ty in Ty::ALL {
        let Some(vr) = ctx.vrs.get(&ty).and_then(|v| v.first()).copied() else {
            continue;
        };
        let tn = ty.name(lib.fmi3());
        let set = settable_of(ctx, ty);
        let p = if lib.fmi3() { "fmi3" } else { "fmi2" };
        // SAFETY: the typed get/set functions take (instance, vr array,
        // count, value array[, count]): pointers stay pointers.
        let (g2, s2) = unsafe {
            (
                lib.symbol::<fmi2::GetAny>(&format!("{p}Get{tn}")),
                lib.symbol::<fmi2::SetAny>(&format!("{p}Set{tn}")),
            )
        };
        // SAFETY: as above.
        let (g3, s3) = unsafe {
            (
                lib.symbol::<fmi3::GetAny>(&format!("{p}Get{tn}")),
                lib.symbol::<fmi3::SetAny>(&format!("{p}Set{tn}")),
            )
        };
        if !lib.fmi3() {
            let (Some(g), Some(st)) = (g2, s2) else {
                continue;
            };
            cases.push((
                format!("fmi2Get{tn}(vr = NULL, n = 1)"),
                s,
                Box::new(move |i| {
                    let mut out = [0u64; 1];
                    unsafe { g(i.ptr, NUL, 1, out.as_mut_ptr() as *mut c_void) }
                }),
            ));
            cases.push((
                format!("fmi2Get{tn}(value = NULL, n = 1)"),
                s,
                Box::new(move |i| unsafe { g(i.ptr, &vr, 1, std::ptr::null_mut()) }),
            ));
            if let Some((svr, value)) = set {
                cases.push((
                    format!("fmi2Set{tn}(vr = NULL, n = 1)"),
                    s,
                    Box::new(move |i| {
                        let buf = value_bytes(ty, value, false);
                        unsafe { st(i.ptr, NUL, 1, buf.as_ptr() as *const c_void) }
                    }),
                ));
                cases.push((
                    format!("fmi2Set{tn}(value = NULL, n = 1)"),
                    s,
                    Box::new(move |i| unsafe { st(i.ptr, &svr, 1, std::ptr::null()) }),
                ));
            }
        } else {
            let (Some(g), Some(st)) = (g3, s3) else {
                continue;
            };
            cases.push((
                format!("fmi3Get{tn}(valueReferences = NULL, n = 1)"),
                s,
                Box::new(move |i| {
                    let mut out = [0u64; 1];
                    unsafe { g(i.ptr, NUL, 1, out.as_mut_ptr() as *mut c_void, 1) }
                }),
            ));
            cases.push((
                format!("fmi3Get{tn}(values = NULL, n = 1)"),
                s,
                Box::new(move |i| unsafe { g(i.ptr, &vr, 1, std::ptr::null_mut(), 1) }),
            ));
            if let Some((svr, value)) = set {
                cases.push((
                    format!("fmi3Set{tn}(valueReferences = NULL, n = 1)"),
                    s,
                    Box::new(move |i| {
                        let buf = value_bytes(ty, value, true);
                        unsafe { st(i.ptr, NUL, 1, buf.as_ptr() as *const c_void, 1) }
                    }),
                ));
                cases.push((
                    format!("fmi3Set{tn}(values = NULL, n = 1)"),
                    s,
                    Box::new(move |i| unsafe { st(i.ptr, &svr, 1, std::ptr::null(), 1) }),
                ));
            }
        }
    }
    if let Some(f) = lib.f2 {
        cases.push((
            "fmi2GetString(vr = NULL, n = 1)".into(),
            s,
            Box::new(move |i| {
                let mut out: [*const c_char; 1] = [std::ptr::null()];
                unsafe { (f.get_string)(i.ptr, NUL, 1, out.as_mut_ptr()) }
            }),
        ));
        cases.push((
            "fmi2SetString(vr = NULL, n = 1)".into(),
            s,
            Box::new(move |i| {
                let v: [*const c_char; 1] = [c"".as_ptr()];
                unsafe { (f.set_string)(i.ptr, NUL, 1, v.as_ptr()) }
            }),
        ));
        cases.push((
            "fmi2SetDebugLogging(categories = NULL, n = 1)".into(),
            Stage::Instantiated,
            Box::new(move |i| unsafe { (f.set_debug_logging)(i.ptr, 1, 1, std::ptr::null()) }),
        ));
        cases.push((
            "fmi2SetDebugLogging(categories = {NULL}, n = 1)".into(),
            Stage::Instantiated,
            Box::new(move |i| {
                let c: [*const c_char; 1] = [std::ptr::null()];
                unsafe { (f.set_debug_logging)(i.ptr, 1, 1, c.as_ptr()) }
            }),
        ));
        cases.push((
            "fmi2GetStatus(value = NULL)".into(),
            s,
            Box::new(move |i| unsafe {
                (f.get_status)(i.ptr, kind::DO_STEP_STATUS, std::ptr::null_mut())
            }),
        ));
        cases.push((
            "fmi2GetRealStatus(value = NULL)".into(),
            s,
            Box::new(move |i| unsafe {
                (f.get_real_status)(i.ptr, kind::LAST_SUCCESSFUL_TIME, std::ptr::null_mut())
            }),
        ));
        cases.push((
            "fmi2GetBooleanStatus(value = NULL)".into(),
            s,
            Box::new(move |i| unsafe {
                (f.get_boolean_status)(i.ptr, kind::TERMINATED, std::ptr::null_mut())
            }),
        ));
        cases.push((
            "fmi2GetStringStatus(value = NULL)".into(),
            s,
            Box::new(move |i| unsafe {
                (f.get_string_status)(i.ptr, kind::PENDING_STATUS, std::ptr::null_mut())
            }),
        ));
        cases.push((
            "fmi2SetRealInputDerivatives(all NULL, n = 1)".into(),
            s,
            Box::new(move |i| unsafe {
                (f.set_real_input_derivatives)(i.ptr, NUL, 1, std::ptr::null(), std::ptr::null())
            }),
        ));
        cases.push((
            "fmi2GetRealOutputDerivatives(all NULL, n = 1)".into(),
            s,
            Box::new(move |i| unsafe {
                (f.get_real_output_derivatives)(
                    i.ptr,
                    NUL,
                    1,
                    std::ptr::null(),
                    std::ptr::null_mut(),
                )
            }),
        ));
    } else {
        let f = *lib.v3();
        for (name, g) in others_get(&f) {
            cases.push((
                format!("{name}(valueReferences = NULL, n = 1)"),
                s,
                Box::new(move |i| {
                    let mut out = [0u64; 1];
                    unsafe { g(i.ptr, NUL, 1, out.as_mut_ptr() as *mut c_void, 1) }
                }),
            ));
        }
        for (name, st) in others_set(&f) {
            cases.push((
                format!("{name}(valueReferences = NULL, n = 1)"),
                s,
                Box::new(move |i| {
                    let empty: [*const c_char; 1] = [c"".as_ptr()];
                    unsafe { st(i.ptr, NUL, 1, empty.as_ptr() as *const c_void, 1) }
                }),
            ));
        }
        cases.push((
            "fmi3GetBinary(valueReferences = NULL, n = 1)".into(),
            s,
            Box::new(move |i| {
                let mut sizes = [0usize];
                let mut v: [*const u8; 1] = [std::ptr::null()];
                unsafe { (f.get_binary)(i.ptr, NUL, 1, sizes.as_mut_ptr(), v.as_mut_ptr(), 1) }
            }),
        ));
        cases.push((
            "fmi3SetBinary(valueReferences = NULL, n = 1)".into(),
            s,
            Box::new(move |i| {
                let sizes = [0usize];
                let v: [*const u8; 1] = [std::ptr::null()];
                unsafe { (f.set_binary)(i.ptr, NUL, 1, sizes.as_ptr(), v.as_ptr(), 1) }
            }),
        ));
        cases.push((
            "fmi3SetDebugLogging(categories = NULL, n = 1)".into(),
            Stage::Instantiated,
            Box::new(move |i| unsafe { (f.set_debug_logging)(i.ptr, 1, 1, std::ptr::null()) }),
        ));
        cases.push((
            "fmi3SetDebugLogging(categories = {NULL}, n = 1)".into(),
            Stage::Instantiated,
            Box::new(move |i| {
                let c: [*const c_char; 1] = [std::ptr::null()];
                unsafe { (f.set_debug_logging)(i.ptr, 1, 1, c.as_ptr()) }
            }),
        ));
        for which in 0..4 {
            let names = [
                "eventHandlingNeeded",
                "terminateSimulation",
                "earlyReturn",
                "lastSuccessfulTime",
            ];
            cases.push((
                format!("fmi3DoStep({} = NULL)", names[which]),
                s,
                Box::new(move |i| {
                    let (mut a, mut b, mut c, mut last) = (0u8, 0u8, 0u8, 0.0f64);
                    let mut pa: *mut u8 = &mut a;
                    let mut pb: *mut u8 = &mut b;
                    let mut pc: *mut u8 = &mut c;
                    let mut pl: *mut f64 = &mut last;
                    match which {
                        0 => pa = std::ptr::null_mut(),
                        1 => pb = std::ptr::null_mut(),
                        2 => pc = std::ptr::null_mut(),
                        _ => pl = std::ptr::null_mut(),
                    }
                    unsafe { (f.do_step)(i.ptr, t, h, 0, pa, pb, pc, pl) }
                }),
            ));
        }
    }
    // FMU state functions (the neutral wrapper passes the raw pointers).
    let p = if lib.fmi3() { "fmi3" } else { "fmi2" };
    let st_name = if lib.fmi3() { "FMUState" } else { "FMUstate" };
    let getf = if lib.fmi3() {
        lib.v3().get_fmu_state
    } else {
        lib.v2().get_fmu_state
    };
    cases.push((
        format!("{p}Get{st_name}({st_name} = NULL)"),
        s,
        Box::new(move |i| unsafe { getf(i.ptr, std::ptr::null_mut()) }),
    ));
    cases.push((
        format!("{p}Set{st_name}({st_name} = NULL)"),
        s,
        Box::new(|i| i.set_state(std::ptr::null_mut())),
    ));
    cases.push((
        format!("{p}Free{st_name}({st_name} = NULL)"),
        s,
        Box::new(|i| unsafe {
            if let Some(f) = &i.lib.f2 {
                (f.free_fmu_state)(i.ptr, std::ptr::null_mut())
            } else {
                (i.lib.v3().free_fmu_state)(i.ptr, std::ptr::null_mut())
            }
        }),
    ));
    cases.push((
        format!("{p}Serialized{st_name}Size({st_name} = NULL)"),
        s,
        Box::new(|i| {
            let mut n = 0usize;
            i.serialized_size(std::ptr::null_mut(), &mut n)
        }),
    ));
    cases.push((
        format!("{p}Serialized{st_name}Size(size = NULL)"),
        s,
        Box::new(move |i| with_state(&|i, st| i.serialized_size(st, std::ptr::null_mut()), i)),
    ));
    cases.push((
        format!("{p}Serialize{st_name}({st_name} = NULL)"),
        s,
        Box::new(|i| {
            let mut buf = vec![0u8; 4096];
            i.serialize_into(std::ptr::null_mut(), buf.as_mut_ptr(), buf.len())
        }),
    ));
    cases.push((
        format!("{p}Serialize{st_name}(serializedState = NULL)"),
        s,
        Box::new(move |i| {
            with_state(
                &|i, st| {
                    let mut n = 0usize;
                    if i.serialized_size(st, &mut n) != OK {
                        return -100;
                    }
                    i.serialize_into(st, std::ptr::null_mut(), n)
                },
                i,
            )
        }),
    ));
    cases.push((
        format!("{p}Deserialize{st_name}(serializedState = NULL, size = 64)"),
        s,
        Box::new(|i| {
            let mut out: Ptr = std::ptr::null_mut();
            i.deserialize_raw(std::ptr::null(), 64, &mut out)
        }),
    ));
    cases.push((
        format!("{p}Deserialize{st_name}({st_name} = NULL)"),
        s,
        Box::new(|i| match i.serialize_now() {
            Ok(bytes) => i.deserialize_raw(bytes.as_ptr(), bytes.len(), std::ptr::null_mut()),
            Err(_) => -100,
        }),
    ));
    // Directional derivatives: each array NULL with a non-zero count.
    let dd = if lib.fmi3() {
        "fmi3GetDirectionalDerivative"
    } else {
        "fmi2GetDirectionalDerivative"
    };
    if !unknowns.is_empty() && !knowns.is_empty() && ctx.desc().provides_derivatives() {
        for which in 0..4 {
            let names = ["unknowns", "knowns", "seed", "sensitivity"];
            let (u, k) = (unknowns.clone(), knowns.clone());
            cases.push((
                format!("{dd}({} = NULL)", names[which]),
                s,
                Box::new(move |i| {
                    let seed = vec![1.0; k.len()];
                    let mut out = vec![0.0; u.len()];
                    let pu = if which == 0 { NUL } else { u.as_ptr() };
                    let pk = if which == 1 { NUL } else { k.as_ptr() };
                    let ps = if which == 2 {
                        std::ptr::null()
                    } else {
                        seed.as_ptr()
                    };
                    let po = if which == 3 {
                        std::ptr::null_mut()
                    } else {
                        out.as_mut_ptr()
                    };
                    unsafe {
                        if let Some(f) = &i.lib.f2 {
                            (f.directional_derivative)(i.ptr, pu, u.len(), pk, k.len(), ps, po)
                        } else {
                            (i.lib.v3().directional_derivative)(
                                i.ptr,
                                pu,
                                u.len(),
                                pk,
                                k.len(),
                                ps,
                                k.len(),
                                po,
                                u.len(),
                            )
                        }
                    }
                }),
            ));
        }
    }
    for (name, stage, call) in &cases {
        let r = ctx.attack(*stage, false, false, |i| call(i));
        ctx.tally.case(cat, name.clone(), r);
    }

    // Instantiation with NULL strings or callbacks: NULL back, a message
    // when there is a logger to log to.
    let token = lib.token_ptr();
    let name = c"hostile".as_ptr();
    let null = std::ptr::null();
    let inst_cases: [(&str, *const c_char, *const c_char, bool, bool, bool); 4] = [
        ("instanceName = NULL", null, token, true, false, true),
        ("token/GUID = NULL", name, null, true, false, true),
        (
            if lib.fmi3() {
                "logMessage = NULL with instanceName = NULL"
            } else {
                "functions->logger = NULL"
            },
            if lib.fmi3() { null } else { name },
            token,
            false,
            false,
            false,
        ),
        (
            if lib.fmi3() {
                "logMessage = NULL with token = NULL"
            } else {
                "functions = NULL"
            },
            name,
            if lib.fmi3() { null } else { token },
            false,
            !lib.fmi3(),
            false,
        ),
    ];
    for (what, n, tk, logger, null_cb, needs_message) in inst_cases {
        let (created, messages) = lib.instantiate_raw(n, tk, false, logger, null_cb);
        let r = if created {
            Err("returned an instance".into())
        } else if needs_message && messages == 0 {
            Err("returned NULL but logged no message".into())
        } else {
            Ok(())
        };
        ctx.tally.case(cat, format!("instantiate with {what}"), r);
    }

    if lib.fmi3() {
        // The FMU need not read the array (it has no intermediate
        // variables): either answer is fine, a NULL without a message is not.
        let (created, messages) = lib.instantiate_null_intermediate();
        let r = if !created && messages == 0 {
            Err("returned NULL but logged no message".into())
        } else {
            Ok(())
        };
        ctx.tally.case(
            cat,
            "fmi3InstantiateCoSimulation(requiredIntermediateVariables = NULL, n = 1)",
            r,
        );
    }

    // A NULL instance for every function: an error, no crash.
    for (name, call) in null_instance_calls(lib, real, t, h) {
        let s = call();
        let r = if s == OK || s == WARNING {
            Err(format!("returned {} for a NULL instance", status_name(s)))
        } else {
            Ok(())
        };
        ctx.tally.case(cat, format!("{name}(instance = NULL)"), r);
    }
    ctx.tally.end(cat);
}

/// The bytes of one value of a type (FMI 3 Boolean a byte).
fn value_bytes(ty: Ty, value: f64, fmi3: bool) -> [u8; 8] {
    let mut b = [0u8; 8];
    match ty {
        Ty::Real => b.copy_from_slice(&value.to_le_bytes()),
        Ty::Integer => b[..4].copy_from_slice(&(value as i32).to_le_bytes()),
        Ty::Boolean if fmi3 => b[0] = u8::from(value != 0.0),
        Ty::Boolean => b[..4].copy_from_slice(&i32::from(value != 0.0).to_le_bytes()),
    }
    b
}

fn others_get(f: &fmi3::Fmi3) -> Vec<(&'static str, fmi3::GetAny)> {
    vec![
        ("fmi3GetFloat32", f.get_float32),
        ("fmi3GetInt8", f.get_int8),
        ("fmi3GetUInt8", f.get_uint8),
        ("fmi3GetInt16", f.get_int16),
        ("fmi3GetUInt16", f.get_uint16),
        ("fmi3GetUInt32", f.get_uint32),
        ("fmi3GetInt64", f.get_int64),
        ("fmi3GetUInt64", f.get_uint64),
        ("fmi3GetString", f.get_string),
    ]
}

fn others_set(f: &fmi3::Fmi3) -> Vec<(&'static str, fmi3::SetAny)> {
    vec![
        ("fmi3SetFloat32", f.set_float32),
        ("fmi3SetInt8", f.set_int8),
        ("fmi3SetUInt8", f.set_uint8),
        ("fmi3SetInt16", f.set_int16),
        ("fmi3SetUInt16", f.set_uint16),
        ("fmi3SetUInt32", f.set_uint32),
        ("fmi3SetInt64", f.set_int64),
        ("fmi3SetUInt64", f.set_uint64),
        ("fmi3SetString", f.set_string),
    ]
}

type NullCall = (String, Box<dyn Fn() -> i32>);

/// Every function of the library called with a NULL instance and
/// otherwise valid arguments (FreeInstance reports 3 = Error: it has no
/// status, surviving is the test).
fn null_instance_calls(lib: &Lib, real: u32, t: f64, h: f64) -> Vec<NullCall> {
    let n: Ptr = std::ptr::null_mut();
    let mut v: Vec<NullCall> = Vec::new();
    macro_rules! add {
        ($name:expr, $body:expr) => {
            v.push(($name.to_string(), Box::new(move || unsafe { $body })));
        };
    }
    if let Some(f) = lib.f2 {
        add!("fmi2FreeInstance", {
            (f.free_instance)(n);
            ERROR
        });
        add!(
            "fmi2SetDebugLogging",
            (f.set_debug_logging)(n, 1, 0, std::ptr::null())
        );
        add!(
            "fmi2SetupExperiment",
            (f.setup_experiment)(n, 0, 0.0, 0.0, 0, 0.0)
        );
        add!(
            "fmi2EnterInitializationMode",
            (f.enter_initialization_mode)(n)
        );
        add!(
            "fmi2ExitInitializationMode",
            (f.exit_initialization_mode)(n)
        );
        add!("fmi2Terminate", (f.terminate)(n));
        add!("fmi2Reset", (f.reset)(n));
        add!("fmi2GetReal", {
            let mut o = [0.0];
            (f.get_real)(n, &real, 1, o.as_mut_ptr())
        });
        add!("fmi2GetInteger", {
            let mut o = [0];
            (f.get_integer)(n, &real, 1, o.as_mut_ptr())
        });
        add!("fmi2GetBoolean", {
            let mut o = [0];
            (f.get_boolean)(n, &real, 1, o.as_mut_ptr())
        });
        add!("fmi2GetString", {
            let mut o: [*const c_char; 1] = [std::ptr::null()];
            (f.get_string)(n, &real, 1, o.as_mut_ptr())
        });
        add!("fmi2SetReal", (f.set_real)(n, &real, 1, &0.0));
        add!("fmi2SetInteger", (f.set_integer)(n, &real, 1, &0));
        add!("fmi2SetBoolean", (f.set_boolean)(n, &real, 1, &0));
        add!("fmi2SetString", {
            let s: [*const c_char; 1] = [c"".as_ptr()];
            (f.set_string)(n, &real, 1, s.as_ptr())
        });
        add!("fmi2GetFMUstate", {
            let mut st: Ptr = std::ptr::null_mut();
            (f.get_fmu_state)(n, &mut st)
        });
        add!(
            "fmi2SetFMUstate",
            (f.set_fmu_state)(n, std::ptr::null_mut())
        );
        add!("fmi2FreeFMUstate", {
            let mut st: Ptr = std::ptr::null_mut();
            (f.free_fmu_state)(n, &mut st)
        });
        add!("fmi2SerializedFMUstateSize", {
            let mut sz = 0usize;
            (f.serialized_size)(n, std::ptr::null_mut(), &mut sz)
        });
        add!("fmi2SerializeFMUstate", {
            let mut b = [0u8; 16];
            (f.serialize)(n, std::ptr::null_mut(), b.as_mut_ptr(), 16)
        });
        add!("fmi2DeSerializeFMUstate", {
            let b = [0u8; 16];
            let mut st: Ptr = std::ptr::null_mut();
            (f.deserialize)(n, b.as_ptr(), 16, &mut st)
        });
        add!("fmi2GetDirectionalDerivative", {
            let seed = [1.0];
            let mut o = [0.0];
            (f.directional_derivative)(n, &real, 1, &real, 1, seed.as_ptr(), o.as_mut_ptr())
        });
        add!("fmi2SetRealInputDerivatives", {
            (f.set_real_input_derivatives)(n, &real, 1, &1, &0.0)
        });
        add!("fmi2GetRealOutputDerivatives", {
            let mut o = [0.0];
            (f.get_real_output_derivatives)(n, &real, 1, &1, o.as_mut_ptr())
        });
        add!("fmi2DoStep", (f.do_step)(n, t, h, 0));
        add!("fmi2CancelStep", (f.cancel_step)(n));
        add!("fmi2GetStatus", {
            let mut o = 0;
            (f.get_status)(n, kind::DO_STEP_STATUS, &mut o)
        });
        add!("fmi2GetRealStatus", {
            let mut o = 0.0;
            (f.get_real_status)(n, kind::LAST_SUCCESSFUL_TIME, &mut o)
        });
        add!("fmi2GetIntegerStatus", {
            let mut o = 0;
            (f.get_integer_status)(n, kind::DO_STEP_STATUS, &mut o)
        });
        add!("fmi2GetBooleanStatus", {
            let mut o = 0;
            (f.get_boolean_status)(n, kind::TERMINATED, &mut o)
        });
        add!("fmi2GetStringStatus", {
            let mut o: *const c_char = std::ptr::null();
            (f.get_string_status)(n, kind::PENDING_STATUS, &mut o)
        });
    } else {
        let f = *lib.v3();
        add!("fmi3FreeInstance", {
            (f.free_instance)(n);
            ERROR
        });
        add!(
            "fmi3SetDebugLogging",
            (f.set_debug_logging)(n, 1, 0, std::ptr::null())
        );
        add!(
            "fmi3EnterInitializationMode",
            (f.enter_initialization_mode)(n, 0, 0.0, 0.0, 0, 0.0)
        );
        add!(
            "fmi3ExitInitializationMode",
            (f.exit_initialization_mode)(n)
        );
        add!(
            "fmi3EnterConfigurationMode",
            (f.enter_configuration_mode)(n)
        );
        add!("fmi3ExitConfigurationMode", (f.exit_configuration_mode)(n));
        add!("fmi3Terminate", (f.terminate)(n));
        add!("fmi3Reset", (f.reset)(n));
        add!("fmi3GetFloat64", {
            let mut o = [0.0];
            (f.get_float64)(n, &real, 1, o.as_mut_ptr(), 1)
        });
        add!("fmi3GetInt32", {
            let mut o = [0];
            (f.get_int32)(n, &real, 1, o.as_mut_ptr(), 1)
        });
        add!("fmi3GetBoolean", {
            let mut o = [0u8];
            (f.get_boolean)(n, &real, 1, o.as_mut_ptr(), 1)
        });
        add!("fmi3SetFloat64", (f.set_float64)(n, &real, 1, &0.0, 1));
        add!("fmi3SetInt32", (f.set_int32)(n, &real, 1, &0, 1));
        add!("fmi3SetBoolean", (f.set_boolean)(n, &real, 1, &0, 1));
        for (name, g) in others_get(&f) {
            add!(name, {
                let mut o = [0u64; 1];
                g(n, &real, 1, o.as_mut_ptr() as *mut c_void, 1)
            });
        }
        for (name, s) in others_set(&f) {
            add!(name, {
                let e: [*const c_char; 1] = [c"".as_ptr()];
                s(n, &real, 1, e.as_ptr() as *const c_void, 1)
            });
        }
        add!("fmi3GetBinary", {
            let mut sz = [0usize];
            let mut o: [*const u8; 1] = [std::ptr::null()];
            (f.get_binary)(n, &real, 1, sz.as_mut_ptr(), o.as_mut_ptr(), 1)
        });
        add!("fmi3SetBinary", {
            let sz = [0usize];
            let o: [*const u8; 1] = [std::ptr::null()];
            (f.set_binary)(n, &real, 1, sz.as_ptr(), o.as_ptr(), 1)
        });
        add!("fmi3GetFMUState", {
            let mut st: Ptr = std::ptr::null_mut();
            (f.get_fmu_state)(n, &mut st)
        });
        add!(
            "fmi3SetFMUState",
            (f.set_fmu_state)(n, std::ptr::null_mut())
        );
        add!("fmi3FreeFMUState", {
            let mut st: Ptr = std::ptr::null_mut();
            (f.free_fmu_state)(n, &mut st)
        });
        add!("fmi3SerializedFMUStateSize", {
            let mut sz = 0usize;
            (f.serialized_size)(n, std::ptr::null_mut(), &mut sz)
        });
        add!("fmi3SerializeFMUState", {
            let mut b = [0u8; 16];
            (f.serialize)(n, std::ptr::null_mut(), b.as_mut_ptr(), 16)
        });
        add!("fmi3DeserializeFMUState", {
            let b = [0u8; 16];
            let mut st: Ptr = std::ptr::null_mut();
            (f.deserialize)(n, b.as_ptr(), 16, &mut st)
        });
        add!("fmi3GetDirectionalDerivative", {
            let seed = [1.0];
            let mut o = [0.0];
            (f.directional_derivative)(n, &real, 1, &real, 1, seed.as_ptr(), 1, o.as_mut_ptr(), 1)
        });
        add!("fmi3DoStep", {
            let (mut a, mut b, mut c, mut l) = (0u8, 0u8, 0u8, 0.0);
            (f.do_step)(n, t, h, 0, &mut a, &mut b, &mut c, &mut l)
        });
    }
    v
}

/// Category 4: nonexistent value references, variables through the
/// getters and setters of other types, and variables that cannot be set
/// (outputs, the independent variable, locals, fixed and structural
/// parameters in Step Mode); instantiation with a wrong token or interface
/// type.
pub(crate) fn value_refs(ctx: &mut Ctx) {
    let cat = "value refs/types";
    ctx.tally.begin(cat);
    let lib = ctx.lib;
    let fmi3 = lib.fmi3();
    let stage = Stage::Step(MID);
    let desc = ctx.desc();
    let max_vr = desc.variables.iter().map(|v| v.vr).max().unwrap_or(0);
    let known: std::collections::HashSet<u32> = desc.variables.iter().map(|v| v.vr).collect();
    let mut missing = vec![max_vr + 1, 99_999, u32::MAX, u32::MAX - 1];
    if let Some(gap) = (1..max_vr).find(|vr| !known.contains(vr)) {
        missing.push(gap);
    }
    missing.retain(|vr| !known.contains(vr));
    let mut calls: Vec<(String, Call)> = Vec::new();
    for ty in Ty::ALL {
        let tn = ty.name(fmi3);
        for &vr in &missing {
            calls.push((
                format!("get{tn} of nonexistent value reference {vr}"),
                Box::new(move |i| i.get(ty, &[vr]).0),
            ));
            calls.push((
                format!("set{tn} of nonexistent value reference {vr}"),
                Box::new(move |i| i.set(ty, vr, 0.0)),
            ));
        }
        if let Some(first) = ctx.vrs.get(&ty).and_then(|v| v.first()).copied() {
            let bad = missing[0];
            calls.push((
                format!("get{tn} of [{first}, nonexistent {bad}]"),
                Box::new(move |i| i.get(ty, &[first, bad]).0),
            ));
        }
    }
    for var in &desc.variables {
        for ty in Ty::ALL.into_iter().filter(|t| *t != var.ty) {
            let (vr, tn) = (var.vr, ty.name(fmi3));
            calls.push((
                format!("get{tn} of {} ({})", var.name, var.ty.name(fmi3)),
                Box::new(move |i| i.get(ty, &[vr]).0),
            ));
            calls.push((
                format!("set{tn} of {} ({})", var.name, var.ty.name(fmi3)),
                Box::new(move |i| i.set(ty, vr, 0.0)),
            ));
        }
        if fmi3 {
            let f = *lib.v3();
            for (name, g) in others_get(&f) {
                let vr = var.vr;
                calls.push((
                    format!("{name} of {}", var.name),
                    Box::new(move |i| {
                        let mut o = [0u64; 1];
                        unsafe { g(i.ptr, &vr, 1, o.as_mut_ptr() as *mut c_void, 1) }
                    }),
                ));
            }
            for (name, s) in others_set(&f) {
                let vr = var.vr;
                calls.push((
                    format!("{name} of {}", var.name),
                    Box::new(move |i| {
                        let e: [*const c_char; 1] = [c"".as_ptr()];
                        unsafe { s(i.ptr, &vr, 1, e.as_ptr() as *const c_void, 1) }
                    }),
                ));
            }
        } else if let Some(f) = lib.f2 {
            let vr = var.vr;
            calls.push((
                format!("fmi2GetString of {}", var.name),
                Box::new(move |i| {
                    let mut o: [*const c_char; 1] = [std::ptr::null()];
                    unsafe { (f.get_string)(i.ptr, &vr, 1, o.as_mut_ptr()) }
                }),
            ));
            calls.push((
                format!("fmi2SetString of {}", var.name),
                Box::new(move |i| {
                    let e: [*const c_char; 1] = [c"".as_ptr()];
                    unsafe { (f.set_string)(i.ptr, &vr, 1, e.as_ptr()) }
                }),
            ));
        }
        // What may not be set in Step Mode, with its own type and a value
        // inside its range.
        let not_settable = match var.causality.as_str() {
            "output" | "independent" | "local" | "calculatedParameter" => true,
            "parameter" => var.structural || var.variability != "tunable",
            _ => var.variability == "constant",
        };
        if not_settable {
            let (ty, vr) = (var.ty, var.vr);
            let value = var.start.or(var.min).unwrap_or(0.0);
            let what = if var.causality == "parameter" {
                if var.structural {
                    "structural parameter".to_owned()
                } else {
                    format!("{} parameter", var.variability)
                }
            } else {
                var.causality.clone()
            };
            calls.push((
                format!("set {what} {} in Step Mode", var.name),
                Box::new(move |i| i.set(ty, vr, value)),
            ));
        }
    }
    if fmi3 {
        let f = *lib.v3();
        if let Some(&vr) = ctx.vrs.get(&Ty::Real).and_then(|v| v.first()) {
            calls.push((
                "fmi3GetFloat64 with nValues = 2 != nValueReferences = 1".into(),
                Box::new(move |i| {
                    let mut o = [0.0; 2];
                    unsafe { (f.get_float64)(i.ptr, &vr, 1, o.as_mut_ptr(), 2) }
                }),
            ));
        }
    }

    let mut inst: Option<Inst> = None;
    for (name, call) in &calls {
        if inst.is_none() {
            match ctx.at(stage) {
                Ok(i) => inst = Some(i),
                Err(e) => {
                    ctx.tally
                        .case(cat, name.clone(), Err(format!("setting up: {e}")));
                    continue;
                }
            }
        }
        let i = inst.as_ref().expect("set above");
        let before = i.messages();
        let s = call(i);
        let r = check_refusal(s, before, i, false).and_then(|()| {
            let fp = ctx.fingerprint(i);
            ctx.compare(stage, &fp)
                .map_err(|e| format!("refused, but the instance changed: {e}"))
        });
        if r.is_err() {
            // Start again from an untouched instance.
            inst = None;
        }
        ctx.tally.case(cat, name.clone(), r);
    }
    if let Some(i) = inst {
        let r = ctx
            .walk(&i, stage, None)
            .map_err(|e| format!("after all refusals the instance differs from its twin: {e}"));
        ctx.tally.case(
            cat,
            "after every refused call: steps like an untouched twin",
            r,
        );
    }

    // Instantiation with a wrong token, through both interfaces.
    let name = c"hostile".as_ptr();
    let (created, messages) =
        lib.instantiate_raw(name, c"{not-the-token}".as_ptr(), false, true, false);
    ctx.tally.case(
        cat,
        "instantiate with a wrong token/GUID",
        refused_instantiation(created, messages),
    );
    let (created, messages) =
        lib.instantiate_raw(name, c"{not-the-token}".as_ptr(), true, true, false);
    ctx.tally.case(
        cat,
        "instantiate as Model Exchange with a wrong token/GUID",
        refused_instantiation(created, messages),
    );
    let (created, _) = lib.instantiate_raw(name, lib.token_ptr(), true, true, false);
    ctx.tally.case(
        cat,
        "instantiate as Model Exchange with the right token",
        if created {
            Ok(())
        } else {
            Err("Model Exchange instantiation refused".into())
        },
    );
    ctx.tally.end(cat);
}

fn refused_instantiation(created: bool, messages: usize) -> Result<(), String> {
    if created {
        Err("returned an instance".into())
    } else if messages == 0 {
        Err("returned NULL but logged no message".into())
    } else {
        Ok(())
    }
}
