//! One FMU instance: the version-independent logic behind every FMI
//! function; `fmi2` and `fmi3` only translate C arguments.
//!
//! By concern: the state machine (`phase.rs`), where the values sit
//! (`layout.rs`), instantiation to reset (`lifecycle.rs`), the checks of a
//! configured model (`checks.rs`), get and set (`values.rs`), doStep
//! (`step.rs`), FMU state snapshots (`snapshot.rs`) and their bytes
//! (`serialize.rs`), directional derivatives (`derivatives.rs`) and Model
//! Exchange ([`exchange`]).

use crate::context::ResourceFolder;
use crate::logging::{Category, Logger};
use crate::model::Model;
use crate::solver::{Carried, SolverSettings, Stats};
use crate::status::{FmiResult, Status};
use crate::table::Row;
use derivatives::JacobianAt;
use layout::Layout;
use model_description::ModelDescription;
use nalgebra::SVector;

mod checks;
mod derivatives;
pub mod exchange;
mod layout;
mod lifecycle;
mod phase;
mod serialize;
pub(crate) mod snapshot;
mod step;
mod values;

pub use layout::Values;
pub use lifecycle::{CreateError, checked_description, default_model};
pub use phase::{FmiVersion, Interface, Op, Phase};
pub use snapshot::Snapshot;
pub use values::ValueType;

/// Marks a live instance (checked on every call; cleared when freed).
pub(crate) const INSTANCE_MAGIC: u64 = 0x464c_5549_4446_4d55; // "FLUIDFMU"

/// One FMU instance of model `M` with `NX` states.
#[repr(C)]
pub struct Instance<M: Model<NX>, const NX: usize> {
    magic: u64,
    version: FmiVersion,
    interface: Interface,
    /// The logger wired to the master's callback.
    pub logger: Logger,
    phase: Phase,
    desc: ModelDescription,
    token_hash: u64,
    /// The table rows of the value slots (model rows, then solver rows):
    /// every value set or restored is checked against its row.
    rows: Vec<Row>,
    layout: Layout,
    resources: ResourceFolder,
    values: Values,
    inputs: M::Inputs,
    model: M,
    x: SVector<f64, NX>,
    time: f64,
    start_time: f64,
    stop_time: Option<f64>,
    settings: SolverSettings,
    carried: Carried<NX>,
    stats: Stats,
    last_successful_time: f64,
    /// The outputs at the present state and inputs when the last step
    /// computed them (for its check), so that the gets after a step do not
    /// evaluate the model again; current while `outputs_current`, which
    /// anything that changes them clears. Boxed, with a spare the step
    /// computes into and swaps in: a model's output record may be large
    /// (an engine's holds its capacity), and no `doStep` copies it.
    outputs: Box<M::Outputs>,
    outputs_current: bool,
    spare_outputs: Box<M::Outputs>,
    /// The rates' derivatives of the last directional derivatives with the
    /// point they were taken at: a master that asks for the Jacobian one
    /// column per call gets it from one evaluation.
    jacobian: std::cell::RefCell<Option<JacobianAt<NX>>>,
    /// Whether the last doStep refused a step that no retry can complete
    /// (FMI 2 `fmi2Terminated`, FMI 3 `terminateSimulation`; see
    /// [`Instance::do_step`]).
    terminated: bool,
    /// The last discarded step's fingerprint (its time, size, state and
    /// settable values) and how many times in a row it was discarded.
    discarded: Option<(u64, u32)>,
    /// Each event indicator's [`EventIndicator::offset`](crate::EventIndicator::offset),
    /// added to what a master reads.
    event_offsets: Vec<f64>,
}

/// FNV-1a 64-bit hash (checksums of serialized states, token fingerprints).
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    fnv1a_extend(0xcbf2_9ce4_8422_2325, bytes)
}

/// FNV-1a 64-bit: the hash `h` of some bytes extended by `bytes` (hashing
/// in pieces, without gathering them first).
pub(crate) fn fnv1a_extend(mut h: u64, bytes: &[u8]) -> u64 {
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

impl<M: Model<NX>, const NX: usize> Instance<M, NX> {
    /// Whether the magic marker says this is a live instance.
    pub(crate) fn is_live(&self) -> bool {
        self.magic == INSTANCE_MAGIC
    }

    /// Clears the marker before the memory is freed.
    pub(crate) fn mark_freed(&mut self) {
        self.magic = 0;
    }

    /// The FMI version the instance was created with.
    pub fn version(&self) -> FmiVersion {
        self.version
    }

    /// Current state-machine phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Current simulation time (s).
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Whether the last doStep refused a step that no retry can complete:
    /// what FMI 2's `fmi2GetBooleanStatus(fmi2Terminated)` and FMI 3's
    /// `terminateSimulation` of doStep report.
    pub fn terminated(&self) -> bool {
        self.terminated
    }

    /// Time up to which the last step succeeded (s).
    pub fn last_successful_time(&self) -> f64 {
        self.last_successful_time
    }

    /// The integrator's work counters since instantiation.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// The full model description (with time and solver parameters).
    pub fn description(&self) -> &ModelDescription {
        &self.desc
    }

    /// Logs an error-type message and returns its status as `Err`.
    pub fn fail<R>(&self, status: Status, function: &str, message: &str) -> FmiResult<R> {
        self.logger.log(
            status,
            Category::for_status(status),
            &format!("{function}: {message}"),
        );
        Err(status)
    }

    /// Logs an informational event.
    pub fn event(&self, message: &str) {
        self.logger.log(Status::Ok, Category::Events, message);
    }

    /// Puts the instance in the failed state after an internal fault.
    pub fn set_failed(&mut self) {
        self.phase = Phase::Failed;
    }

    /// Refuses a function for a capability this FMU does not have.
    pub fn unsupported<R>(&self, function: &str, what: &str) -> FmiResult<R> {
        self.fail(
            Status::Error,
            function,
            &format!("{what} is not supported by this FMU"),
        )
    }

    /// The event indicators a master reads at the present state and inputs
    /// into `z` (one entry per indicator): the model's switch functions
    /// plus their offsets ([`crate::EventIndicator::offset`]).
    fn reported_event_indicators(&self, z: &mut [f64]) {
        self.model.event_indicator_values(&self.inputs, &self.x, z);
        for (v, offset) in z.iter_mut().zip(&self.event_offsets) {
            *v += offset;
        }
    }

    /// The current state vector (for tests and tools).
    pub fn states(&self) -> SVector<f64, NX> {
        self.x
    }
}
