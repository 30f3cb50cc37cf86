//! Benchmark of the OrificeChain FMU (issue 2, point 8): 50 s at a 1 ms
//! communication step with the adaptive implicit integrator, and with
//! explicit Euler and RK4 at 1e-4 s and 1e-3 s, each with both bulk-modulus
//! laws; wall time, real-time factor, right-hand-side evaluations, accuracy
//! against the SciPy reference, and doStep latency, all measured in one run
//! through the exported FMI 3 functions of the release build.
//!
//! Run: `cargo run --release -p validation --bin bench-orifice-chain`

use anyhow::{Result, bail};
use clap::Parser;
use fmu_core::model::{
    VR_EXPLICIT_STEP, VR_RTOL, VR_SOLVER, VR_STAT_JACOBIANS, VR_STAT_REJECTED, VR_STAT_RHS,
    VR_STAT_STEPS,
};
use orifice_chain as oc;
use orifice_chain::vr;
use std::ffi::CString;
use std::time::Instant;
use validation::{Trace, percentile, relative_rms_percent, repo_root};

/// Benchmark OrificeChain integrators side by side.
#[derive(Parser)]
#[command(about)]
struct Args {
    /// Simulated time per run, s.
    #[arg(long, default_value_t = 50.0)]
    stop: f64,
    /// Communication step, s.
    #[arg(long, default_value_t = 1e-3)]
    step: f64,
}

struct Run {
    label: String,
    solver: i32,
    explicit_step: f64,
    rtol: f64,
    natural_log: bool,
}

struct Outcome {
    wall: f64,
    rhs: f64,
    jacobians: f64,
    substeps: f64,
    rejected: f64,
    rms_p1: f64,
    rms_p2: f64,
    p2_end: f64,
    worst_step: f64,
    p999_step: f64,
    status: String,
}

fn token() -> CString {
    let desc = fmu_core::full_description::<oc::OrificeChain, 2>();
    CString::new(desc.instantiation_token()).expect("token")
}

/// Runs one configuration through the FMI 3 interface.
fn simulate(run: &Run, stop: f64, h: f64, reference: &Trace) -> Result<Outcome> {
    let name = CString::new("bench")?;
    let token = token();
    // SAFETY: valid C strings; a null logger is allowed in FMI 3.
    let inst = unsafe {
        oc::fmi3InstantiateCoSimulation(
            name.as_ptr(),
            token.as_ptr(),
            std::ptr::null(),
            0,
            0,
            0,
            0,
            std::ptr::null(),
            0,
            std::ptr::null_mut(),
            None,
            None,
        )
    };
    if inst.is_null() {
        bail!("instantiation refused");
    }
    let set_f64 = |vr: u32, v: f64| {
        // SAFETY: one value reference, one value.
        unsafe { oc::fmi3SetFloat64(inst, &vr, 1, &v, 1) }
    };
    let get_f64 = |vr: u32| {
        let mut v = f64::NAN;
        // SAFETY: one value reference, one value.
        unsafe { oc::fmi3GetFloat64(inst, &vr, 1, &mut v, 1) };
        v
    };
    let natural = u8::from(run.natural_log);
    // SAFETY: valid arrays of length 1; live instance.
    unsafe {
        oc::fmi3SetBoolean(inst, &vr::BULK_LOG_NATURAL, 1, &natural, 1);
        oc::fmi3SetInt32(inst, &VR_SOLVER, 1, &run.solver, 1);
        oc::fmi3EnterInitializationMode(inst, 0, 0.0, 0.0, 1, stop);
        oc::fmi3ExitInitializationMode(inst);
    }
    set_f64(VR_EXPLICIT_STEP, run.explicit_step);
    set_f64(VR_RTOL, run.rtol);
    let n = (stop / h).round() as usize;
    let ref_len = reference.time.len();
    let mut p1 = Vec::with_capacity(ref_len);
    let mut p2 = Vec::with_capacity(ref_len);
    p1.push(get_f64(vr::P1));
    p2.push(get_f64(vr::P2));
    let mut step_times = Vec::with_capacity(n);
    let (mut ev, mut term, mut early, mut last) = (0u8, 0u8, 0u8, 0.0);
    let mut status = String::from("ok");
    let started = Instant::now();
    for k in 0..n {
        let t = k as f64 * h;
        let t0 = Instant::now();
        // SAFETY: valid out-pointers; live instance.
        let s = unsafe { oc::fmi3DoStep(inst, t, h, 1, &mut ev, &mut term, &mut early, &mut last) };
        step_times.push(t0.elapsed().as_secs_f64());
        if s != 0 {
            status = format!("doStep status {s} at t = {t:.3} s");
            break;
        }
        if p1.len() < ref_len {
            p1.push(get_f64(vr::P1));
            p2.push(get_f64(vr::P2));
        }
    }
    let wall = started.elapsed().as_secs_f64();
    let out = {
        let m = p1.len().min(ref_len);
        let rp1 = &reference.signal("p1").expect("p1")[..m];
        let rp2 = &reference.signal("p2").expect("p2")[..m];
        Outcome {
            wall,
            rhs: get_f64(VR_STAT_RHS),
            jacobians: get_f64(VR_STAT_JACOBIANS),
            substeps: get_f64(VR_STAT_STEPS),
            rejected: get_f64(VR_STAT_REJECTED),
            rms_p1: relative_rms_percent(&p1[..m], rp1),
            rms_p2: relative_rms_percent(&p2[..m], rp2),
            p2_end: get_f64(vr::P2),
            worst_step: step_times.iter().copied().fold(0.0, f64::max),
            p999_step: {
                step_times.sort_by(f64::total_cmp);
                percentile(&step_times, 0.999)
            },
            status,
        }
    };
    // SAFETY: live instance, freed once.
    unsafe { oc::fmi3FreeInstance(inst) };
    Ok(out)
}

