//! The valve-curve estimation experiment of Khadim et al. (2021), done on
//! this project's FMUs (docs/digital-twin.md): synthetic
//! measurements of s, pp and p1 at 1 kHz from the FourBar FMU with a true
//! curve (`real-2`, `real-1`) plus white noise of fixed seeds; the
//! estimator (library `validation::estimator`) on the FourBarTwin FMU
//! starts from the catalogue's straight line with 3 to 6 control points,
//! kp and k0 20 % high and s 0.2 m off. It prints and writes the table of
//! curve errors (against the best fit that many control points can make of
//! the true curve), convergence times, band coverage and speed, and plots
//! one run per curve.

use anyhow::{Context, Result, bail};
use clap::Parser;
use hydraulics::BSplineCurve;
use std::io::Write;
use std::path::{Path, PathBuf};
use validation::estimator::experiment::{
    N_MAX, RunResult, TRUE_NAMES, Truth, curve_of, grid, measurements, run_one, true_curve, truth,
    write_measurements,
};
use validation::estimator::{self, Config, Sample};
use validation::fmi::fmu3::Fmu3;
use validation::harness::plot::{self, Corner, Curve, Figure, LegendEntry, Panel, Scale};

#[derive(Parser)]
#[command(
    about = "The valve-curve estimation experiment of Khadim et al. (2021) (Sensors 21, 5029) on the FourBar / FourBarTwin FMUs"
)]
struct Args {
    /// Folder with FourBar.fmu and FourBarTwin.fmu (FMI 3).
    #[arg(long, default_value = "dist/fmi3")]
    fmu_dir: PathBuf,
    /// The estimator's configuration (covariances, starts).
    #[arg(long, default_value = "validation/estimator/four-bar.json")]
    config: PathBuf,
    /// Output folder (table, CSV, plots, measurement files).
    #[arg(long, default_value = "target/estimator")]
    out: PathBuf,
    /// True curves: FourBar's presets (real-2, real-1, linear) and
    /// dead-band (closed up to about 1.5 V).
    #[arg(long, value_delimiter = ',', default_value = "real-2,real-1,dead-band")]
    curves: Vec<String>,
    /// Control-point counts of the estimated curve (3 to 6).
    #[arg(long, value_delimiter = ',', default_value = "3,4,5,6")]
    points: Vec<usize>,
    /// Number of noise seeds.
    #[arg(long, default_value_t = 16)]
    seeds: u64,
    /// Length of each run, s.
    #[arg(long, default_value_t = 10.0)]
    duration: f64,
    /// Leave out the bulk-modulus study (the first curve with as many
    /// control points as it has, under other covariances for kp, k0 and
    /// the pressures: what the filter makes of the bulk modulus).
    #[arg(long)]
    no_bulk_study: bool,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.retain(|x| x.is_finite());
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

fn plot_run(
    path: &Path,
    twin: &Fmu3,
    config: &Config,
    samples: &[Sample],
    truth: &Truth,
    true_interior: Option<&[f64]>,
    title: &str,
) -> Result<()> {
    let n = samples.len();
    let reference = |name: &str| -> Option<Vec<f64>> {
        if let Some(c) = TRUE_NAMES.iter().position(|t| *t == name) {
            return Some(truth.signals[..n].iter().map(|r| r[c]).collect());
        }
        match name {
            "kp" => Some(vec![1.6e9; n]),
            "k0" => Some(vec![0.5; n]),
            m if m.starts_with('N') => m[1..]
                .parse::<usize>()
                .ok()
                .and_then(|k| true_interior.and_then(|v| v.get(k - 1)))
                .map(|&v| vec![v; n]),
            _ => None,
        }
    };
    estimator::plot(
        path,
        &twin.description,
        config,
        samples,
        title,
        &["theta", "omega", "U"],
        &reference,
        &|_| None,
    )
}

fn plot_curves(
    path: &Path,
    true_curve: &BSplineCurve,
    finals: &[(usize, Vec<f64>)],
    title: &str,
) -> Result<()> {
    let g = grid();
    let mut curves = vec![Curve {
        label: "start (catalogue line)".into(),
        x: g.clone(),
        y: g.iter().map(|&u| N_MAX * u / 10.0).collect(),
        color: 5,
        dashed: true,
    }];
    for (k, (points, interior)) in finals.iter().enumerate() {
        let c = curve_of(*points, interior)?;
        curves.push(Curve {
            label: format!("{points} points at the end"),
            x: g.clone(),
            y: g.iter().map(|&u| c.eval(u).value).collect(),
            color: [0, 2, 3, 4][k % 4],
            dashed: false,
        });
    }
    curves.push(Curve {
        label: "true curve".into(),
        x: g.clone(),
        y: g.iter().map(|&u| true_curve.eval(u).value).collect(),
        color: 1,
        dashed: true,
    });
    // One legend, above the axes: the curves' labels move there.
    let legend = curves
        .iter_mut()
        .map(|c| LegendEntry {
            label: std::mem::take(&mut c.label),
            color: c.color,
            dashed: c.dashed,
        })
        .collect();
    let figure = Figure {
        title: title.to_string(),
        legend,
        columns: 1,
        width: 900,
        row_height: 520,
        panels: vec![Panel {
            legend_at: Corner::UpperLeft,
            caption: "valve curve N(U)".into(),
            y_label: "N [1] (95 = Cv at 10 V)".into(),
            y_scale: Scale::Linear,
            x_label: "spool signal U [V]".into(),
            x_scale: Scale::Linear,
            curves,
        }],
    };
    plot::draw_png(&figure, path)
}

fn pct(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.3}")
    } else {
        "–".into()
    }
}

