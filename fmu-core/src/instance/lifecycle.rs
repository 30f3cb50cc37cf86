//! The life of an instance: instantiation (with the model description's
//! check), the experiment set-up, Configuration and Initialization Mode,
//! terminate and reset.

use super::checks::{build_model, non_finite};
use super::layout::{Decoded, Layout, slot_rows, start_values};
use super::{FmiVersion, INSTANCE_MAGIC, Instance, Interface, Op, Phase, fnv1a};
use crate::context::ResourceFolder;
use crate::description::{check_model_table, full_description};
use crate::logging::{Category, Logger, Sink};
use crate::model::Model;
use crate::solver::{Carried, Stats};
use crate::status::{FmiResult, Status};
use crate::table::Table;
use model_description::ModelDescription;

/// Why an instance could not be created.
#[derive(Debug, Clone, PartialEq)]
pub enum CreateError {
    /// The instantiation token (FMI 2 GUID) does not match this binary.
    WrongToken {
        /// What the master passed.
        given: String,
        /// What this binary expects.
        expected: String,
    },
    /// The model's variable table is inconsistent (a build error).
    InvalidModel(String),
    /// The model cannot be built with its default parameters here (a
    /// resource it needs is missing or unreadable).
    Configuration(String),
}

impl std::fmt::Display for CreateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CreateError::WrongToken { given, expected } => write!(
                f,
                "instantiation token/GUID '{given}' does not match this binary's '{expected}' \
                 (modelDescription.xml and binary come from different builds)"
            ),
            CreateError::InvalidModel(m) => write!(f, "the model is inconsistent: {m}"),
            CreateError::Configuration(m) => write!(f, "the model cannot be set up: {m}"),
        }
    }
}

/// Builds the full description of `M` and checks it (the same check the
/// packaging tool runs): the table, the XML rules, and that the default
/// parameters configure (with no resource folder, as at packaging time,
/// resources are not required for that check).
pub fn checked_description<M: Model<NX>, const NX: usize>() -> Result<ModelDescription, String> {
    const {
        assert!(
            <M as Table>::STATES == NX,
            "the table's state count differs from the model's N"
        )
    };
    check_model_table::<M>()?;
    let desc = full_description::<M, NX>();
    desc.validate().map_err(|e| e.to_string())?;
    // Value references are positions (see `description`): the instance
    // finds a variable by its reference without a search.
    if let Some((p, v)) =
        (desc.variables.iter().enumerate()).find(|(p, v)| v.value_reference as usize != p + 1)
    {
        return Err(format!(
            "variable '{}' at position {} has value reference {}",
            v.name,
            p + 1,
            v.value_reference
        ));
    }
    Ok(desc)
}

/// The model configured with the start values of its table (no resource
/// folder): what a fresh instance integrates, for in-process use
/// (benchmarks, tests).
pub fn default_model<M: Model<NX>, const NX: usize>() -> Result<(M, M::Inputs), String> {
    let rows = slot_rows::<M>();
    let values = start_values(&rows);
    let decoded = Layout::of::<M, NX>().decode::<M, NX>(&values);
    let none = ResourceFolder::Unavailable("no resource folder in process".into());
    Ok((build_model(&decoded, &none)?, decoded.inputs))
}

