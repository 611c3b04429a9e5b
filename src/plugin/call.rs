//! One handler call, start to finish: the one home of how a call runs and
//! how its outcome is classified.
//!
//! Each call gets a fresh `Store` (so a trap poisons nothing) from the
//! module's `InstancePre`, with the memory cap, an epoch deadline that
//! covers instantiation and the call, and the sandbox of the grant. The
//! outcome is exactly one of: an accepted answer, or a [`CallError`] whose
//! kind says trap / timeout / out of memory / the handler's own error / a
//! refused answer (see `answer`).

use super::answer;
use super::bindings::{self, HandlerExports, ResourceHandlerPre, wit};
use super::engine::{EngineState, deadline_ticks};
use super::error::{CallError, CallErrorKind};
use super::runtime::{LoadedModule, PluginRuntime};
use super::sandbox::{CallState, Label};
use super::types::{Discovered, Grant, HandlerError, Operation, ResourceView};
use std::sync::Arc;
use wasmtime::{Store, Trap};

/// Bytes of the guest's last stderr lines quoted in a trap message.
const STDERR_QUOTE: usize = 300;

impl PluginRuntime {
    /// Check and normalise registration arguments into properties.
    pub fn validate(
        &self,
        m: &LoadedModule,
        class: &str,
        args: &[(String, String)],
        grant: &Grant,
    ) -> Result<Vec<(String, String)>, CallError> {
        let args = bindings::properties_to_wit(args);
        let answer = self.handler_call(m, class, Operation::Validate, grant, |h, s| {
            h.call_validate(s, class, &args)
        })?;
        let props = bindings::properties_from_wit(answer);
        answer::properties(props, &self.limits.answer)
            .map_err(|why| refused(m, class, Operation::Validate, why))
    }

    /// The children to register under `view` (one level), checked.
    pub fn discover(
        &self,
        m: &LoadedModule,
        class: &str,
        view: &ResourceView,
        grant: &Grant,
    ) -> Result<Vec<Discovered>, CallError> {
        let wit_view = bindings::view_to_wit(view);
        let answer = self.handler_call(m, class, Operation::Discover, grant, |h, s| {
            h.call_discover(s, class, &wit_view)
        })?;
        // Bound the count before converting anything.
        if answer.len() > self.limits.answer.max_children {
            let why = format!(
                "{} children, more than the {} allowed",
                answer.len(),
                self.limits.answer.max_children
            );
            return Err(refused(m, class, Operation::Discover, why));
        }
        let raw = answer.into_iter().map(bindings::child_from_wit).collect();
        answer::children(raw, view.location.as_deref(), &self.limits.answer)
            .map_err(|why| refused(m, class, Operation::Discover, why))
    }

    /// A hash of `view`'s contents for change detection.
    pub fn content_hash(
        &self,
        m: &LoadedModule,
        class: &str,
        view: &ResourceView,
        grant: &Grant,
    ) -> Result<String, CallError> {
        let wit_view = bindings::view_to_wit(view);
        let answer = self.handler_call(m, class, Operation::ContentHash, grant, |h, s| {
            h.call_content_hash(s, class, &wit_view)
        })?;
        answer::content_hash(answer, &self.limits.answer)
            .map_err(|why| refused(m, class, Operation::ContentHash, why))
    }

    /// A description of `view`, or of `file` inside it.
    pub fn inspect(
        &self,
        m: &LoadedModule,
        class: &str,
        view: &ResourceView,
        file: Option<&str>,
        grant: &Grant,
    ) -> Result<String, CallError> {
        let wit_view = bindings::view_to_wit(view);
        let answer = self.handler_call(m, class, Operation::Inspect, grant, |h, s| {
            h.call_inspect(s, class, &wit_view, file)
        })?;
        answer::text(answer, &self.limits.answer)
            .map_err(|why| refused(m, class, Operation::Inspect, why))
    }

