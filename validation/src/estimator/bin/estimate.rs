//! `estimate`: runs the state and parameter estimator
//! (`validation::estimator`) of a configuration file over a measurement
//! file with any FMI 3.0 Model Exchange FMU, and writes the estimates with
//! their ±1.96 σ bands as CSV and as a plot (docs/digital-twin.md).

use anyhow::{Context, Result, bail};
use clap::Parser;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;
use validation::estimator::{self, Config, Estimator, Measurements};
use validation::fmi::fmu3::Fmu3;
use validation::harness::units::DisplayUnit;

#[derive(Parser)]
#[command(
    about = "Estimate an FMU's states and input parameters from measurements (augmented extended Kalman filter)",
    after_help = "Example (the four-bar's valve curve; the measurement file comes from estimator-experiment):\n  \
                  estimate --fmu dist/fmi3/FourBarTwin.fmu --config validation/estimator/four-bar.json \\\n    \
                  --measurements target/estimator/measurements-real-2.csv --out target/estimate"
)]
struct Args {
    /// The FMI 3.0 FMU with Model Exchange.
    #[arg(long)]
    fmu: PathBuf,
    /// The estimator's configuration (JSON: states, parameters to learn,
    /// measurements and their noise, covariances).
    #[arg(long)]
    config: PathBuf,
    /// Measurements: CSV with a `time` column, the known inputs and the
    /// measured outputs by name.
    #[arg(long)]
    measurements: PathBuf,
    /// Output folder for estimate.csv and estimate.png.
    #[arg(long, default_value = "target/estimate")]
    out: PathBuf,
    /// Override an FMU parameter of the configuration, NAME=VALUE (SI).
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
}

fn main() -> Result<()> {
    let args = Args::parse();
    let mut config = Config::read(&args.config)?;
    for s in &args.set {
        let Some((name, value)) = s.split_once('=') else {
            bail!("--set takes NAME=VALUE, not '{s}'");
        };
        let value: f64 = value
            .trim()
            .parse()
            .with_context(|| format!("--set {s}: '{value}' is not a number"))?;
        config.parameters.insert(name.trim().to_string(), value);
    }
    let data = Measurements::read(&args.measurements, &config)?;
    let fmu = Fmu3::load(&args.fmu)?;
    let stop = *data.t.last().unwrap_or(&0.0);
    let mut est = Estimator::new(&fmu, config.clone(), stop.max(config.sample_period))?;
    eprintln!(
        "estimating {} states and {} parameters of {} from {} samples of {} ...",
        config.states.len(),
        config.augment.len(),
        fmu.description.model_name,
        data.t.len(),
        config
            .measurements
            .iter()
            .map(|m| m.output.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let started = Instant::now();
    let samples = estimator::run(&mut est, &data, |done| {
        eprint!("\r  {:3.0} %", 100.0 * done);
        let _ = std::io::stderr().flush();
    });
    eprintln!("\r  100 %");
    let samples = samples?;
    let elapsed = started.elapsed().as_secs_f64();
    std::fs::create_dir_all(&args.out)?;
    let csv = args.out.join("estimate.csv");
    estimator::write_csv(&csv, &config, &samples)?;
    let png = args.out.join("estimate.png");
    let measured = |name: &str| {
        let j = config.measurements.iter().position(|m| m.output == name)?;
        Some(data.z.iter().map(|z| z[j]).collect())
    };
    estimator::plot(
        &png,
        &fmu.description,
        &config,
        &samples,
        &format!(
            "{}: estimates with their ±1.96 σ bands from {}",
            fmu.description.model_name,
            args.measurements.display()
        ),
        &[],
        &|_| None,
        &measured,
    )?;
    let last = samples.last().context("no samples")?;
    println!("At t = {} s:", last.t);
    for (i, name) in config.names().iter().enumerate() {
        let unit = DisplayUnit::of(&fmu.description, name);
        println!(
            "  {name:>8} = {} ± {} (1.96 σ)",
            unit.show(last.x[i]),
            unit.show_delta(1.96 * last.sigma[i])
        );
    }
    let nis: f64 = samples.iter().map(|s| s.nis).sum::<f64>() / samples.len() as f64;
    println!(
        "Mean normalized innovation squared {nis:.2} (expected {} for a consistent filter).",
        config.measurements.len()
    );
    println!(
        "{} samples in {elapsed:.2} s: {:.1}x real time; {:.2} integrator substeps per sample.",
        samples.len(),
        (last.t - samples[0].t) / elapsed,
        (est.stats.accepted + est.stats.rejected) as f64 / samples.len() as f64
    );
    println!("Wrote {} and {}", csv.display(), png.display());
    Ok(())
}