impl<M: Model<NX>, const NX: usize> Instance<M, NX> {
    /// Creates an instance after checking the instantiation token; the
    /// model is configured with its default parameters and the master's
    /// resource folder.
    pub fn new(
        version: FmiVersion,
        instance_name: &str,
        token: &str,
        resources: ResourceFolder,
        sink: Sink,
        logging_on: bool,
    ) -> Result<Box<Self>, CreateError> {
        M::load_table(&resources).map_err(CreateError::Configuration)?;
        let desc = checked_description::<M, NX>().map_err(CreateError::InvalidModel)?;
        let expected = desc.instantiation_token();
        if token != expected {
            return Err(CreateError::WrongToken {
                given: token.to_owned(),
                expected,
            });
        }
        let rows = slot_rows::<M>();
        let layout = Layout::of::<M, NX>();
        let values = start_values(&rows);
        let decoded = layout.decode::<M, NX>(&values);
        let model = build_model(&decoded, &resources).map_err(CreateError::Configuration)?;
        let Decoded {
            inputs, settings, ..
        } = decoded;
        let x = model.initial_state(&inputs);
        let inst = Instance {
            magic: INSTANCE_MAGIC,
            version,
            interface: Interface::CoSimulation,
            logger: Logger::new(sink, instance_name, logging_on),
            phase: Phase::Instantiated,
            token_hash: fnv1a(expected.as_bytes()),
            desc,
            rows,
            layout,
            resources,
            values,
            inputs,
            model,
            x,
            time: 0.0,
            start_time: 0.0,
            stop_time: None,
            settings,
            carried: Carried::default(),
            stats: Stats::default(),
            last_successful_time: 0.0,
            outputs: Box::default(),
            outputs_current: false,
            spare_outputs: Box::default(),
            jacobian: std::cell::RefCell::new(None),
            terminated: false,
            discarded: None,
            event_offsets: M::event_indicators().iter().map(|e| e.offset).collect(),
        };
        let where_resources = match &inst.resources {
            ResourceFolder::Found(p) => format!("resources in {}", p.display()),
            ResourceFolder::Unavailable(why) => format!("no resource folder ({why})"),
        };
        inst.logger.log(
            Status::Ok,
            Category::Events,
            &format!(
                "instantiated {} ({:?}) with {} states; {where_resources}",
                inst.desc.model_name, version, inst.layout.states
            ),
        );
        Ok(Box::new(inst))
    }

    /// setDebugLogging.
    pub fn set_debug_logging(
        &mut self,
        function: &str,
        on: bool,
        categories: &[&str],
    ) -> FmiResult {
        self.check_phase(function, Op::SetDebugLogging)?;
        if categories.is_empty() {
            self.logger.set_all(on);
            return Ok(());
        }
        let unknown: Vec<&str> = categories
            .iter()
            .copied()
            .filter(|c| !Category::ALL.iter().any(|k| k.name() == *c))
            .collect();
        if !unknown.is_empty() {
            return self.fail(
                Status::Error,
                function,
                &format!("unknown log categories: {}", unknown.join(", ")),
            );
        }
        for c in categories {
            self.logger.set_category(c, on);
        }
        Ok(())
    }

    /// Sets up the experiment (FMI 2 setupExperiment, FMI 3 part of
    /// enterInitializationMode).
    pub fn setup_experiment(
        &mut self,
        function: &str,
        tolerance: Option<f64>,
        start_time: f64,
        stop_time: Option<f64>,
    ) -> FmiResult {
        if !start_time.is_finite() {
            return self.fail(Status::Error, function, "startTime must be finite");
        }
        if let Some(stop) = stop_time
            && (!stop.is_finite() || stop < start_time)
        {
            return self.fail(
                Status::Error,
                function,
                &format!("stopTime {stop} must be finite and >= startTime {start_time}"),
            );
        }
        if let Some(tol) = tolerance {
            if !(tol.is_finite() && tol > 0.0 && tol < 1.0) {
                return self.fail(
                    Status::Error,
                    function,
                    &format!("tolerance {tol} must be in (0, 1)"),
                );
            }
            // The master's tolerance replaces the parameter rtol, inside
            // rtol's range.
            let row = self.rows[self.layout.rtol];
            let lo = row.min.map_or(tol, |b| b.value);
            let hi = row.max.map_or(tol, |b| b.value);
            let rtol = tol.clamp(lo, hi);
            if rtol != tol {
                self.logger.log(
                    Status::Warning,
                    Category::Warning,
                    &format!("{function}: tolerance {tol} used as rtol = {rtol} (rtol's range is [{lo}, {hi}])"),
                );
            }
            let before = self.values.raw()[self.layout.rtol];
            self.values.raw_mut()[self.layout.rtol] = rtol;
            self.settings.rtol = rtol;
            self.logger.log(
                Status::Ok,
                Category::Events,
                &format!(
                    "{function}: the master's tolerance {tol} sets the parameter rtol to {rtol} \
                     (was {before})"
                ),
            );
        }
        self.start_time = start_time;
        self.time = start_time;
        self.last_successful_time = start_time;
        self.stop_time = stop_time;
        Ok(())
    }

