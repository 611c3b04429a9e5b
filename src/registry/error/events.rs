//! How a read or a setting of the event log is refused: a `--since`
//! that is neither a number nor a time, an unknown op or kind, a bad
//! `events.keep`, an unknown registry setting, a limit out of range.

use super::super::event_op::{EventOp, KINDS};
use thiserror::Error;

/// How a read or a setting of the log is refused.
#[derive(Debug, Error)]
pub enum EventsError {
    #[error(
        "{value:?} is neither an event number nor a time; give a number (agents events shows \
         them), a date (2026-12-01) or a UTC time (2026-12-01T08:00:00Z)"
    )]
    BadSince { value: String },
    #[error(
        "{value:?} is not an event operation; the operations are: {}",
        EventOp::ALL.iter().map(|op| op.as_str()).collect::<Vec<_>>().join(", ")
    )]
    BadOp { value: String },
    #[error("{value:?} is not an event kind; the kinds are: {}", KINDS.join(", "))]
    BadKind { value: String },
    #[error(
        "{value:?} is not a value for events.keep; give a number of days (90d) or of events \
         (10000), at least 1"
    )]
    BadKeep { value: String },
    #[error("{key:?} is not a registry setting; the settings are: events.keep")]
    UnknownSetting { key: String },
    #[error("an event limit must be between 1 and {max}, not {limit}")]
    BadLimit { limit: u32, max: u32 },
}
