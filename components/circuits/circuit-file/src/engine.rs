//! The engine: one precompiled FMU binary that runs any described circuit.
//!
//! `build-fmu --circuit my_circuit.toml` puts a copy of an engine library
//! (one per state capacity `N`, the smallest that holds the circuit) into
//! the FMU with the description itself in `resources/circuit.toml` and its
//! SHA-256 in `resources/circuit.sha256`. At instantiation the engine reads
//! the description from the resources ([`Engine::load_table`]), refuses it
//! when it was edited after the build (its digest differs), and builds the
//! circuit with the same reader and composition as any other use of a
//! description ([`crate::read`], [`fmu_core::compose::Assembly`]): no
//! second composition, no Rust crate per circuit.
//!
//! The table (inputs, outputs, states, event indicators, name and default
//! experiment) is read once per loaded library and kept for the library's
//! life: a library file serves one description (each FMU carries its own
//! copy of the binary under its own model identifier). The description's
//! digest is part of the model's version, so the instantiation token
//! changes with every edit of the description, also one that keeps the
//! variables as they were.

use crate::{Circuit, OutputSource};
use fmu_core::context::ResourceFolder;
use fmu_core::export::ReadTable;
use fmu_core::table::{ModelInfo, OutputRecord, Record, Row, Table};
use fmu_core::{Clamp, Context, Derived, EventIndicator, Model};
use nalgebra::{SMatrix, SVector};
use sha2::{Digest, Sha256};
use std::marker::PhantomData;
use std::sync::Mutex;
use std::sync::atomic::{AtomicPtr, Ordering};

/// Most FMU inputs a described circuit may have.
pub const MAX_INPUTS: usize = 32;
/// Most FMU outputs a described circuit may have.
pub const MAX_OUTPUTS: usize = 128;
/// The resource file holding the description.
pub const DESCRIPTION_FILE: &str = "circuit.toml";
/// The resource file holding the description's SHA-256 (hex) at the build.
pub const DIGEST_FILE: &str = "circuit.sha256";
/// The state capacities the engine libraries are built for (one
/// `circuit-engine-<N>` crate each): `build-fmu` takes the smallest that
/// holds a circuit's states.
pub const CAPACITIES: [usize; 7] = [4, 8, 12, 16, 24, 32, 64];