    /// FMI 3 enterConfigurationMode: only for models with structural parameters.
    pub fn enter_configuration_mode(&mut self, function: &str) -> FmiResult {
        if !self.desc.variables.iter().any(|v| v.structural) {
            return self.unsupported(
                function,
                "Configuration Mode (the model has no structural parameters)",
            );
        }
        self.check_phase(function, Op::EnterConfigurationMode)?;
        self.phase = Phase::ConfigurationMode;
        Ok(())
    }

    /// FMI 3 exitConfigurationMode.
    pub fn exit_configuration_mode(&mut self, function: &str) -> FmiResult {
        self.check_phase(function, Op::ExitConfigurationMode)?;
        self.phase = Phase::Instantiated;
        Ok(())
    }

    /// enterInitializationMode.
    pub fn enter_initialization_mode(&mut self, function: &str) -> FmiResult {
        self.check_phase(function, Op::EnterInitializationMode)?;
        self.phase = Phase::InitializationMode;
        self.x = self.model.initial_state(&self.inputs);
        self.outputs_current = false;
        Ok(())
    }

    /// exitInitializationMode: the initial state from the parameters.
    pub fn exit_initialization_mode(&mut self, function: &str) -> FmiResult {
        self.check_phase(function, Op::ExitInitializationMode)?;
        let x = self.model.initial_state(&self.inputs);
        if let Some(what) = non_finite(&self.model, &self.inputs, &x) {
            return self.fail(
                Status::Error,
                function,
                &format!(
                    "the initial state is unusable: {what} (with the present inputs and \
                     parameters); Initialization Mode is kept"
                ),
            );
        }
        self.x = x;
        self.outputs_current = false;
        self.carried = Carried::prepared();
        self.last_successful_time = self.time;
        self.phase = match self.interface {
            Interface::CoSimulation => Phase::StepMode,
            Interface::ModelExchange => Phase::EventMode,
        };
        self.event(&format!(
            "initialized at t = {} s with solver {} at rtol = {}, atol = {}",
            self.time,
            self.settings.method.name(),
            self.settings.rtol,
            self.settings.atol
        ));
        Ok(())
    }

    /// terminate.
    pub fn terminate(&mut self, function: &str) -> FmiResult {
        self.check_phase(function, Op::Terminate)?;
        self.phase = Phase::Terminated;
        self.event(&format!(
            "terminated at t = {} s; solver: {} rhs evaluations, {} Jacobians, {} accepted and {} \
             rejected substeps",
            self.time,
            self.stats.rhs_evals,
            self.stats.jacobian_evals,
            self.stats.accepted,
            self.stats.rejected
        ));
        Ok(())
    }

    /// The sample period of the configured model's sampled part, s (a
    /// trained surrogate; see [`Model::sample_period`]), if it has one:
    /// communication steps must be whole numbers of it.
    pub fn sample_period(&self) -> Option<f64> {
        self.model.sample_period()
    }

    /// Configures the model from decoded value slots, checked (see
    /// [`build_model`]); a sampled surrogate is refused in Model Exchange.
    pub(super) fn configure(&self, decoded: &Decoded<M, NX>) -> Result<M, String> {
        let model: M = build_model(decoded, &self.resources)?;
        if self.interface == Interface::ModelExchange
            && let Some(period) = model.sample_period()
        {
            return Err(format!(
                "these parameters choose a sampled surrogate (it updates once per {period:e} s), \
                 which runs in co-simulation only; in Model Exchange keep the physics"
            ));
        }
        Ok(model)
    }

    /// reset: back to the state right after instantiation.
    pub fn reset(&mut self, function: &str) -> FmiResult {
        self.check_phase(function, Op::Reset)?;
        let values = start_values(&self.rows);
        let decoded = self.layout.decode::<M, NX>(&values);
        self.model = match self.configure(&decoded) {
            Ok(m) => m,
            Err(e) => return self.fail(Status::Fatal, function, &e),
        };
        self.values = values;
        self.inputs = decoded.inputs;
        self.settings = decoded.settings;
        self.x = self.model.initial_state(&self.inputs);
        self.outputs_current = false;
        self.time = 0.0;
        self.start_time = 0.0;
        self.stop_time = None;
        self.carried = Carried::default();
        self.stats = Stats::default();
        self.last_successful_time = 0.0;
        self.terminated = false;
        self.discarded = None;
        self.phase = Phase::Instantiated;
        Ok(())
    }
}
