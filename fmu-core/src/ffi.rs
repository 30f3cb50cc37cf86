//! Helpers shared by the FMI 2 and FMI 3 C functions: turning the opaque
//! instance pointer back into an instance, catching panics, and reading C
//! arrays and strings with null checks.

use crate::instance::{FmiVersion, Instance};
use crate::model::Model;
use crate::status::{FmiResult, Status};
use std::ffi::{CStr, c_char, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Runs `f` on the instance behind `ptr`: checks the pointer and the FMI
/// version, catches any panic (logged, instance marked failed) and maps the
/// result to a status. A null or foreign pointer gives `Error` (nothing can
/// be logged without an instance).
///
/// # Safety
/// `ptr` must be null or a pointer returned by this library's instantiate
/// function that has not been freed.
pub unsafe fn with_instance<M: Model<N>, const N: usize>(
    ptr: *mut c_void,
    version: FmiVersion,
    function: &str,
    f: impl FnOnce(&mut Instance<M, N>) -> FmiResult,
) -> Status {
    if ptr.is_null() {
        return Status::Error;
    }
    let inst = ptr as *mut Instance<M, N>;
    // SAFETY: the caller promises a live instance of this library; the magic
    // marker catches stale pointers in the common cases.
    let live = unsafe { (*inst).is_live() };
    if !live {
        return Status::Error;
    }
    // SAFETY: as above; no other reference exists during this call.
    let instance = unsafe { &mut *inst };
    if instance.version() != version {
        let _ = instance.fail::<()>(
            Status::Error,
            function,
            &format!(
                "this instance was created through the {:?} interface",
                instance.version()
            ),
        );
        return Status::Error;
    }
    match catch_unwind(AssertUnwindSafe(|| f(&mut *instance))) {
        Ok(Ok(())) => Status::Ok,
        Ok(Err(status)) => status,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            // SAFETY: the closure holding the other reference has ended.
            let instance = unsafe { &mut *inst };
            let _ = instance.fail::<()>(
                Status::Error,
                function,
                &format!("internal error, the instance is unusable until reset: {what}"),
            );
            instance.set_failed();
            Status::Error
        }
    }
}

/// Catches a panic in a function that has no instance yet (instantiate,
/// getVersion); `fallback` is returned on panic.
pub fn guard<R>(fallback: R, f: impl FnOnce() -> R) -> R {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(fallback)
}

/// Borrows a C array of `n` elements for reading; an empty slice for n = 0,
/// an error (logged) for a null pointer with n > 0.
///
/// # Safety
/// `ptr` must point to at least `n` valid elements when it is not null.
pub unsafe fn slice_in<'a, T, M: Model<N>, const N: usize>(
    inst: &Instance<M, N>,
    function: &str,
    what: &str,
    ptr: *const T,
    n: usize,
) -> FmiResult<&'a [T]> {
    if n == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return inst.fail(
            Status::Error,
            function,
            &format!("argument '{what}' is NULL"),
        );
    }
    // SAFETY: non-null, and the caller promises n valid elements.
    Ok(unsafe { std::slice::from_raw_parts(ptr, n) })
}

/// Borrows a C array of `n` elements for writing.
///
/// # Safety
/// `ptr` must point to at least `n` writable elements when it is not null.
pub unsafe fn slice_out<'a, T, M: Model<N>, const N: usize>(
    inst: &Instance<M, N>,
    function: &str,
    what: &str,
    ptr: *mut T,
    n: usize,
) -> FmiResult<&'a mut [T]> {
    if n == 0 {
        return Ok(&mut []);
    }
    if ptr.is_null() {
        return inst.fail(
            Status::Error,
            function,
            &format!("argument '{what}' is NULL"),
        );
    }
    // SAFETY: non-null, and the caller promises n writable elements.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr, n) })
}

/// Writes through an out-pointer, with a null check.
///
/// # Safety
/// `ptr` must be null or valid for a write of `T`.
pub unsafe fn write_out<T, M: Model<N>, const N: usize>(
    inst: &Instance<M, N>,
    function: &str,
    what: &str,
    ptr: *mut T,
    value: T,
) -> FmiResult {
    if ptr.is_null() {
        return inst.fail(
            Status::Error,
            function,
            &format!("argument '{what}' is NULL"),
        );
    }
    // SAFETY: non-null and valid per the caller.
    unsafe { ptr.write(value) };
    Ok(())
}

/// Reads a C string; `None` for null or non-UTF-8.
///
/// # Safety
/// `ptr` must be null or a NUL-terminated string.
pub unsafe fn c_str<'a>(ptr: *const c_char) -> Option<&'a str> {
    if ptr.is_null() {
        return None;
    }
    // SAFETY: non-null and NUL-terminated per the caller.
    unsafe { CStr::from_ptr(ptr) }.to_str().ok()
}

/// Reads an array of C strings (log categories).
///
/// # Safety
/// `ptr` must point to `n` entries that are null or NUL-terminated strings.
pub unsafe fn c_str_array<'a, M: Model<N>, const N: usize>(
    inst: &Instance<M, N>,
    function: &str,
    ptr: *const *const c_char,
    n: usize,
) -> FmiResult<Vec<&'a str>> {
    // SAFETY: forwarded from the caller.
    let raw = unsafe { slice_in(inst, function, "categories", ptr, n)? };
    let mut out = Vec::with_capacity(n);
    for &p in raw {
        // SAFETY: each entry is null or a C string per the caller.
        match unsafe { c_str(p) } {
            Some(s) => out.push(s),
            None => {
                return inst.fail(
                    Status::Error,
                    function,
                    "a category name is NULL or not UTF-8",
                );
            }
        }
    }
    Ok(out)
}