    /// Run an operation answering `result<T, handler-error>`: the class
    /// must exist, and a handler error becomes [`CallErrorKind::Handler`].
    fn handler_call<T>(
        &self,
        m: &LoadedModule,
        class: &str,
        operation: Operation,
        grant: &Grant,
        f: impl FnOnce(
            &HandlerExports,
            &mut Store<CallState>,
        ) -> wasmtime::Result<Result<T, wit::HandlerError>>,
    ) -> Result<T, CallError> {
        let label = Label {
            module: m.module().to_owned(),
            class: class.to_owned(),
            operation,
        };
        let fail = |kind| CallError {
            module: label.module.clone(),
            class: label.class.clone(),
            operation,
            kind,
        };
        if !m.info().has_class(class) {
            return Err(fail(CallErrorKind::Handler(HandlerError::Unsupported(
                format!(
                    "module {} has no class {class:?}; it provides: {}",
                    m.module(),
                    m.info().class_names().join(", ")
                ),
            ))));
        }
        let engine = self
            .engine()
            .map_err(|e| fail(CallErrorKind::Load(e.to_string())))?;
        if !Arc::ptr_eq(&engine, &m.0.engine) {
            return Err(fail(CallErrorKind::Load(
                "the module was loaded by another runtime".into(),
            )));
        }
        match self.run(&m.0.pre, &engine, &label, grant, f)? {
            Ok(answer) => Ok(answer),
            Err(e) => {
                let e = bindings::error_from_wit(e);
                Err(fail(match answer::handler_error(e, &self.limits.answer) {
                    Ok(e) => CallErrorKind::Handler(e),
                    Err(why) => CallErrorKind::RefusedResult(why),
                }))
            }
        }
    }

    /// One call in a fresh store: instantiate, call `f`, flush the log,
    /// classify a failure.
    pub(crate) fn run<R>(
        &self,
        pre: &ResourceHandlerPre<CallState>,
        engine: &EngineState,
        label: &Label,
        grant: &Grant,
        f: impl FnOnce(&HandlerExports, &mut Store<CallState>) -> wasmtime::Result<R>,
    ) -> Result<R, CallError> {
        let fail = |kind| CallError {
            module: label.module.clone(),
            class: label.class.clone(),
            operation: label.operation,
            kind,
        };
        let state = CallState::new(grant, &self.limits, label.clone())
            .map_err(|why| fail(CallErrorKind::Sandbox(why)))?;
        let mut store = Store::new(&engine.engine, state);
        store.limiter(|s| &mut s.memory);
        store.set_epoch_deadline(deadline_ticks(self.limits.timeout));
        store.epoch_deadline_trap();
        let outcome = pre
            .instantiate(&mut store)
            .and_then(|instance| f(instance.cleveragents_resource_handler(), &mut store));
        let stderr_tail = store.data_mut().finish();
        outcome.map_err(|err| {
            let kind = self.classify(&err, store.data().memory.hit, stderr_tail);
            let error = fail(kind);
            log::debug!(target: "plugin", "{error}: {err:?}");
            error
        })
    }

    fn classify(
        &self,
        err: &wasmtime::Error,
        memory_cap_hit: bool,
        stderr_tail: Option<String>,
    ) -> CallErrorKind {
        if memory_cap_hit {
            return CallErrorKind::OutOfMemory {
                limit: self.limits.memory_bytes,
            };
        }
        let message = match err.downcast_ref::<Trap>() {
            Some(Trap::Interrupt) => return CallErrorKind::Timeout(self.limits.timeout),
            Some(trap) => trap.to_string(),
            None => format!("{err:#}"),
        };
        CallErrorKind::Trap(match stderr_tail {
            Some(tail) => format!("{message} (stderr: {})", quote(&tail)),
            None => message,
        })
    }
}

fn refused(m: &LoadedModule, class: &str, operation: Operation, why: String) -> CallError {
    CallError {
        module: m.module().to_owned(),
        class: class.to_owned(),
        operation,
        kind: CallErrorKind::RefusedResult(why),
    }
}

fn quote(line: &str) -> String {
    if line.len() <= STDERR_QUOTE {
        return line.to_owned();
    }
    let mut cut = STDERR_QUOTE;
    while !line.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}…", &line[..cut])
}
