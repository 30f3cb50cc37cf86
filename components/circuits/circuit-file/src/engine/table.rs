//! The engine's table: what fmu-core asks a circuit's table, answered
//! from the description a library serves.

use super::slot::Texts;
use super::{DESCRIPTION_FILE, Engine, MAX_INPUTS, MAX_OUTPUTS, digest};
use crate::OutputSource;
use fmu_core::EventIndicator;
use fmu_core::table::{ModelInfo, OutputRecord, Record, Row, Table};
use std::marker::PhantomData;

/// What a library knows of the description it serves: the text and the
/// table read from it.
#[derive(Debug)]
pub(super) struct Loaded {
    pub(super) text: String,
    pub(super) digest: String,
    pub(super) info: ModelInfo,
    pub(super) rows: Vec<Row>,
    pub(super) inputs: usize,
    pub(super) outputs: usize,
    pub(super) state_names: Vec<&'static str>,
    pub(super) nominal: Vec<f64>,
    pub(super) indicators: Vec<EventIndicator>,
    /// Owns every text above; declared last, so dropped last.
    _texts: Texts,
}

/// The description as written, or what the variable does when none is.
fn described(written: &str, otherwise: String) -> String {
    if written.trim().is_empty() {
        otherwise
    } else {
        written.to_owned()
    }
}

/// The FMU unit of an SI unit as the reader writes it (`N m` -> `N.m`).
fn fmi_unit(si: &str) -> String {
    si.replace(' ', ".")
}

impl Loaded {
    /// Reads the description and builds the table, for a library of
    /// capacity `capacity` states.
    pub(super) fn read(text: &str, capacity: usize) -> Result<Loaded, String> {
        let circuit = crate::read(text, DESCRIPTION_FILE).map_err(|diagnostics| {
            diagnostics
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        })?;
        let states = circuit.assembly.state_count();
        if states > capacity {
            return Err(format!(
                "the circuit has {states} states; this engine holds at most {capacity} \
                 (build-fmu picks the engine that holds the circuit)"
            ));
        }
        if circuit.inputs.len() > MAX_INPUTS || circuit.outputs.len() > MAX_OUTPUTS {
            return Err(format!(
                "the circuit has {} inputs and {} outputs; the engine takes at most \
                 {MAX_INPUTS} inputs and {MAX_OUTPUTS} outputs",
                circuit.inputs.len(),
                circuit.outputs.len()
            ));
        }
        let mut texts = Texts::default();
        let input_names: Vec<&'static str> =
            circuit.inputs.iter().map(|i| texts.keep(&i.name)).collect();
        let mut rows = Vec::new();
        for (spec, &name) in circuit.inputs.iter().zip(&input_names) {
            let what = match &spec.target {
                crate::InputTarget::Across { port, variable } => format!("Sets {port}.{variable}"),
                crate::InputTarget::Through { port } => format!("Delivers into {port}"),
            };
            let mut row = Row::real(name, texts.keep(&described(&spec.description, what)))
                .input()
                .unit(texts.keep(&fmi_unit(&spec.unit)))
                .start(spec.start);
            if let Some(d) = &spec.display_unit {
                row = row.display(texts.keep(&d.name));
            }
            rows.push(row);
        }
        // An output of a state shows it (Model Exchange names its
        // derivative after it); any other may depend on every input.
        let all_inputs = texts.keep_list(input_names);
        for spec in &circuit.outputs {
            let (state, depends) = match spec.source {
                OutputSource::State(i) => (Some(i), &[][..]),
                _ => (None, all_inputs),
            };
            let what = format!("Value of {}", spec.of);
            let mut row = Row::real(
                texts.keep(&spec.name),
                texts.keep(&described(&spec.description, what)),
            )
            .output(state, depends)
            .unit(texts.keep(&fmi_unit(&spec.unit)));
            if let Some(d) = &spec.display_unit {
                row = row.display(texts.keep(&d.name));
            }
            rows.push(row);
        }
        let indicators = circuit
            .assembly
            .event_indicators()
            .into_iter()
            .map(|(part, e)| EventIndicator {
                name: texts.keep(&format!("{part}_{}", e.name)),
                description: texts.keep(&format!("{part}: {}", e.description)),
                offset: e.offset,
            })
            .collect();
        let experiment = circuit.experiment;
        let name = texts.keep(&circuit.name);
        Ok(Loaded {
            text: text.to_owned(),
            digest: digest(text),
            info: ModelInfo {
                name,
                description: texts.keep(&circuit.description),
                documentation: texts.keep(&crate::documentation::documentation_markdown(
                    &circuit, text,
                )),
                start_time: experiment.start_time,
                stop_time: experiment.stop_time.unwrap_or(1.0),
                step_size: experiment.step_size.unwrap_or(1e-3),
                tolerance: experiment.tolerance,
            },
            rows,
            inputs: circuit.inputs.len(),
            outputs: circuit.outputs.len(),
            state_names: (circuit.assembly.state_names().iter())
                .map(|s| texts.keep(s))
                .collect(),
            nominal: circuit.assembly.nominal().to_vec(),
            indicators,
            _texts: texts,
        })
    }
}

