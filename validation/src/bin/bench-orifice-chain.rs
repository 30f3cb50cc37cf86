//! Benchmark of the OrificeChain FMU (issue 2, point 8): 50 s at a 1 ms
//! communication step with the adaptive implicit integrator, and with
//! explicit Euler and RK4 at 1e-4 s and 1e-3 s, each with both bulk-modulus
//! laws; wall time, real-time factor, right-hand-side evaluations, accuracy
//! against the SciPy reference, and doStep latency, all measured in one run
//! through the FMI 3 functions of the packaged FMU (dist/fmi3/OrificeChain.fmu).
//!
//! Run: `cargo run --release -p validation --bin bench-orifice-chain`

use anyhow::Result;
use clap::Parser;
use std::time::Instant;
use validation::fmu3::Fmu3;
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
    /// The FMI 3 FMU to measure.
    #[arg(long, default_value = "dist/fmi3/OrificeChain.fmu")]
    fmu: std::path::PathBuf,
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

/// Runs one configuration through the FMU's fmi3 functions.
fn simulate(fmu: &Fmu3, run: &Run, stop: f64, h: f64, reference: &Trace) -> Result<Outcome> {
    let mut inst = fmu.instantiate("bench")?;
    inst.set_bool("bulk_log_natural", run.natural_log)?;
    inst.set_int("solver", run.solver)?;
    inst.initialize(stop)?;
    inst.set("explicit_step", run.explicit_step)?;
    inst.set("rtol", run.rtol)?;
    let (vr_p1, vr_p2) = (fmu.vr("p1")?, fmu.vr("p2")?);
    let n = (stop / h).round() as usize;
    let ref_len = reference.time.len();
    let mut p1 = Vec::with_capacity(ref_len);
    let mut p2 = Vec::with_capacity(ref_len);
    p1.push(inst.get_vr(vr_p1)?);
    p2.push(inst.get_vr(vr_p2)?);
    let mut step_times = Vec::with_capacity(n);
    let mut status = String::from("ok");
    let started = Instant::now();
    for k in 0..n {
        let t = k as f64 * h;
        let t0 = Instant::now();
        let s = inst.do_step(t, h);
        step_times.push(t0.elapsed().as_secs_f64());
        if s != 0 {
            status = format!("doStep status {s} at t = {t:.3} s");
            break;
        }
        if p1.len() < ref_len {
            p1.push(inst.get_vr(vr_p1)?);
            p2.push(inst.get_vr(vr_p2)?);
        }
    }
    let wall = started.elapsed().as_secs_f64();
    let m = p1.len().min(ref_len);
    let rp1 = &reference.signal("p1").expect("p1")[..m];
    let rp2 = &reference.signal("p2").expect("p2")[..m];
    step_times.sort_by(f64::total_cmp);
    Ok(Outcome {
        wall,
        rhs: inst.get("solver_rhs_evals")?,
        jacobians: inst.get("solver_jacobian_evals")?,
        substeps: inst.get("solver_steps")?,
        rejected: inst.get("solver_rejected")?,
        rms_p1: relative_rms_percent(&p1[..m], rp1),
        rms_p2: relative_rms_percent(&p2[..m], rp2),
        p2_end: inst.get_vr(vr_p2)?,
        worst_step: step_times.last().copied().unwrap_or(0.0),
        p999_step: percentile(&step_times, 0.999),
        status,
    })
}

fn main() -> Result<()> {
    let args = Args::parse();
    let fmu = Fmu3::load(&args.fmu)?;
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
        "OrificeChain: {} s at a {} ms communication step, through fmi3DoStep of {}",
        args.stop,
        args.step * 1e3,
        args.fmu.display()
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
        let o = simulate(&fmu, run, args.stop, args.step, reference)?;
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
