//! Hooks for the fuzz targets in `fuzz/`: the checks a handler's answers
//! pass before the host uses them ([`answer`](super::answer)), reached
//! from outside the crate without a component to give the answers.
//!
//! Not an API: built only with the `test-support` feature (absent from a
//! normal build of the library), no promise of stability, and nothing
//! here but a call into the real check — a fuzz target that went through
//! a copy of the rules would prove nothing about them.

use super::answer::{self, AnswerRefusal};
use super::limits::AnswerBounds;
use super::types::{Discovered, HandlerError, Inspected, PluginInfo};
use super::version::ContractVersion;

pub use super::types::{RawChild, RawInfo};

/// `discover`'s children of a resource at `location`, checked.
pub fn children(
    raw: Vec<RawChild>,
    location: Option<&str>,
    bounds: &AnswerBounds,
) -> Result<Vec<Discovered>, AnswerRefusal> {
    answer::children(raw, location, bounds)
}

/// A `describe` answer, checked as the current contract's.
pub fn plugin_info(raw: RawInfo, bounds: &AnswerBounds) -> Result<PluginInfo, AnswerRefusal> {
    answer::plugin_info(raw, ContractVersion::CURRENT, bounds)
}

/// `validate`'s properties, checked.
pub fn properties(
    props: Vec<(String, String)>,
    bounds: &AnswerBounds,
) -> Result<Vec<(String, String)>, AnswerRefusal> {
    answer::properties(props, bounds)
}

/// `content-hash`'s answer, checked.
pub fn content_hash(hash: String, bounds: &AnswerBounds) -> Result<String, AnswerRefusal> {
    answer::content_hash(hash, bounds)
}

/// `inspect`'s answer, checked.
pub fn inspection(
    text: String,
    fields: Vec<(String, String)>,
    bounds: &AnswerBounds,
) -> Result<Inspected, AnswerRefusal> {
    answer::inspection(text, fields, bounds)
}

/// A handler's error answer, checked.
pub fn handler_error(
    e: HandlerError,
    bounds: &AnswerBounds,
) -> Result<HandlerError, AnswerRefusal> {
    answer::handler_error(e, bounds)
}
