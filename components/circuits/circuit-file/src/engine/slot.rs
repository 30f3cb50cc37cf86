//! Where an engine library keeps the description it serves: one slot
//! per capacity, the table's texts owned there, all freed when the
//! library is unloaded.

use super::CAPACITIES;
use super::table::Loaded;
use std::sync::Mutex;
use std::sync::atomic::{AtomicPtr, Ordering};

/// The texts of a table, owned: the table's rows are `'static` (a
/// compiled-in table's are literals), so a read table's texts are kept
/// here, in the library's slot, and freed with it when the library is
/// unloaded ([`release`]).
#[derive(Debug, Default)]
pub(super) struct Texts {
    strings: Vec<*mut str>,
    lists: Vec<*mut [&'static str]>,
}

impl Texts {
    /// Keeps `s` for the table's life.
    pub(super) fn keep(&mut self, s: &str) -> &'static str {
        let raw = Box::into_raw(s.to_owned().into_boxed_str());
        self.strings.push(raw);
        // SAFETY: the box is freed only when `self` is dropped, which
        // happens when the library is unloaded (no instance is left then:
        // a master frees its instances before it unloads the library).
        unsafe { &*raw }
    }

    /// Keeps a list of kept texts.
    pub(super) fn keep_list(&mut self, list: Vec<&'static str>) -> &'static [&'static str] {
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

/// The description each engine library serves (one slot per capacity,
/// each capacity being its own library): null until installed, then a
/// `Box<Loaded>` for the library's life.
static SLOTS: [AtomicPtr<Loaded>; CAPACITIES.len()] =
    [const { AtomicPtr::new(std::ptr::null_mut()) }; CAPACITIES.len()];

/// Serialises installs (readers only load the pointer).
pub(super) static INSTALLING: Mutex<()> = Mutex::new(());

/// The index of capacity `n` in [`CAPACITIES`] (`CAPACITIES.len()` for
/// none).
const fn capacity_index(n: usize) -> usize {
    let mut k = 0;
    while k < CAPACITIES.len() && CAPACITIES[k] != n {
        k += 1;
    }
    k
}

pub(super) fn slot<const N: usize>() -> &'static AtomicPtr<Loaded> {
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
