//! The status every FMI function returns, common to FMI 2 and FMI 3.

/// FMI status (same numbering in FMI 2 and FMI 3; `Pending` is FMI 2 only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// All well.
    Ok = 0,
    /// Something to note; results are usable.
    Warning = 1,
    /// The step was not completed; the instance is at its last good state.
    Discard = 2,
    /// The call was refused or failed; the instance keeps its last good state.
    Error = 3,
    /// The instance is unusable.
    Fatal = 4,
    /// FMI 2 asynchronous step in progress (never used here).
    Pending = 5,
}

/// The result of an internal operation: a value, or the status to return
/// (the message was logged already).
pub type FmiResult<T = ()> = Result<T, Status>;
