//! FMU state snapshots: a complete copy of an instance's state, taken and
//! restored, and handed to the master as an opaque pointer.

use super::layout::Values;
use super::{Instance, Op};
use crate::ffi::{slice_in, slice_out, write_out};
use crate::model::Model;
use crate::solver::{Carried, SolverSettings, Stats};
use crate::status::{FmiResult, Status};
use crate::table::Role;
use nalgebra::SVector;
use std::ffi::c_void;

/// Marks a live FMU state snapshot.
pub(super) const SNAPSHOT_MAGIC: u64 = 0x534e_4150_5348_4f54; // "SNAPSHOT"

/// A complete copy of an instance's state (FMU state). Plain data.
#[derive(Clone)]
#[repr(C)]
pub struct Snapshot<M: Model<NX>, const NX: usize> {
    pub(super) magic: u64,
    pub(super) token_hash: u64,
    pub(super) values: Values,
    pub(super) inputs: M::Inputs,
    pub(super) x: SVector<f64, NX>,
    pub(super) time: f64,
    pub(super) start_time: f64,
    pub(super) stop_time: Option<f64>,
    pub(super) settings: SolverSettings,
    pub(super) carried: Carried<NX>,
    pub(super) stats: Stats,
    pub(super) last_successful_time: f64,
    pub(super) model: M,
}

impl<M: Model<NX>, const NX: usize> Snapshot<M, NX> {
    pub(crate) fn is_valid_for(&self, token_hash: u64) -> bool {
        self.magic == SNAPSHOT_MAGIC && self.token_hash == token_hash
    }

    pub(crate) fn invalidate(&mut self) {
        self.magic = 0;
    }
}

impl<M: Model<NX>, const NX: usize> Instance<M, NX> {
    /// Takes a snapshot of the whole state (FMU state).
    pub fn snapshot(&self) -> Snapshot<M, NX> {
        Snapshot {
            magic: SNAPSHOT_MAGIC,
            token_hash: self.token_hash,
            values: self.values.clone(),
            inputs: self.inputs.clone(),
            x: self.x,
            time: self.time,
            start_time: self.start_time,
            stop_time: self.stop_time,
            settings: self.settings,
            carried: self.carried.clone(),
            stats: self.stats,
            last_successful_time: self.last_successful_time,
            model: self.model.clone(),
        }
    }

    /// Overwrites an existing snapshot in place (no new allocation of the box).
    pub fn snapshot_into(&self, target: &mut Snapshot<M, NX>) {
        *target = self.snapshot();
    }

    /// Token fingerprint snapshots must carry.
    pub(crate) fn token_hash(&self) -> u64 {
        self.token_hash
    }

    /// Refuses state values whose structural parameters differ from this
    /// instance's: a state is a point of one structure (a hose of n
    /// segments), and this instance keeps its structure.
    pub(super) fn check_structure(&self, values: &Values) -> Result<(), String> {
        for (slot, row) in self.rows.iter().enumerate() {
            let structural = matches!(
                row.role,
                Role::Parameter {
                    structural: true,
                    ..
                }
            );
            let (theirs, ours) = (values.raw()[slot], self.values.raw()[slot]);
            if structural && theirs != ours {
                return Err(format!(
                    "it was taken with the structural parameter {name} = {theirs}, this \
                     instance has {name} = {ours} (set {name} = {theirs} before \
                     initialization to use it)",
                    name = row.name
                ));
            }
        }
        Ok(())
    }

    /// Restores a snapshot taken from an instance of the same model and
    /// structure.
    pub fn restore(&mut self, function: &str, snap: &Snapshot<M, NX>) -> FmiResult {
        self.check_phase(function, Op::FmuState)?;
        if !snap.is_valid_for(self.token_hash) {
            return self.fail(
                Status::Error,
                function,
                "the FMU state is not a live state of this model",
            );
        }
        if let Err(why) = self.check_structure(&snap.values) {
            return self.fail(
                Status::Error,
                function,
                &format!("the FMU state is refused, nothing changed: {why}"),
            );
        }
        self.values = snap.values.clone();
        self.inputs = snap.inputs.clone();
        self.x = snap.x;
        self.outputs_current = false;
        self.time = snap.time;
        self.start_time = snap.start_time;
        self.stop_time = snap.stop_time;
        self.settings = snap.settings;
        self.carried = snap.carried.clone();
        self.stats = snap.stats;
        self.last_successful_time = snap.last_successful_time;
        self.model = snap.model.clone();
        Ok(())
    }
}

// The FMU state functions shared by FMI 2 and FMI 3: snapshots live in
// boxes handed to the master as opaque pointers, checked on every use.

/// Turns an opaque FMU state pointer back into a snapshot of this model.
fn snapshot_ref<'a, M: Model<N>, const N: usize>(
    inst: &Instance<M, N>,
    function: &str,
    ptr: *mut c_void,
) -> FmiResult<&'a mut Snapshot<M, N>> {
    if ptr.is_null() {
        return inst.fail(Status::Error, function, "the FMU state is NULL");
    }
    let snap = ptr as *mut Snapshot<M, N>;
    // SAFETY: the master must pass a pointer it got from getFMUstate or
    // deserialize of this library; the markers reject freed or foreign ones
    // in the common cases.
    let snap = unsafe { &mut *snap };
    if !snap.is_valid_for(inst.token_hash()) {
        return inst.fail(
            Status::Error,
            function,
            "the FMU state was freed or belongs to another model",
        );
    }
    Ok(snap)
}