/// Configurations that differ from `base` only in what the filter believes
/// of the bulk modulus and the pressures (each variant sets all of it).
fn bulk_variants(base: &Config) -> Vec<(String, Config)> {
    let with = |f: &dyn Fn(&mut Config)| {
        let mut c = base.clone();
        f(&mut c);
        c
    };
    let set_param = |c: &mut Config, name: &str, sigma0: f64, q: f64| {
        for p in c.augment.iter_mut().filter(|p| p.input == name) {
            p.sigma0 = sigma0;
            p.q = q;
        }
    };
    let pressure_q = |c: &mut Config, q: f64| {
        for s in c
            .states
            .iter_mut()
            .filter(|s| ["pp", "p1", "p2"].contains(&s.name.as_str()))
        {
            s.q = q;
        }
    };
    // Each variant sets all three, whatever the base configuration holds:
    // σ0 and q of kp, σ0 of k0, the pressures' plant noise.
    let variant = |kp_sigma0: f64, k0_sigma0: f64, pressure_noise: f64| {
        with(&|c| {
            set_param(c, "kp", kp_sigma0, 1e6);
            set_param(c, "k0", k0_sigma0, 1e-10);
            pressure_q(c, pressure_noise);
        })
    };
    vec![
        (
            "the paper's covariances: σ0(kp) = 10 MPa, σ0(k0) = 10, pressure plant noise 2.5981e9 Pa²".into(),
            variant(1e7, 10.0, PAPER_PRESSURE_NOISE),
        ),
        (
            "wide priors: σ0(kp) = 400 MPa, σ0(k0) = 1".into(),
            variant(4e8, 1.0, PAPER_PRESSURE_NOISE),
        ),
        (
            "wide priors, pressure plant noise 1e7 Pa² (the paper's / 260; the default configuration)".into(),
            variant(4e8, 1.0, 1e7),
        ),
        (
            "the paper's priors, pressure plant noise 1e7 Pa²".into(),
            variant(1e7, 10.0, 1e7),
        ),
    ]
}

/// The plant noise of Khadim et al. (2021) on each pressure, Pa² per
/// sample.
const PAPER_PRESSURE_NOISE: f64 = 2.5981e9;

