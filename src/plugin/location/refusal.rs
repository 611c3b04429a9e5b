//! Why a location is refused: when a handler answers a child's location
//! ([`PlacementRefusal`]) and when a call is about to run on one
//! ([`ViewRefusal`]). Each variant carries what its message names (an
//! operating-system failure as its text, so that a refusal can be cloned
//! and compared like the call errors that carry it); the messages are the
//! ones a person sees, so they say what was refused and why.

use crate::text::quote;
use std::path::PathBuf;
use thiserror::Error;

/// A child's location that does not lie where the rule says (inside its
/// parent's real location, through real directories only), or a parent
/// that cannot hold located children.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PlacementRefusal {
    #[error("{what}'s location {} contains `..`", quote(location))]
    ParentDir { what: String, location: String },
    #[error(
        "{what}'s location {} lies outside the resource's location {}",
        quote(location),
        parent.display()
    )]
    Outside {
        what: String,
        location: String,
        parent: PathBuf,
    },
    #[error(
        "{what}'s location {} passes through the symlink {} (only the last component of a \
         location may be a symlink, and it is never followed)",
        quote(location),
        symlink.display()
    )]
    ThroughSymlink {
        what: String,
        location: String,
        symlink: PathBuf,
    },
    #[error(
        "{what}'s location {} passes through {}, which is not a directory",
        quote(location),
        at.display()
    )]
    ThroughNonDirectory {
        what: String,
        location: String,
        at: PathBuf,
    },
    #[error("{what}'s location {}: {reason}", quote(location))]
    Unreadable {
        what: String,
        location: String,
        reason: String,
    },
    #[error("{what}'s location {} is not UTF-8", quote(location))]
    NotUtf8 { what: String, location: String },
    #[error(
        "the resource's location {location} is not a directory, so its children cannot have \
         locations"
    )]
    ParentNotADirectory { location: String },
    #[error("the resource's location {location} cannot be read: {reason}")]
    ParentUnreadable { location: String, reason: String },
}

/// A location a call cannot be given: gone, moved behind a symlink since
/// it was registered, or not to be opened.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ViewRefusal {
    #[error("location {} is not UTF-8", path.display())]
    NotUtf8 { path: PathBuf },
    #[error("the location {location} no longer exists")]
    Gone { location: String },
    #[error(
        "{} now resolves to {} (a symlink was put in its path); the location is no longer what \
         was registered — run discovery again, or register it again",
        path.display(),
        real.display()
    )]
    Moved { path: PathBuf, real: PathBuf },
    #[error("cannot open {}: {reason}", path.display())]
    Open { path: PathBuf, reason: String },
    #[error("cannot make a one-entry view of {location}: {reason}")]
    OneEntryView { location: String, reason: String },
    /// The sandbox could not preopen the location it was given.
    #[error("cannot open {}: {reason}", path.display())]
    Preopen { path: PathBuf, reason: String },
}
