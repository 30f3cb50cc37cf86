//! Logging through the master's callback only, honouring the categories the
//! master enabled. Nothing is ever printed to stdout or stderr.

use crate::status::Status;
use std::ffi::{CString, c_char, c_void};

/// FMI 2 logger callback (variadic, printf-style).
pub type Fmi2Logger = unsafe extern "C" fn(
    env: *mut c_void,
    instance_name: *const c_char,
    status: i32,
    category: *const c_char,
    message: *const c_char,
    ...
);

/// FMI 3 log message callback.
pub type Fmi3Logger = unsafe extern "C" fn(
    env: *mut c_void,
    status: i32,
    category: *const c_char,
    message: *const c_char,
);

/// The log categories every FMU of this project declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Category {
    /// Life-cycle events: instantiation, mode changes, solver statistics.
    Events,
    /// Warnings.
    Warning,
    /// Steps that were discarded (solver failures) and why.
    Discard,
    /// Errors: refused calls and bad arguments, with the reason.
    Error,
    /// Fatal errors.
    Fatal,
}

impl Category {
    /// All categories, in declaration order.
    pub const ALL: [Category; 5] = [
        Category::Events,
        Category::Warning,
        Category::Discard,
        Category::Error,
        Category::Fatal,
    ];

    /// The category name declared in the model description.
    pub fn name(self) -> &'static str {
        match self {
            Category::Events => "logEvents",
            Category::Warning => "logStatusWarning",
            Category::Discard => "logStatusDiscard",
            Category::Error => "logStatusError",
            Category::Fatal => "logStatusFatal",
        }
    }

    /// What the category reports.
    pub fn description(self) -> &'static str {
        match self {
            Category::Events => "Life-cycle events, mode changes and solver statistics",
            Category::Warning => "Warnings",
            Category::Discard => "Discarded communication steps and why the solver failed",
            Category::Error => "Refused calls: wrong state, bad arguments, invalid parameters",
            Category::Fatal => "Fatal errors",
        }
    }

    fn bit(self) -> u32 {
        1 << (self as u32)
    }

    /// The category for a status (used when a function returns that status).
    pub fn for_status(status: Status) -> Category {
        match status {
            Status::Ok | Status::Pending => Category::Events,
            Status::Warning => Category::Warning,
            Status::Discard => Category::Discard,
            Status::Error => Category::Error,
            Status::Fatal => Category::Fatal,
        }
    }
}

/// Where messages go.
#[derive(Clone)]
pub enum Sink {
    /// An FMI 2 master's logger with its component environment.
    Fmi2(Fmi2Logger, *mut c_void),
    /// An FMI 3 master's logger with its instance environment.
    Fmi3(Fmi3Logger, *mut c_void),
    /// No logger (FMI 3 allows a null callback; also tests).
    None,
    /// Messages kept in memory, each as "status category: text" (an
    /// instance driven in process by a tool or a test).
    Collect(std::sync::Arc<std::sync::Mutex<Vec<String>>>),
}

/// A per-instance logger.
pub struct Logger {
    sink: Sink,
    instance_name: CString,
    enabled: u32,
}

impl Logger {
    /// A logger for an instance; `logging_on` enables every category,
    /// otherwise only the status categories (warnings, discards, errors)
    /// are reported, so that a refused call is never silent.
    pub fn new(sink: Sink, instance_name: &str, logging_on: bool) -> Self {
        let name = CString::new(instance_name.replace('\0', "")).unwrap_or_default();
        let mut logger = Logger {
            sink,
            instance_name: name,
            enabled: 0,
        };
        logger.set_all(true);
        if !logging_on {
            logger.set_category(Category::Events.name(), false);
        }
        logger
    }

    /// Enables (`on`) or disables every category.
    pub fn set_all(&mut self, on: bool) {
        self.enabled = if on {
            Category::ALL.iter().map(|c| c.bit()).sum()
        } else {
            0
        };
    }

    /// Sets one category by name; `false` when the name is unknown.
    pub fn set_category(&mut self, name: &str, on: bool) -> bool {
        match Category::ALL.iter().find(|c| c.name() == name) {
            Some(c) => {
                if on {
                    self.enabled |= c.bit();
                } else {
                    self.enabled &= !c.bit();
                }
                true
            }
            None => false,
        }
    }

    /// Whether messages of a category reach the master.
    pub fn enabled(&self, category: Category) -> bool {
        self.enabled & category.bit() != 0
    }

    /// Sends a message to the master if its category is enabled.
    pub fn log(&self, status: Status, category: Category, message: &str) {
        if !self.enabled(category) {
            return;
        }
        let Ok(msg) = CString::new(message.replace('\0', " ")) else {
            return;
        };
        let Ok(cat) = CString::new(category.name()) else {
            return;
        };
        match &self.sink {
            &Sink::Fmi2(logger, env) => {
                // The message goes through "%s" so that a '%' in it is printed,
                // never interpreted.
                let fmt = c"%s";
                // SAFETY: the master gave us this callback for this purpose;
                // all strings are valid NUL-terminated C strings that live
                // for the duration of the call.
                unsafe {
                    logger(
                        env,
                        self.instance_name.as_ptr(),
                        status as i32,
                        cat.as_ptr(),
                        fmt.as_ptr(),
                        msg.as_ptr(),
                    )
                };
            }
            &Sink::Fmi3(logger, env) => {
                // SAFETY: as above.
                unsafe { logger(env, status as i32, cat.as_ptr(), msg.as_ptr()) };
            }
            Sink::None => {}
            Sink::Collect(messages) => {
                if let Ok(mut m) = messages.lock() {
                    m.push(format!("{status:?} {}: {message}", category.name()));
                }
            }
        }
    }
}
