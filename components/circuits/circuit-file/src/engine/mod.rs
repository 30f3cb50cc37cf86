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

mod slot;
mod table;

use crate::Circuit;
use fmu_core::context::ResourceFolder;
use fmu_core::export::ReadTable;
use fmu_core::{Clamp, Context, Derived, EventIndicator, Model};
use nalgebra::{SMatrix, SVector};
use sha2::{Digest, Sha256};
use slot::{INSTALLING, slot};
use std::sync::atomic::Ordering;
use table::Loaded;

pub use slot::release;
pub use table::{EngineInputs, EngineOutputs, EngineParams};

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
pub const CAPACITIES: [usize; 9] = [2, 4, 6, 8, 12, 16, 24, 32, 64];

/// The SHA-256 of a description's text, in hex.
pub fn digest(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
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