/// The engine's inputs: as many as the description declares, in its
/// order (a fixed array, so that setting inputs never allocates).
#[derive(Debug, Clone, PartialEq)]
pub struct EngineInputs<const N: usize> {
    pub(super) values: [f64; MAX_INPUTS],
    capacity: PhantomData<[(); N]>,
}

/// The engine's outputs, in the description's order.
#[derive(Debug, Clone)]
pub struct EngineOutputs<const N: usize> {
    pub(super) values: [f64; MAX_OUTPUTS],
    capacity: PhantomData<[(); N]>,
}

impl<const N: usize> Default for EngineOutputs<N> {
    fn default() -> Self {
        EngineOutputs {
            values: [0.0; MAX_OUTPUTS],
            capacity: PhantomData,
        }
    }
}

/// The engine's parameters: none yet (a part's parameters are the
/// description's values).
#[derive(Debug, Clone, PartialEq)]
pub struct EngineParams;

impl<const N: usize> Record for EngineInputs<N> {
    fn len() -> usize {
        Engine::<N>::table().map_or(0, |t| t.inputs)
    }

    fn rows(out: &mut Vec<Row>) {
        if let Some(t) = Engine::<N>::table() {
            out.extend_from_slice(&t.rows[..t.inputs]);
        }
    }

    fn from_values(values: &[f64]) -> Self {
        let mut v = [0.0; MAX_INPUTS];
        let n = values.len().min(MAX_INPUTS);
        v[..n].copy_from_slice(&values[..n]);
        EngineInputs {
            values: v,
            capacity: PhantomData,
        }
    }
}

impl<const N: usize> OutputRecord for EngineOutputs<N> {
    fn len() -> usize {
        Engine::<N>::table().map_or(0, |t| t.outputs)
    }

    fn rows(out: &mut Vec<Row>) {
        if let Some(t) = Engine::<N>::table() {
            out.extend_from_slice(&t.rows[t.inputs..]);
        }
    }

    fn get(&self, index: usize) -> f64 {
        self.values.get(index).copied().unwrap_or(f64::NAN)
    }

    fn fill_states(&mut self, _x: &[f64]) {
        // The engine's `outputs` fills every output, states included.
    }

    /// The circuit's outputs only: the rest of the room stays zero.
    fn clear(&mut self) {
        let n = Self::len().min(MAX_OUTPUTS);
        self.values[..n].fill(0.0);
    }
}

impl Record for EngineParams {
    fn len() -> usize {
        0
    }

    fn rows(_out: &mut Vec<Row>) {}

    fn from_values(_values: &[f64]) -> Self {
        EngineParams
    }
}

impl<const N: usize> Table for Engine<N> {
    const STATES: usize = N;
    type Inputs = EngineInputs<N>;
    type Outputs = EngineOutputs<N>;
    type Params = EngineParams;

    fn info() -> ModelInfo {
        Self::table().map_or(
            ModelInfo {
                name: "CircuitEngine",
                description: "No circuit description installed",
                documentation: "",
                start_time: 0.0,
                stop_time: 1.0,
                step_size: 1e-3,
                tolerance: None,
            },
            |t| t.info,
        )
    }

    fn state_count() -> usize {
        Self::table().map_or(0, |t| t.nominal.len())
    }

    fn revision() -> Option<String> {
        Self::table().map(|t| format!("circuit.{}", &t.digest[..16]))
    }

    fn state_names() -> Vec<&'static str> {
        Self::table().map_or_else(Vec::new, |t| t.state_names.clone())
    }

    fn state_nominal(out: &mut [f64]) {
        out.fill(1.0);
        if let Some(t) = Self::table() {
            let n = t.nominal.len().min(out.len());
            out[..n].copy_from_slice(&t.nominal[..n]);
        }
    }
}
