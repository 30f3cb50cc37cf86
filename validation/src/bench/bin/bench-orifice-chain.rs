//! Benchmark of the OrificeChain FMU: 50 s at a 1 ms communication step
//! with the adaptive implicit integrator, and with explicit Euler and RK4 at
//! 1e-4 s and 1e-3 s (the explicit methods of the original paper), each with
//! both bulk-modulus laws; wall time, real-time factor, right-hand-side
//! evaluations, accuracy against the SciPy reference, and doStep latency,
//! all measured in one run through the FMI 3 functions of the packaged FMU
//! (dist/fmi3/OrificeChain.fmu).
//!
//! The status column says whether a row's figures describe a valid solution
//! (`validation::bench`): a run whose pressures went non-finite or left
//! the physical range (tank to supply pressure), or that ends away from the
//! analytic steady state (E1-E5 of the model description with identical
//! orifices: p1 = pt + 2/3 (ps - pt), p2 = pt + 1/3 (ps - pt)), is marked
//! so, with the figures.
//!
//! Run: `cargo run --release -p validation --bin bench-orifice-chain`

use anyhow::{Context, Result};
use clap::Parser;
use validation::bench::{Expectation, Status, Target, Watch, classify, timed_do_steps};
use validation::fmi::fmu3::Fmu3;
use validation::harness::units::DisplayUnit;
use validation::{Scenario, Trace, percentile, relative_rms_percent};

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
    status: Status,
}

/// The operating point of the benchmark (the FMU's start values of the
/// supply and tank pressures) and what every run must do there.
struct Physics {
    /// Supply and tank pressure, Pa.
    ps: f64,
    pt: f64,
    unit: DisplayUnit,
}

impl Physics {
    /// The analytic steady state (p1, p2), Pa.
    fn steady_state(&self) -> (f64, f64) {
        let dp = self.ps - self.pt;
        (self.pt + 2.0 / 3.0 * dp, self.pt + dp / 3.0)
    }

    /// Watches on p1 and p2: within tank..supply pressure, ending within
    /// 1e-4 of the pressure drop (10 mbar at the defaults) of the steady
    /// state.
    fn watches(&self) -> [Watch; 2] {
        let (p1, p2) = self.steady_state();
        let watch = |name: &str, value| {
            Watch::new(Expectation {
                name: name.into(),
                unit: self.unit.clone(),
                range: (self.pt.min(self.ps), self.pt.max(self.ps)),
                target: Some(Target {
                    value,
                    tolerance: 1e-4 * (self.ps - self.pt).abs(),
                    source: "analytic steady state".into(),
                }),
            })
        };
        [watch("p1", p1), watch("p2", p2)]
    }
}

/// Runs one configuration through the FMU's fmi3 functions.
fn simulate(
    fmu: &Fmu3,
    run: &Run,
    stop: f64,
    h: f64,
    reference: &Trace,
    physics: &Physics,
) -> Result<Outcome> {
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
    // The samples: the reference's time span.
    let timed = timed_do_steps(&mut inst, h, n, |inst, _| {
        if p1.len() < ref_len {
            p1.push(inst.get_vr(vr_p1)?);
            p2.push(inst.get_vr(vr_p2)?);
        }
        Ok(())
    })?;
    let failure = timed
        .failure
        .map(|f| format!("doStep status {} at t = {:.3} s", f.status, f.t));
    let t_end = timed.t_end;
    // The status: the recorded samples and the final values, read after
    // the timing.
    let p_end = [inst.get_vr(vr_p1)?, inst.get_vr(vr_p2)?];
    let mut watches = physics.watches();
    let time: Vec<f64> = (0..p1.len()).map(|k| k as f64 * h).collect();
    for ((watch, samples), end) in watches.iter_mut().zip([&p1, &p2]).zip(p_end) {
        watch.observe_all(&time, samples);
        watch.observe(t_end, end);
    }
    let status = classify(failure.as_deref(), &watches);
    let m = p1.len().min(ref_len);
    let rp1 = &reference.signal("p1").expect("p1")[..m];
    let rp2 = &reference.signal("p2").expect("p2")[..m];
    let mut step_times = timed.steps;
    step_times.sort_by(f64::total_cmp);
    Ok(Outcome {
        wall: timed.wall,
        rhs: timed.counts.rhs_evals,
        jacobians: timed.counts.jacobians,
        substeps: timed.counts.steps,
        rejected: timed.counts.rejected,
        rms_p1: relative_rms_percent(&p1[..m], rp1),
        rms_p2: relative_rms_percent(&p2[..m], rp2),
        p2_end: p_end[1],
        worst_step: step_times.last().copied().unwrap_or(0.0),
        p999_step: percentile(&step_times, 0.999),
        status,
    })
}

fn main() -> Result<()> {
    let args = Args::parse();
    let fmu = Fmu3::load(&args.fmu)?;
    let ref_log10 = Scenario::named("OrificeChain", "startup")?.read_reference()?;
    let ref_ln = Scenario::named("OrificeChain", "startup_ln")?.read_reference()?;
    let start = |name: &str| {
        fmu.description
            .variable_by_name(name)
            .and_then(|v| v.start)
            .with_context(|| format!("the FMU has no start value of `{name}`"))
    };
    let physics = Physics {
        ps: start("ps")?,
        pt: start("pt")?,
        unit: DisplayUnit::of(&fmu.description, "p2"),
    };
    let (p1_steady, p2_steady) = physics.steady_state();
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
         (1 ms grid); p2 at the end vs the analytic steady state {}",
        physics.unit.show(p2_steady)
    );
    println!(
        "status: ok, or what is wrong: FAILED (doStep error), DIVERGED (non-finite), OUT OF RANGE \
         (p1 or p2 outside the tank..supply pressure {}..{}), WRONG END VALUE (p1 or p2 more than \
         {} from the steady state {} / {})\n",
        validation::harness::units::number(physics.unit.value(physics.pt)),
        physics.unit.show(physics.ps),
        physics.unit.show(1e-4 * (physics.ps - physics.pt)),
        physics.unit.show(p1_steady),
        physics.unit.show(p2_steady),
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
        "p1 RMS [%]",
        "p2 RMS [%]",
        format!("p2 end [{}]", physics.unit.name),
        "worst [us]",
        "p99.9 [us]"
    );
    let mut implicit_rtf = None;
    for run in &runs {
        let reference = if run.natural_log { &ref_ln } else { &ref_log10 };
        let o = simulate(&fmu, run, args.stop, args.step, reference, &physics)?;
        let rtf = args.stop / o.wall;
        if run.solver == 1 && run.rtol == 1e-6 && !run.natural_log {
            implicit_rtf = Some((rtf, o.rms_p1.max(o.rms_p2), o.status.is_ok()));
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
            physics.unit.value(o.p2_end),
            o.worst_step * 1e6,
            o.p999_step * 1e6,
            o.status.text(),
            if o.rejected > 0.0 {
                format!(" ({} rejected)", o.rejected)
            } else {
                String::new()
            }
        );
    }
    if let Some((rtf, err, valid)) = implicit_rtf {
        println!(
            "\nimplicit integrator (Rodas3, rtol 1e-6, log10): {rtf:.0} x faster than real time \
             at {err:.1e} % relative RMS error (goal: >= 1000 x at < 0.05 %): {}",
            if rtf >= 1000.0 && err < 0.05 && valid {
                "met"
            } else {
                "NOT met"
            }
        );
    }
    Ok(())
}