/// get FMU state: a new snapshot in `*out`, or overwrites the one there.
///
/// # Safety
/// `out` must be null or valid for reading and writing one pointer.
pub unsafe fn get_state<M: Model<N>, const N: usize>(
    inst: &mut Instance<M, N>,
    function: &str,
    out: *mut *mut c_void,
) -> FmiResult {
    inst.check_phase(function, Op::FmuState)?;
    if out.is_null() {
        return inst.fail(Status::Error, function, "argument 'FMUstate' is NULL");
    }
    // SAFETY: non-null out-pointer from the master.
    let existing = unsafe { *out };
    if existing.is_null() {
        let b = Box::new(inst.snapshot());
        // SAFETY: as above.
        unsafe { *out = Box::into_raw(b) as *mut c_void };
    } else {
        let snap = snapshot_ref(inst, function, existing)?;
        inst.snapshot_into(snap);
    }
    Ok(())
}

/// set FMU state.
///
/// # Safety
/// `state` must be null or an FMU state of this library.
pub unsafe fn set_state<M: Model<N>, const N: usize>(
    inst: &mut Instance<M, N>,
    function: &str,
    state: *mut c_void,
) -> FmiResult {
    inst.check_phase(function, Op::FmuState)?;
    let snap = snapshot_ref(inst, function, state)?.clone();
    inst.restore(function, &snap)
}

/// free FMU state; sets `*state` to null. A null `*state` is a no-op.
///
/// # Safety
/// `state` must be null or point to null or to an FMU state of this library.
pub unsafe fn free_state<M: Model<N>, const N: usize>(
    inst: &mut Instance<M, N>,
    function: &str,
    state: *mut *mut c_void,
) -> FmiResult {
    if state.is_null() {
        return inst.fail(Status::Error, function, "argument 'FMUstate' is NULL");
    }
    // SAFETY: non-null out-pointer from the master.
    let ptr = unsafe { *state };
    if ptr.is_null() {
        return Ok(());
    }
    let snap = snapshot_ref(inst, function, ptr)?;
    snap.invalidate();
    // SAFETY: the pointer came from Box::into_raw in get_state/deserialize.
    drop(unsafe { Box::from_raw(snap as *mut Snapshot<M, N>) });
    // SAFETY: as above.
    unsafe { *state = std::ptr::null_mut() };
    Ok(())
}

/// Size of the serialized form of a state.
///
/// # Safety
/// `size` must be null or valid for a write.
pub unsafe fn serialized_size<M: Model<N>, const N: usize>(
    inst: &mut Instance<M, N>,
    function: &str,
    state: *mut c_void,
    size: *mut usize,
) -> FmiResult {
    inst.check_phase(function, Op::FmuState)?;
    let snap = snapshot_ref(inst, function, state)?;
    let n = inst.serialized_size(snap);
    // SAFETY: checked for null inside.
    unsafe { write_out(inst, function, "size", size, n) }
}

/// Serializes a state into the master's buffer of exactly the right size.
///
/// # Safety
/// `buffer` must be null or valid for `size` bytes of writes.
pub unsafe fn serialize<M: Model<N>, const N: usize>(
    inst: &mut Instance<M, N>,
    function: &str,
    state: *mut c_void,
    buffer: *mut u8,
    size: usize,
) -> FmiResult {
    inst.check_phase(function, Op::FmuState)?;
    let snap = snapshot_ref(inst, function, state)?;
    let bytes = inst.serialize(snap);
    if size < bytes.len() {
        return inst.fail(
            Status::Error,
            function,
            &format!(
                "buffer of {size} bytes is too small; {} needed",
                bytes.len()
            ),
        );
    }
    // SAFETY: the master promises `size` writable bytes.
    let out = unsafe { slice_out(inst, function, "serializedState", buffer, bytes.len())? };
    out.copy_from_slice(&bytes);
    Ok(())
}

/// Deserializes bytes into a new state in `*out` (or overwrites the one there).
///
/// # Safety
/// `buffer` must be null or valid for `size` bytes of reads; `out` null or valid for reading and writing one pointer.
pub unsafe fn deserialize<M: Model<N>, const N: usize>(
    inst: &mut Instance<M, N>,
    function: &str,
    buffer: *const u8,
    size: usize,
    out: *mut *mut c_void,
) -> FmiResult {
    inst.check_phase(function, Op::FmuState)?;
    if out.is_null() {
        return inst.fail(Status::Error, function, "argument 'FMUstate' is NULL");
    }
    // SAFETY: the master promises `size` readable bytes.
    let bytes = unsafe { slice_in(inst, function, "serializedState", buffer, size)? };
    let snap = inst.deserialize(function, bytes)?;
    // SAFETY: non-null out-pointer.
    let existing = unsafe { *out };
    if existing.is_null() {
        // SAFETY: as above.
        unsafe { *out = Box::into_raw(Box::new(snap)) as *mut c_void };
    } else {
        *snapshot_ref(inst, function, existing)? = snap;
    }
    Ok(())
}