fn main() -> Result<()> {
    let args = Args::parse();
    let scenarios = repo_root().join("validation/scenarios/OrificeChain");
    let ref_log10 = Trace::read_csv(&scenarios.join("startup/OrificeChain_ref.csv"))?;
    let ref_ln = Trace::read_csv(&scenarios.join("startup_ln/OrificeChain_ref.csv"))?;
    let mut runs = Vec::new();
    for natural_log in [false, true] {
        for rtol in [1e-6, 1e-4, 1e-8] {
            runs.push(Run {
                label: format!("Rodas3 rtol {rtol:.0e}"),
                solver: 1,
                explicit_step: 1e-4,
                rtol,
                natural_log,
            });
        }
        for (solver, name) in [(2, "Euler"), (3, "RK4")] {
            for hx in [1e-4, 1e-3] {
                runs.push(Run {
                    label: format!("{name} h {hx:.0e} s"),
                    solver,
                    explicit_step: hx,
                    rtol: 1e-6,
                    natural_log,
                });
            }
        }
    }
    println!(
        "OrificeChain: {} s at a {} ms communication step, through fmi3DoStep (release build)",
        args.stop,
        args.step * 1e3
    );
    println!(
        "accuracy: relative RMS error of p1, p2 against the SciPy Radau reference over 0..5 s \
         (1 ms grid); p2(end) vs the analytic steady state 33.333 bar\n"
    );
    println!(
        "{:<6} {:<18} {:>9} {:>10} {:>11} {:>9} {:>9} {:>10} {:>10} {:>11} {:>10} {:>10}  status",
        "law",
        "integrator",
        "wall [s]",
        "x realtime",
        "rhs evals",
        "Jacobians",
        "substeps",
        "p1 RMS %",
        "p2 RMS %",
        "p2 end bar",
        "worst [us]",
        "p99.9 [us]"
    );
    let mut implicit_rtf = None;
    for run in &runs {
        let reference = if run.natural_log { &ref_ln } else { &ref_log10 };
        let o = simulate(run, args.stop, args.step, reference)?;
        let rtf = args.stop / o.wall;
        if run.solver == 1 && run.rtol == 1e-6 && !run.natural_log {
            implicit_rtf = Some((rtf, o.rms_p1.max(o.rms_p2)));
        }
        println!(
            "{:<6} {:<18} {:>9.3} {:>10.0} {:>11.0} {:>9.0} {:>9.0} {:>10.2e} {:>10.2e} {:>11.3} {:>10.1} {:>10.1}  {}{}",
            if run.natural_log { "ln" } else { "log10" },
            run.label,
            o.wall,
            rtf,
            o.rhs,
            o.jacobians,
            o.substeps,
            o.rms_p1,
            o.rms_p2,
            o.p2_end * 1e-5,
            o.worst_step * 1e6,
            o.p999_step * 1e6,
            o.status,
            if o.rejected > 0.0 {
                format!(" ({} rejected)", o.rejected)
            } else {
                String::new()
            }
        );
    }
    if let Some((rtf, err)) = implicit_rtf {
        println!(
            "\nimplicit integrator (Rodas3, rtol 1e-6, log10): {rtf:.0} x faster than real time \
             at {err:.1e} % relative RMS error (goal: >= 1000 x at < 0.05 %): {}",
            if rtf >= 1000.0 && err < 0.05 {
                "met"
            } else {
                "NOT met"
            }
        );
    }
    Ok(())
}
