//! The two error layers of the WASM boundary, each naming what failed.
//!
//! * [`PluginError`]: a component could not be accepted or prepared (not a
//!   component, another contract, a tampered file, a broken describe).
//! * [`CallError`]: one handler call failed. Its [`CallErrorKind`] keeps
//!   the distinct outcomes apart (trap, timeout, out of memory, the
//!   handler's own error, an answer the host refuses) and its Display
//!   always names module, class and operation:
//!   `handler test.faulty:Loop timed out after 2s during discover`.

use super::answer::AnswerRefusal;
use super::limits::{human_bytes, human_duration};
use super::location::ViewRefusal;
use super::types::{HandlerError, Operation};
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;
use thiserror::Error;

/// Why a component was refused or could not be prepared.
#[derive(Debug, Error)]
pub enum PluginError {
    #[error(
        "not a WebAssembly file (it does not start with \\0asm); \
         expected a component built with --target wasm32-wasip2"
    )]
    NotWasm,
    #[error(
        "a core WebAssembly module, not a component; build it with \
         --target wasm32-wasip2 (or wrap it with `wasm-tools component new`)"
    )]
    CoreModule,
    #[error("not a valid WebAssembly component: {0}")]
    Invalid(String),
    #[error(
        "the component does not export a handler of a contract this host serves ({}); \
         it exports: {}; rebuild it against this host's wit/ (agents serves {})",
        super::version::served_exports().join(", "),
        if found.is_empty() { "nothing".to_owned() } else { found.join(", ") },
        super::version::CONTRACT_PACKAGE
    )]
    WrongWorld { found: Vec<String> },
    #[error("the component needs imports the sandbox does not provide: {0}")]
    Imports(String),
    #[error("its describe() answer is refused: {0}")]
    Describe(AnswerRefusal),
    #[error(transparent)]
    Call(Box<CallError>),
    #[error(
        "plugin file {} has sha256 {actual}, but {expected} was registered; \
         it changed after `agents plugin add`: add it again",
        path.display()
    )]
    Tampered {
        path: PathBuf,
        expected: String,
        actual: String,
    },
    #[error("{what} {}: {source}", path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the WebAssembly engine could not be created: {0}")]
    Engine(String),
    #[error("refusing to load code from {}: {why}", path.display())]
    InsecureDir { path: PathBuf, why: String },
}

impl From<CallError> for PluginError {
    fn from(e: CallError) -> Self {
        Self::Call(Box::new(e))
    }
}

/// One handler call that did not produce an accepted answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallError {
    pub module: String,
    pub class: String,
    pub operation: Operation,
    pub kind: CallErrorKind,
}

/// What went wrong in a call; each is its own outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallErrorKind {
    /// The guest trapped (a panic, an escaped Python exception,
    /// `unreachable`, a bad memory access): the guest's own last error
    /// from its stderr, when it wrote one, then the trap.
    Trap(String),
    /// The wall-clock deadline passed.
    Timeout(Duration),
    /// The guest tried to grow its memory past the cap.
    OutOfMemory { limit: u64 },
    /// The handler answered with its own error.
    Handler(HandlerError),
    /// The handler answered, but the answer breaks a bound or a rule
    /// (boxed: a call error stays small on the success path).
    RefusedResult(Box<AnswerRefusal>),
    /// The component could not be prepared for the call.
    Load(String),
    /// The sandbox could not be set up (e.g. the granted dir is missing,
    /// or moved behind a symlink); boxed, as `RefusedResult` is.
    Sandbox(Box<ViewRefusal>),
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let op = self.operation;
        write!(f, "handler {}", self.module)?;
        if !self.class.is_empty() {
            write!(f, ":{}", self.class)?;
        }
        match &self.kind {
            CallErrorKind::Trap(m) => write!(f, " trapped during {op}: {m}"),
            CallErrorKind::Timeout(d) => {
                write!(f, " timed out after {} during {op}", human_duration(*d))
            }
            CallErrorKind::OutOfMemory { limit } => write!(
                f,
                " ran out of memory during {op} (limit {}; --handler-memory MIB or \
                 $AGENTS_HANDLER_MEMORY raises it, up to {} MiB)",
                human_bytes(*limit),
                super::Limits::MEMORY_MIB.end()
            ),
            CallErrorKind::Handler(e) => write!(f, " refused {op}: {e}"),
            CallErrorKind::RefusedResult(m) => {
                write!(f, " answered {op} with a result the host refuses: {m}")
            }
            CallErrorKind::Load(m) => write!(f, " could not be loaded for {op}: {m}"),
            CallErrorKind::Sandbox(m) => {
                write!(f, ": the sandbox for {op} could not be set up: {m}")
            }
        }
    }
}

impl std::error::Error for CallError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(kind: CallErrorKind) -> String {
        CallError {
            module: "test.faulty".into(),
            class: "Loop".into(),
            operation: Operation::Discover,
            kind,
        }
        .to_string()
    }

    #[test]
    fn a_timeout_names_module_class_operation_and_limit() {
        assert_eq!(
            error(CallErrorKind::Timeout(Duration::from_secs(2))),
            "handler test.faulty:Loop timed out after 2s during discover"
        );
    }

    #[test]
    fn every_kind_reads_as_one_sentence_naming_the_call() {
        let kinds = [
            CallErrorKind::Trap("unreachable".into()),
            CallErrorKind::OutOfMemory { limit: 128 << 20 },
            CallErrorKind::Handler(HandlerError::Failed("boom".into())),
            CallErrorKind::RefusedResult(Box::new(AnswerRefusal::TooManyChildren {
                count: 3,
                max: 2,
            })),
            CallErrorKind::Load("gone".into()),
            CallErrorKind::Sandbox(Box::new(ViewRefusal::Gone {
                location: "/gone".into(),
            })),
        ];
        for kind in kinds {
            let text = error(kind);
            assert!(text.starts_with("handler test.faulty:Loop"), "{text}");
            assert!(text.contains("discover"), "{text}");
        }
        let oom = error(CallErrorKind::OutOfMemory { limit: 128 << 20 });
        assert!(
            oom.contains("(limit 128 MiB; --handler-memory MIB"),
            "{oom}"
        );
    }
}
