//! What a tool call brings and what it answers: its arguments, read
//! with the refusals a person can act on, and the view it returns.

use super::super::kinds::Refusal;
use resource_host::model::{ResourceKey, SandboxId};
use serde::Serialize;
use serde_json::{Map, Value, json};
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
    pub(super) fn new(value: &impl Serialize, text: impl Into<String>) -> Result<Self, Refusal> {
        let value = serde_json::to_value(value)
            .map_err(|e| Refusal::internal(format!("the view could not be written: {e}")))?;
        Ok(Self {
            value,
            text: text.into(),
            changed: Vec::new(),
        })
    }

    /// A list, wrapped as MCP wants an object.
    pub(super) fn list(field: &str, items: &impl Serialize, text: String) -> Result<Self, Refusal> {
        let items = serde_json::to_value(items)
            .map_err(|e| Refusal::internal(format!("the view could not be written: {e}")))?;
        Self::new(&json!({ field: items }), text)
    }
}

/// Progress a long call reports: `(done, total, message)`; it answers
/// whether to go on (`Break`: the request was cancelled), which the
/// library's operations check between handler calls.
pub type Progress = Box<dyn FnMut(u64, Option<u64>, String) -> ControlFlow<()> + Send>;

/// The tool arguments, read with the refusals a person can act on.
pub struct Args<'a>(pub &'a Map<String, Value>);

impl Args<'_> {
    pub fn text(&self, field: &str) -> Result<Option<String>, Refusal> {
        match self.0.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(Refusal::invalid(format!("{field} must be a string"))),
        }
    }

    pub fn required(&self, field: &str) -> Result<String, Refusal> {
        self.text(field)?
            .ok_or_else(|| Refusal::invalid(format!("{field} is required")))
    }

    pub fn key(&self, field: &str) -> Result<ResourceKey, Refusal> {
        let text = self.required(field)?;
        text.parse::<ResourceKey>()
            .map_err(|e| Refusal::invalid(format!("{field}: {e}")))
    }

    pub(super) fn optional_key(&self, field: &str) -> Result<Option<ResourceKey>, Refusal> {
        match self.text(field)? {
            None => Ok(None),
            Some(_) => self.key(field).map(Some),
        }
    }

    pub(super) fn sandbox(&self) -> Result<SandboxId, Refusal> {
        let text = self.required("id")?;
        text.parse::<SandboxId>()
            .map_err(|e| Refusal::invalid(format!("id: {e}")))
    }

    pub(super) fn flag(&self, field: &str) -> Result<bool, Refusal> {
        match self.0.get(field) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => Err(Refusal::invalid(format!("{field} must be true or false"))),
        }
    }

    pub(super) fn count(&self, field: &str) -> Result<Option<u32>, Refusal> {
        match self.0.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_u64()
                .filter(|n| *n >= 1)
                .and_then(|n| u32::try_from(n).ok())
                .map(Some)
                .ok_or_else(|| Refusal::invalid(format!("{field} must be a whole number from 1"))),
        }
    }
}