/// The bulk-modulus study (left out with `--no-bulk-study`): a Markdown
/// section.
fn bulk_study(args: &Args, base: &Config, plant: &Fmu3, twin: &Fmu3) -> Result<String> {
    let curve = &args.curves[0];
    let chosen = true_curve(curve)?;
    let points = chosen.u.len();
    let true_curve = chosen.curve()?;
    let truth = truth(plant, &chosen, args.duration, base.sample_period)?;
    let mut out = format!(
        "\nBulk modulus ({curve}, {points} control points, {} noise seeds; truth kp = 1600 MPa, k0 = 0.5; start 1920 MPa, 0.6):\n\n\
         | variant | kp at the end, MPa (median, range) | k0 at the end (median, range) | kp, k0 inside ±1.96 σ % | curve RMSE at the end % (median, max) | failed |\n|---|---|---|---|---|---|\n",
        args.seeds
    );
    for (label, config) in bulk_variants(base) {
        eprintln!("bulk-modulus study: {label} ...");
        let mut runs = Vec::new();
        for seed in 0..args.seeds {
            let data = measurements(&truth, seed);
            let (r, _, _) = run_one(
                twin,
                &config,
                &data,
                &truth,
                &true_curve,
                true,
                points,
                curve,
                seed,
                args.duration,
            )?;
            runs.push(r);
        }
        let ok: Vec<&RunResult> = runs.iter().filter(|r| r.error.is_none()).collect();
        let range = |v: Vec<f64>| {
            if v.is_empty() {
                return (f64::NAN, f64::NAN, f64::NAN);
            }
            let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            (median(v), lo, hi)
        };
        let kp = range(ok.iter().map(|r| r.kp / 1e6).collect());
        let k0 = range(ok.iter().map(|r| r.k0).collect());
        let cov = |name: &str| {
            let v: Vec<f64> = ok
                .iter()
                .filter_map(|r| {
                    r.coverage
                        .iter()
                        .find(|(n, _)| n == name)
                        .map(|c| 100.0 * c.1)
                })
                .collect();
            if v.is_empty() {
                "–".to_string()
            } else {
                format!("{:.0}", v.iter().sum::<f64>() / v.len() as f64)
            }
        };
        let rmse = range(ok.iter().map(|r| r.rmse10).collect());
        out.push_str(&format!(
            "| {label} | {:.0} ({:.0} .. {:.0}) | {:.2} ({:.2} .. {:.2}) | {}, {} | {}, {} | {} of {} |\n",
            kp.0, kp.1, kp.2, k0.0, k0.1, k0.2, cov("kp"), cov("k0"), pct(rmse.0), pct(rmse.2),
            runs.len() - ok.len(), runs.len()
        ));
    }
    Ok(out)
}

