//! The in-Rust Model Exchange master's integrator: it advances an imported
//! FMU's continuous states over one communication step with fmu-core's
//! Rodas3 (adaptive, L-stable, the integrator inside our own Co-Simulation
//! FMUs), calling the FMU's `getDerivatives` for the rates and building the
//! Jacobian from them by central differences (scaled by the FMU's nominal
//! values).
//!
//! fmu-core's integrators work on fixed-size vectors; an FMU's state count
//! is known only at run time, so the step is dispatched to the size the
//! FMU has (1 to [`MAX_STATES`]).
//!
//! The FMU's time is set to the start of the step before and to its end
//! after: the rates are taken as constant in time over a communication step
//! with held inputs, which holds for FMUs without explicit time dependence
//! (every circuit of this project); FMUs that read `time` inside their
//! equations see it only at the communication points.

use crate::fmi::master::Slave;
use anyhow::{Context, Result, bail};
use fmu_core::nalgebra::SVector;
use fmu_core::solver::{Carried, OdeSystem, SolverSettings, Stats, rodas3_adaptive};
use std::cell::RefCell;

/// The largest state count the stepper dispatches to.
pub const MAX_STATES: usize = 32;

/// Advances a Model Exchange [`Slave`] one communication step at a time.
pub struct MeStepper {
    settings: SolverSettings,
    /// The substep size carried from one step to the next, s.
    h: f64,
    /// Work counters over all steps.
    pub stats: Stats,
    nominal: Vec<f64>,
}

/// The FMU as an ODE system of `N` states (rates from `getDerivatives`).
struct FmuSystem<'a, const N: usize> {
    slave: RefCell<&'a mut Slave>,
    nominal: SVector<f64, N>,
    /// The first error the FMU returned inside the integrator.
    error: RefCell<Option<anyhow::Error>>,
}

impl<const N: usize> OdeSystem<N> for FmuSystem<'_, N> {
    fn rates(&self, x: &SVector<f64, N>) -> SVector<f64, N> {
        let mut dx = SVector::<f64, N>::repeat(f64::NAN);
        let mut slave = self.slave.borrow_mut();
        let result = slave
            .set_states(x.as_slice())
            .and_then(|()| slave.get_derivatives(dx.as_mut_slice()));
        if let Err(e) = result {
            // A refused state (the FMU's rates are not finite there) makes
            // the integrator reject the substep; the message is kept.
            self.error.borrow_mut().get_or_insert(e);
            dx.fill(f64::NAN);
        }
        dx
    }

    fn nominal(&self) -> SVector<f64, N> {
        self.nominal
    }
}

/// Advances an imported FMU's states `x` by `h` with Rodas3; on failure an
/// error that adds what the FMU said (the first error `system` kept in
/// `error` while the integrator called it).
pub(crate) fn rodas3_step<S: OdeSystem<N>, const N: usize>(
    system: &S,
    error: &RefCell<Option<anyhow::Error>>,
    x: &mut SVector<f64, N>,
    h: f64,
    settings: &SolverSettings,
    carried: &mut Carried<N>,
    stats: &mut Stats,
) -> Result<()> {
    if let Err(e) = rodas3_adaptive(system, x, h, settings, carried, stats) {
        let why = error
            .borrow_mut()
            .take()
            .map_or_else(String::new, |e| format!(" (the FMU said: {e:#})"));
        bail!("the integration failed: {e:?}{why}");
    }
    Ok(())
}

impl MeStepper {
    /// A stepper for `slave` (in Continuous-Time Mode) at relative
    /// tolerance `rtol` (absolute: `rtol` times each state's nominal).
    pub fn new(slave: &mut Slave, rtol: f64) -> Result<Self> {
        let n = slave.state_count();
        if n == 0 || n > MAX_STATES {
            bail!("{n} continuous states: this master integrates 1 to {MAX_STATES}");
        }
        let mut nominal = vec![1.0; n];
        slave.get_nominals(&mut nominal)?;
        let settings = SolverSettings {
            rtol,
            atol: rtol,
            ..SolverSettings::default()
        };
        Ok(MeStepper {
            settings,
            h: 0.0,
            stats: Stats::default(),
            nominal,
        })
    }

    /// Integrates from `t` to `t + h` (s) with the inputs as they are set,
    /// then tells the FMU the step is complete; returns whether the FMU
    /// asks for an event.
    pub fn step(&mut self, slave: &mut Slave, t: f64, h: f64) -> Result<bool> {
        macro_rules! sizes {
            ($($n:literal)*) => {
                match self.nominal.len() {
                    $($n => self.step_n::<$n>(slave, t, h),)*
                    n => bail!("{n} continuous states: this master integrates 1 to {MAX_STATES}"),
                }
            };
        }
        sizes!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32)
    }

    fn step_n<const N: usize>(&mut self, slave: &mut Slave, t: f64, h: f64) -> Result<bool> {
        let mut x = SVector::<f64, N>::zeros();
        slave.set_time(t)?;
        slave.get_states(x.as_mut_slice())?;
        let system = FmuSystem {
            slave: RefCell::new(&mut *slave),
            nominal: SVector::from_column_slice(&self.nominal),
            error: RefCell::new(None),
        };
        let mut carried = Carried::<N>::with_step(self.h);
        rodas3_step(
            &system,
            &system.error,
            &mut x,
            h,
            &self.settings,
            &mut carried,
            &mut self.stats,
        )
        .with_context(|| format!("integrating from t = {t} s by {h} s"))?;
        self.h = carried.h;
        slave.set_time(t + h)?;
        slave.set_states(x.as_slice())?;
        slave.completed_integrator_step()
    }
}
