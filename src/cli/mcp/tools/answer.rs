//! What a tool call answers: the view, a summary for people, and what it
//! changed; and the progress a long call reports.

use super::super::kinds::Refusal;
use serde::Serialize;
use serde_json::Value;
use std::ops::ControlFlow;

/// A tool's answer: the view, and a line or two for people.
#[derive(Debug)]
pub struct Done {
    pub value: Value,
    pub text: String,
    /// The resources this call changed (ids), for subscribers.
    pub changed: Vec<String>,
}

impl Done {
    pub(crate) fn new(value: &impl Serialize, text: impl Into<String>) -> Result<Self, Refusal> {
        let value = serde_json::to_value(value)
            .map_err(|e| Refusal::internal(format!("the view could not be written: {e}")))?;
        Ok(Self {
            value,
            text: text.into(),
            changed: Vec::new(),
        })
    }

    /// This answer, telling the subscribers of `ids` that the call changed them.
    pub(crate) fn changing(self, ids: Vec<String>) -> Self {
        Self {
            changed: ids,
            ..self
        }
    }
}

/// Progress a long call reports: `(done, total, message)`; it answers
/// whether to go on (`Break`: the request was cancelled), which the
/// library's operations check between handler calls.
pub type Progress = Box<dyn FnMut(u64, Option<u64>, String) -> ControlFlow<()> + Send>;