fn main() -> Result<()> {
    let args = Args::parse();
    if args.points.iter().any(|p| !(3..=6).contains(p)) {
        bail!("--points takes counts from 3 to 6");
    }
    std::fs::create_dir_all(&args.out)?;
    let base = Config::read(&args.config)?;
    let plant = Fmu3::load(&args.fmu_dir.join("FourBar.fmu"))
        .with_context(|| "FourBar.fmu: build the FMUs first (cargo run --release -p build-fmu)")?;
    let twin = Fmu3::load(&args.fmu_dir.join("FourBarTwin.fmu"))?;
    let mut results = Vec::new();
    let mut simulation_speed = Vec::new();
    let mut table = String::new();
    for curve in &args.curves {
        let chosen = true_curve(curve)?;
        let (pu, pn) = (chosen.u, chosen.n);
        let true_curve = chosen.curve()?;
        eprintln!(
            "{curve}: the true run of FourBar ({} s at 1 kHz) ...",
            args.duration
        );
        let started = std::time::Instant::now();
        let truth = truth(&plant, &chosen, args.duration, base.sample_period)?;
        let simulation = args.duration / started.elapsed().as_secs_f64();
        eprintln!("  FourBar (Co-Simulation, 1 ms steps) ran at {simulation:.0}x real time");
        simulation_speed.push(simulation);
        let mut finals = Vec::new();
        for &points in &args.points {
            // Equally spaced control points at the true curve's own
            // abscissae represent it exactly.
            let representable = pu.len() == points;
            for seed in 0..args.seeds {
                let data = measurements(&truth, seed);
                if seed == 0 && points == args.points[0] {
                    write_measurements(&args.out.join(format!("measurements-{curve}.csv")), &data)?;
                }
                let (r, samples, config) = run_one(
                    &twin,
                    &base,
                    &data,
                    &truth,
                    &true_curve,
                    representable,
                    points,
                    curve,
                    seed,
                    args.duration,
                )?;
                eprintln!(
                    "  {points} points, noise seed {seed}: RMSE {} % at 5 s, {} % at the end (floor {} %), {:.0}x real time ({}){}",
                    pct(r.rmse5),
                    pct(r.rmse10),
                    pct(r.floor),
                    r.realtime,
                    r.work,
                    r.error
                        .as_deref()
                        .map_or(String::new(), |e| format!(", FAILED: {e}"))
                );
                if seed == 0 && !samples.is_empty() {
                    let names = config.names();
                    let n0 = names.iter().position(|n| n == "N1").unwrap_or(0);
                    let last = samples.last().expect("samples");
                    finals.push((points, last.x[n0..n0 + points - 2].to_vec()));
                    let stem = format!("estimate-{curve}-{points}points");
                    estimator::write_csv(&args.out.join(format!("{stem}.csv")), &config, &samples)?;
                    let interior = representable.then(|| pn[1..pn.len() - 1].to_vec());
                    plot_run(
                        &args.out.join(format!("{stem}.png")),
                        &twin,
                        &config,
                        &samples,
                        &truth,
                        interior.as_deref(),
                        &format!(
                            "FourBarTwin estimating {curve} with {points} control points (noise seed 0)"
                        ),
                    )?;
                }
                results.push(r);
            }
        }
        plot_curves(
            &args.out.join(format!("curves-{curve}.png")),
            &true_curve,
            &finals,
            &format!(
                "Valve curve {curve}: truth, start and the estimates at {} s (noise seed 0)",
                args.duration
            ),
        )?;
    }
    // The table: one row per curve and count, over the seeds.
    table.push_str(&format!(
        "| true curve | points | floor % | RMSE 5 s % (median, max) | RMSE {} s % (median, max) | RMSE mean {} .. {} s % (median, max) | below 1 % from s (max) | lowest curve value % (min) | band s / pp / p1 % (min) | kp end (median) | k0 end (median) | real time x (min) | failed |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
        args.duration,
        args.duration / 2.0,
        args.duration
    ));
    for curve in &args.curves {
        for &points in &args.points {
            let rs: Vec<&RunResult> = results
                .iter()
                .filter(|r| &r.curve == curve && r.points == points)
                .collect();
            let ok: Vec<&&RunResult> = rs.iter().filter(|r| r.error.is_none()).collect();
            let col = |f: &dyn Fn(&RunResult) -> f64| ok.iter().map(|r| f(r)).collect::<Vec<_>>();
            let max = |v: Vec<f64>| v.into_iter().fold(f64::NAN, f64::max);
            let min = |v: Vec<f64>| v.into_iter().fold(f64::NAN, f64::min);
            let cov = |name: &str| {
                min(col(&|r| {
                    r.coverage
                        .iter()
                        .find(|(n, _)| n == name)
                        .map_or(f64::NAN, |c| 100.0 * c.1)
                }))
            };
            let below: Vec<Option<f64>> = ok.iter().map(|r| r.below_1_from).collect();
            let floor = rs.first().map_or(f64::NAN, |r| r.floor);
            let below_text = if floor >= 1.0 {
                "– (best fit above 1 %)".to_string()
            } else if below.iter().all(Option::is_some) && !below.is_empty() {
                format!(
                    "{:.2}",
                    below.iter().flatten().fold(0.0f64, |a, &b| a.max(b))
                )
            } else {
                "not all".into()
            };
            table.push_str(&format!(
                "| {curve} | {points} | {} | {}, {} | {}, {} | {}, {} | {below_text} | {} | {:.1} / {:.1} / {:.1} | {:.4} GPa | {:.3} | {:.0} | {} of {} |\n",
                pct(rs.first().map_or(f64::NAN, |r| r.floor)),
                pct(median(col(&|r| r.rmse5))),
                pct(max(col(&|r| r.rmse5))),
                pct(median(col(&|r| r.rmse10))),
                pct(max(col(&|r| r.rmse10))),
                pct(median(col(&|r| r.rmse_late))),
                pct(max(col(&|r| r.rmse_late))),
                pct(min(col(&|r| r.lowest))),
                cov("s"),
                cov("pp"),
                cov("p1"),
                median(col(&|r| r.kp)) / 1e9,
                median(col(&|r| r.k0)),
                min(col(&|r| r.realtime)),
                rs.len() - ok.len(),
                rs.len(),
            ));
        }
    }
    // Speed: the estimator against a plain simulation of the same circuit
    // in the same run (a ratio that does not depend on the machine).
    let estimator_speed = median(results.iter().map(|r| r.realtime).collect());
    let plain = median(simulation_speed.clone());
    table.push_str(&format!(
        "\nSpeed: the estimator ran at {estimator_speed:.1}x real time (median over the runs), a plain \
         FourBar simulation (Co-Simulation, 1 ms steps) at {plain:.0}x: the estimator costs {:.1} \
         simulations.\n",
        plain / estimator_speed
    ));
    // Band coverage of every quantity, averaged over the seeds.
    table.push_str(
        "\nShare of samples with the error inside ±1.96 σ (mean over the noise seeds, %):\n\n",
    );
    for curve in &args.curves {
        for &points in &args.points {
            let ok: Vec<&RunResult> = results
                .iter()
                .filter(|r| &r.curve == curve && r.points == points && r.error.is_none())
                .collect();
            if let Some(first) = ok.first() {
                let parts: Vec<String> = first
                    .coverage
                    .iter()
                    .map(|(name, _)| {
                        let v: Vec<f64> = ok
                            .iter()
                            .filter_map(|r| r.coverage.iter().find(|(n, _)| n == name).map(|c| c.1))
                            .collect();
                        format!(
                            "{name} {:.1}",
                            100.0 * v.iter().sum::<f64>() / v.len() as f64
                        )
                    })
                    .collect();
                table.push_str(&format!(
                    "- {curve}, {points} points: {}\n",
                    parts.join(", ")
                ));
            }
        }
    }
    for r in results.iter().filter(|r| r.error.is_some()) {
        table.push_str(&format!(
            "\nFailed: {} {} points, noise seed {}: {}\n",
            r.curve,
            r.points,
            r.seed,
            r.error.as_deref().unwrap_or_default()
        ));
    }
    if !args.no_bulk_study {
        table.push_str(&bulk_study(&args, &base, &plant, &twin)?);
    }
    println!("{table}");
    let mut f = std::fs::File::create(args.out.join("results.md"))?;
    f.write_all(table.as_bytes())?;
    let mut w = csv::Writer::from_path(args.out.join("runs.csv"))?;
    w.write_record([
        "curve",
        "points",
        "seed",
        "rmse_5s_pct",
        "rmse_end_pct",
        "rmse_late_mean_pct",
        "lowest_curve_value_pct",
        "largest_fall_pct",
        "floor_pct",
        "below_1pct_from_s",
        "kp_end",
        "k0_end",
        "realtime_factor",
        "error",
    ])?;
    for r in &results {
        w.write_record([
            r.curve.clone(),
            r.points.to_string(),
            r.seed.to_string(),
            format!("{}", r.rmse5),
            format!("{}", r.rmse10),
            format!("{}", r.rmse_late),
            format!("{}", r.lowest),
            format!("{}", r.largest_fall),
            format!("{}", r.floor),
            r.below_1_from.map_or(String::new(), |v| format!("{v}")),
            format!("{}", r.kp),
            format!("{}", r.k0),
            format!("{}", r.realtime),
            r.error.clone().unwrap_or_default(),
        ])?;
    }
    w.flush()?;
    eprintln!("wrote {}", args.out.display());
    Ok(())
}