/// The SHA-256 of a description's text, in hex.
pub fn digest(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The texts of a table, owned: the table's rows are `'static` (a
/// compiled-in table's are literals), so a read table's texts are kept
/// here, in the library's slot, and freed with it when the library is
/// unloaded ([`release`]).
#[derive(Debug, Default)]
struct Texts {
    strings: Vec<*mut str>,
    lists: Vec<*mut [&'static str]>,
}

impl Texts {
    /// Keeps `s` for the table's life.
    fn keep(&mut self, s: &str) -> &'static str {
        let raw = Box::into_raw(s.to_owned().into_boxed_str());
        self.strings.push(raw);
        // SAFETY: the box is freed only when `self` is dropped, which
        // happens when the library is unloaded (no instance is left then:
        // a master frees its instances before it unloads the library).
        unsafe { &*raw }
    }

    /// Keeps a list of kept texts.
    fn keep_list(&mut self, list: Vec<&'static str>) -> &'static [&'static str] {
        let raw = Box::into_raw(list.into_boxed_slice());
        self.lists.push(raw);
        // SAFETY: as in `keep`.
        unsafe { &*raw }
    }
}

impl Drop for Texts {
    fn drop(&mut self) {
        for &raw in &self.strings {
            // SAFETY: made by `Box::into_raw` in `keep`, freed once here.
            drop(unsafe { Box::from_raw(raw) });
        }
        for &raw in &self.lists {
            // SAFETY: as above, from `keep_list`.
            drop(unsafe { Box::from_raw(raw) });
        }
    }
}

// SAFETY: the texts are never written after they are kept; the raw
// pointers are owned boxes.
unsafe impl Send for Texts {}
// SAFETY: as above: shared reads of immutable texts.
unsafe impl Sync for Texts {}

/// What a library knows of the description it serves: the text and the
/// table read from it.
#[derive(Debug)]
struct Loaded {
    text: String,
    digest: String,
    info: ModelInfo,
    rows: Vec<Row>,
    inputs: usize,
    outputs: usize,
    state_names: Vec<&'static str>,
    nominal: Vec<f64>,
    indicators: Vec<EventIndicator>,
    /// Owns every text above; declared last, so dropped last.
    _texts: Texts,
}

/// The description each engine library serves (one slot per capacity,
/// each capacity being its own library): null until installed, then a
/// `Box<Loaded>` for the library's life.
static SLOTS: [AtomicPtr<Loaded>; CAPACITIES.len()] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; CAPACITIES.len()];

/// Serialises installs (readers only load the pointer).
static INSTALLING: Mutex<()> = Mutex::new(());

/// The index of capacity `n` in [`CAPACITIES`] (`CAPACITIES.len()` for
/// none).
const fn capacity_index(n: usize) -> usize {
    let mut k = 0;
    while k < CAPACITIES.len() && CAPACITIES[k] != n {
        k += 1;
    }
    k
}

fn slot<const N: usize>() -> &'static AtomicPtr<Loaded> {
    const {
        assert!(
            capacity_index(N) < CAPACITIES.len(),
            "an engine's capacity must be one of CAPACITIES"
        )
    };
    &SLOTS[capacity_index(N)]
}

/// Frees every installed table: called when the library is unloaded
/// (Linux: from `.fini_array`), after the master freed its instances, so
/// that unloading the library leaks nothing.
pub extern "C" fn release() {
    for s in &SLOTS {
        let raw = s.swap(std::ptr::null_mut(), Ordering::AcqRel);
        if !raw.is_null() {
            // SAFETY: made by `Box::into_raw` in `install`, taken once.
            drop(unsafe { Box::from_raw(raw) });
        }
    }
}

#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".fini_array")]
static RELEASE_AT_UNLOAD: extern "C" fn() = release;

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
    fn read(text: &str, capacity: usize) -> Result<Loaded, String> {
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
                stop_time: experiment.stop_time.unwrap_or(1.0),
                step_size: experiment.step_size.unwrap_or(1e-3),
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

/// A described circuit as an FMU model with room for `N` states (see the
/// module's documentation).
#[derive(Debug, Clone)]
pub struct Engine<const N: usize> {
    circuit: Circuit,
    clamps: Vec<Clamp>,
    inputs: usize,
}

impl<const N: usize> Engine<N> {
    fn table() -> Option<&'static Loaded> {
        let raw = slot::<N>().load(Ordering::Acquire);
        // SAFETY: a non-null slot holds a `Box<Loaded>` that is freed only
        // when the library is unloaded ([`release`]).
        (!raw.is_null()).then(|| unsafe { &*raw })
    }
}

/// The engine's inputs: as many as the description declares, in its
/// order (a fixed array, so that setting inputs never allocates).
#[derive(Debug, Clone, PartialEq)]
pub struct EngineInputs<const N: usize> {
    values: [f64; MAX_INPUTS],
    capacity: PhantomData<[(); N]>,
}

/// The engine's outputs, in the description's order.
#[derive(Debug, Clone)]
pub struct EngineOutputs<const N: usize> {
    values: [f64; MAX_OUTPUTS],
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
                stop_time: 1.0,
                step_size: 1e-3,
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

impl<const N: usize> ReadTable for Engine<N> {
    fn install(source: &str) -> Result<(), String> {
        let _one_at_a_time = INSTALLING.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(t) = Self::table() {
            return if t.text == source {
                Ok(())
            } else {
                Err(format!(
                    "this copy of the engine already serves the circuit '{}'; a library file \
                     serves one description",
                    t.info.name
                ))
            };
        }
        let table = Box::new(Loaded::read(source, N)?);
        slot::<N>().store(Box::into_raw(table), Ordering::Release);
        Ok(())
    }

    fn installed() -> bool {
        Self::table().is_some()
    }
}

impl<const N: usize> Model<N> for Engine<N> {
    fn load_table(resources: &ResourceFolder) -> Result<(), String> {
        let context = Context::new(resources);
        let bytes = context.read_resource(DESCRIPTION_FILE)?;
        let text = String::from_utf8(bytes)
            .map_err(|_| format!("resources/{DESCRIPTION_FILE} is not UTF-8 text"))?;
        let built = context.read_resource(DIGEST_FILE)?;
        let built = String::from_utf8_lossy(&built).trim().to_owned();
        let now = digest(&text);
        if now != built {
            return Err(format!(
                "resources/{DESCRIPTION_FILE} was changed after the FMU was built (its SHA-256 \
                 is {now}, the build's was {built}); the FMU refuses to run a description it \
                 was not built from: rebuild it with `cargo run --release -p build-fmu -- \
                 --circuit <your file>`"
            ));
        }
        Self::install(&text)
    }

    fn configure(_params: &EngineParams, _context: &Context) -> Result<Self, String> {
        let t = Self::table().ok_or("no circuit description is installed")?;
        let circuit = crate::read(&t.text, DESCRIPTION_FILE).map_err(|d| {
            d.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        })?;
        Ok(Engine {
            clamps: circuit.assembly.clamps(),
            inputs: circuit.inputs.len(),
            circuit,
        })
    }

    fn derived(&self) -> Vec<Derived> {
        self.circuit.assembly.derived()
    }

    fn initial_state(&self, u: &EngineInputs<N>) -> SVector<f64, N> {
        self.circuit.assembly.initial(&u.values[..self.inputs])
    }

    fn rates(&self, u: &EngineInputs<N>, x: &SVector<f64, N>) -> SVector<f64, N> {
        self.circuit.assembly.rates(&u.values[..self.inputs], x)
    }

    fn rates_and_jacobian(
        &self,
        u: &EngineInputs<N>,
        x: &SVector<f64, N>,
        j: &mut SMatrix<f64, N, N>,
    ) -> (SVector<f64, N>, bool) {
        self.circuit
            .assembly
            .rates_and_jacobian(&u.values[..self.inputs], x, j)
    }

    fn outputs(&self, u: &EngineInputs<N>, x: &SVector<f64, N>, out: &mut EngineOutputs<N>) {
        let n = self.circuit.outputs.len();
        self.circuit
            .output_values(&u.values[..self.inputs], x.as_slice(), &mut out.values[..n]);
    }

    fn nominal(&self) -> SVector<f64, N> {
        let mut v = SVector::<f64, N>::repeat(1.0);
        let nominal = self.circuit.assembly.nominal();
        v.as_mut_slice()[..nominal.len()].copy_from_slice(nominal);
        v
    }

    fn active_states(&self) -> usize {
        self.circuit.assembly.state_count()
    }

    fn clamps(&self) -> &[Clamp] {
        &self.clamps
    }

    fn event_indicators() -> Vec<EventIndicator> {
        Self::table().map_or_else(Vec::new, |t| t.indicators.clone())
    }

    fn event_indicator_values(&self, u: &EngineInputs<N>, x: &SVector<f64, N>, z: &mut [f64]) {
        self.circuit
            .assembly
            .event_indicator_values(&u.values[..self.inputs], x.as_slice(), z);
    }
}

#[cfg(test)]
mod tests {
    use super::CAPACITIES;

    /// Every capacity has its engine crate (`components/engines/`), and
    /// every engine crate's capacity is one of them.
    #[test]
    fn the_engine_crates_are_the_capacities() {
        let engines = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../engines");
        let mut found: Vec<usize> = std::fs::read_dir(&engines)
            .unwrap()
            .map(|e| {
                let manifest =
                    std::fs::read_to_string(e.unwrap().path().join("Cargo.toml")).unwrap();
                let line = manifest
                    .lines()
                    .find_map(|l| l.strip_prefix("engine-capacity = "))
                    .expect("an engine crate declares its capacity");
                line.trim().parse().unwrap()
            })
            .collect();
        found.sort_unstable();
        assert_eq!(found, CAPACITIES);
    }
}
