//! The FMI state machine: the phases an instance goes through, the
//! operations a master calls, and the one table of the phases in which
//! each operation is allowed.

use super::Instance;
use crate::model::Model;
use crate::status::{FmiResult, Status};

/// Which FMI version created an instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FmiVersion {
    /// FMI 2.0.
    Fmi2,
    /// FMI 3.0.
    Fmi3,
}

/// The instance's place in the FMI co-simulation state machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// After instantiation (and after reset).
    Instantiated,
    /// Between enter and exit of initialization mode.
    InitializationMode,
    /// Ready to step (FMI 2 "slaveInitialized", FMI 3 "Step Mode").
    StepMode,
    /// After terminate.
    Terminated,
    /// After an internal fault; only free and reset are accepted.
    Failed,
    /// FMI 3 Configuration Mode: structural parameters may be set.
    ConfigurationMode,
    /// Model Exchange Event Mode (after initialization and on events).
    EventMode,
    /// Model Exchange Continuous-Time Mode: the master integrates.
    ContinuousTimeMode,
}

/// Which FMI interface an instance was created for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interface {
    /// Co-Simulation: the FMU integrates in doStep.
    CoSimulation,
    /// Model Exchange: the master integrates the FMU's derivatives.
    ModelExchange,
}

impl Phase {
    fn bit(self) -> u8 {
        1 << (self as u8)
    }

    /// The name of the state for messages.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Instantiated => "Instantiated",
            Phase::InitializationMode => "Initialization Mode",
            Phase::StepMode => "Step Mode",
            Phase::Terminated => "Terminated",
            Phase::Failed => "Failed (after an internal error)",
            Phase::ConfigurationMode => "Configuration Mode",
            Phase::EventMode => "Event Mode",
            Phase::ContinuousTimeMode => "Continuous-Time Mode",
        }
    }
}

/// The operations of the state machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// setDebugLogging.
    SetDebugLogging,
    /// FMI 2 setupExperiment.
    SetupExperiment,
    /// enterInitializationMode.
    EnterInitializationMode,
    /// exitInitializationMode.
    ExitInitializationMode,
    /// get of variable values.
    GetValues,
    /// set of variable values (further restricted per variable).
    SetValues,
    /// doStep.
    DoStep,
    /// terminate.
    Terminate,
    /// reset.
    Reset,
    /// get/set/serialize FMU state.
    FmuState,
    /// directional derivatives.
    DirectionalDerivative,
    /// FMI 2 get*Status.
    GetStatus,
    /// FMI 3 enterConfigurationMode.
    EnterConfigurationMode,
    /// FMI 3 exitConfigurationMode.
    ExitConfigurationMode,
    /// Model Exchange setTime.
    SetTime,
    /// Model Exchange setContinuousStates.
    SetContinuousStates,
    /// Model Exchange getters: derivatives, event indicators, states,
    /// nominals.
    GetContinuous,
    /// Model Exchange enterEventMode.
    EnterEventMode,
    /// Model Exchange newDiscreteStates / updateDiscreteStates.
    UpdateDiscreteStates,
    /// Model Exchange enterContinuousTimeMode.
    EnterContinuousTimeMode,
    /// Model Exchange completedIntegratorStep.
    CompletedIntegratorStep,
}

const I: u8 = 1 << (Phase::Instantiated as u8);
const N: u8 = 1 << (Phase::InitializationMode as u8);
const S: u8 = 1 << (Phase::StepMode as u8);
const T: u8 = 1 << (Phase::Terminated as u8);
const F: u8 = 1 << (Phase::Failed as u8);
const C: u8 = 1 << (Phase::ConfigurationMode as u8);
const E: u8 = 1 << (Phase::EventMode as u8);
const CT: u8 = 1 << (Phase::ContinuousTimeMode as u8);

/// The one table of the states in which each operation is allowed.
fn allowed_phases(op: Op) -> u8 {
    match op {
        Op::SetDebugLogging => I | N | S | T | F | C | E | CT,
        Op::SetupExperiment => I,
        Op::EnterInitializationMode => I,
        Op::ExitInitializationMode => N,
        Op::GetValues => N | S | T | C | E | CT,
        Op::SetValues => I | N | S | C | E | CT,
        Op::DoStep => S,
        Op::Terminate => S | E | CT,
        Op::Reset => I | N | S | T | F | C | E | CT,
        Op::FmuState => I | N | S | T | E | CT,
        Op::DirectionalDerivative => N | S | T | E | CT,
        Op::GetStatus => S | T,
        Op::EnterConfigurationMode => I,
        Op::ExitConfigurationMode => C,
        Op::SetTime => E | CT,
        Op::SetContinuousStates => E | CT,
        Op::GetContinuous => N | T | E | CT,
        Op::EnterEventMode => CT,
        Op::UpdateDiscreteStates => E,
        Op::EnterContinuousTimeMode => E,
        Op::CompletedIntegratorStep => CT,
    }
}

impl<M: Model<NX>, const NX: usize> Instance<M, NX> {
    /// Checks the state machine for `op`; an error naming the state otherwise.
    pub fn check_phase(&self, function: &str, op: Op) -> FmiResult {
        if allowed_phases(op) & self.phase.bit() != 0 {
            Ok(())
        } else {
            self.fail(
                Status::Error,
                function,
                &format!("not allowed in state {}", self.phase.name()),
            )
        }
    }

    /// The check for FMI 2 get*Status functions.
    pub fn check_status_query(&self, function: &str) -> FmiResult {
        self.check_phase(function, Op::GetStatus)
    }
}
