//! One handler call, start to finish: the one home of how a call runs and
//! how its outcome is classified.
//!
//! Each call gets a fresh `Store` (so a trap poisons nothing) from the
//! module's `InstancePre`, with the memory cap, an epoch deadline that
//! covers instantiation and the call, and the sandbox of the grant. The
//! outcome is exactly one of: an accepted answer, or a [`CallError`] whose
//! kind says trap / timeout / out of memory / the handler's own error / a
//! refused answer (see `answer`).

use super::answer::{self, AnswerRefusal};
use super::contract::{Answer, Call, HandlerPre};
use super::engine::{EngineState, deadline_ticks};
use super::error::{CallError, CallErrorKind};
use super::guest_error::last_error;
use super::runtime::{LoadedModule, PluginRuntime};
use super::sandbox::{CallState, Label};
use super::types::{Discovered, Grant, HandlerError, Inspected, Operation, ResourceView};
use wasmtime::{Store, Trap, WasmBacktrace};

impl PluginRuntime {
    /// Check and normalise registration arguments into properties.
    pub fn validate(
        &self,
        m: &LoadedModule,
        class: &str,
        args: &[(String, String)],
        grant: &Grant,
    ) -> Result<Vec<(String, String)>, CallError> {
        let call = Call::Validate { class, args };
        let Answer::Properties(answer) = self.handler_call(m, class, call, grant)? else {
            unreachable!("validate answers properties")
        };
        let props = self.answered(m, class, Operation::Validate, answer)?;
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
        let call = Call::Discover { class, view };
        let Answer::Children(answer) = self.handler_call(m, class, call, grant)? else {
            unreachable!("discover answers children")
        };
        let raw = self.answered(m, class, Operation::Discover, answer)?;
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
        let call = Call::ContentHash { class, view };
        let Answer::Text(answer) = self.handler_call(m, class, call, grant)? else {
            unreachable!("content-hash answers text")
        };
        let hash = self.answered(m, class, Operation::ContentHash, answer)?;
        answer::content_hash(hash, &self.limits.answer)
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
    ) -> Result<Inspected, CallError> {
        let call = Call::Inspect { class, view, file };
        let Answer::Inspection(answer) = self.handler_call(m, class, call, grant)? else {
            unreachable!("inspect answers an inspection")
        };
        let (text, fields) = self.answered(m, class, Operation::Inspect, answer)?;
        answer::inspection(text, fields, &self.limits.answer)
            .map_err(|why| refused(m, class, Operation::Inspect, why))
    }

    /// A handler's own error becomes [`CallErrorKind::Handler`] (if its
    /// message is of sane size).
    fn answered<T>(
        &self,
        m: &LoadedModule,
        class: &str,
        operation: Operation,
        answer: Result<T, HandlerError>,
    ) -> Result<T, CallError> {
        answer.map_err(|e| CallError {
            module: m.module().to_string(),
            class: class.to_owned(),
            operation,
            kind: match answer::handler_error(e, &self.limits.answer) {
                Ok(e) => CallErrorKind::Handler(e),
                Err(why) => CallErrorKind::RefusedResult(Box::new(why)),
            },
        })
    }

    /// Run one operation of class `class`: the class must exist.
    fn handler_call(
        &self,
        m: &LoadedModule,
        class: &str,
        call: Call<'_>,
        grant: &Grant,
    ) -> Result<Answer, CallError> {
        let operation = call.operation();
        let label = Label {
            module: m.module().to_string(),
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
        if !self.owns(&m.0.engine) {
            return Err(fail(CallErrorKind::Load(
                "the module was loaded by another runtime".into(),
            )));
        }
        self.run(&m.0.pre, &m.0.engine, &label, grant, call)
    }

    /// One call in a fresh store: instantiate, run `call`, flush the log,
    /// classify a failure.
    pub(crate) fn run(
        &self,
        pre: &HandlerPre,
        engine: &EngineState,
        label: &Label,
        grant: &Grant,
        call: Call<'_>,
    ) -> Result<Answer, CallError> {
        let fail = |kind| CallError {
            module: label.module.clone(),
            class: label.class.clone(),
            operation: label.operation,
            kind,
        };
        let state = CallState::new(
            grant,
            &self.limits,
            label.clone(),
            self.views.as_deref(),
            self.git_memo(),
            self.git.clone(),
        )
        .map_err(|why| fail(CallErrorKind::Sandbox(Box::new(why))))?;
        let mut store = Store::new(&engine.engine, state);
        store.limiter(|s| &mut s.memory);
        store.set_epoch_deadline(deadline_ticks(self.limits.timeout));
        store.epoch_deadline_trap();
        let timeout = self.limits.timeout;
        let outcome = engine
            .block_on(async { tokio::time::timeout(timeout, pre.call(&mut store, call)).await });
        let stderr = store.data_mut().finish(!matches!(outcome, Ok(Ok(_))));
        match outcome {
            // The guest was waiting in a host call at the deadline: the
            // future (and with it the call) is dropped; the store goes too.
            Err(_elapsed) => {
                let error = fail(CallErrorKind::Timeout(timeout));
                log::debug!(target: "plugin", "{error}: abandoned while in a host call");
                Err(error)
            }
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(err)) => {
                let kind = self.classify(&err, store.data().memory.hit, &stderr);
                let error = fail(kind);
                // The guest's stack, not the host's: `{err:?}` would add
                // the host's own backtrace (~40 frames of wasmtime and
                // tokio) whenever RUST_BACKTRACE is set.
                if let Some(trace) = err.downcast_ref::<WasmBacktrace>() {
                    log::debug!(target: "plugin", "{label}: the guest's stack when it failed:");
                    let text = trace.to_string();
                    let frames = text
                        .lines()
                        .filter(|l| !l.trim().is_empty() && !l.ends_with("wasm backtrace:"));
                    for frame in frames {
                        log::debug!(target: "plugin", "{label}:   {}", frame.trim());
                    }
                }
                Err(error)
            }
        }
    }

    fn classify(&self, err: &wasmtime::Error, memory_cap_hit: bool, stderr: &str) -> CallErrorKind {
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
        // What the guest said went wrong first: a Python exception, a
        // Rust panic; the trap itself (`unreachable`) after it.
        CallErrorKind::Trap(match last_error(stderr) {
            Some(guest) => format!("{guest} ({message})"),
            None => message,
        })
    }
}

fn refused(m: &LoadedModule, class: &str, operation: Operation, why: AnswerRefusal) -> CallError {
    CallError {
        module: m.module().to_string(),
        class: class.to_owned(),
        operation,
        kind: CallErrorKind::RefusedResult(Box::new(why)),
    }
}
