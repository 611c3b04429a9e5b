//! Contract `cleveragents:resource@0.1.0` (`wit/v0.1.0/`): its host-side
//! bindings and the conversions between its generated types and the
//! plain mirrors. Frozen: a change to the contract is a new version.

use super::{Answer, Call, RawChild, RawInfo};
use crate::plugin::sandbox::CallState;
use crate::plugin::types::{HandlerError, ResourceView};
use wasmtime::Store;
use wasmtime::component::{HasSelf, Linker};

wasmtime::component::bindgen!({
    path: "wit/v0.1.0",
    world: "resource-handler",
    exports: { default: async },
});

use cleveragents::resource::types as wit;

impl cleveragents::resource::types::Host for CallState {}

impl cleveragents::resource::host::Host for CallState {
    fn log(&mut self, level: cleveragents::resource::host::LogLevel, message: String) {
        use cleveragents::resource::host::LogLevel;
        let level = match level {
            LogLevel::Trace => log::Level::Trace,
            LogLevel::Debug => log::Level::Debug,
            LogLevel::Info => log::Level::Info,
            LogLevel::Warn => log::Level::Warn,
            LogLevel::Error => log::Level::Error,
        };
        self.host_log(level, message);
    }
}

pub(super) fn add_to_linker(linker: &mut Linker<CallState>) -> wasmtime::Result<()> {
    ResourceHandler::add_to_linker::<CallState, HasSelf<CallState>>(linker, |s| s)
}

/// Instantiate `pre` in `store` and run `call`.
pub(super) async fn call(
    pre: &ResourceHandlerPre<CallState>,
    store: &mut Store<CallState>,
    call: Call<'_>,
) -> wasmtime::Result<Answer> {
    let instance = pre.instantiate_async(&mut *store).await?;
    let h = instance.cleveragents_resource_handler();
    Ok(match call {
        Call::Describe => Answer::Info(info(h.call_describe(&mut *store).await?)),
        Call::Validate { class, args } => {
            let args = properties_to_wit(args);
            Answer::Properties(
                h.call_validate(&mut *store, class, &args)
                    .await?
                    .map(properties_from_wit)
                    .map_err(error),
            )
        }
        Call::Discover { class, view } => Answer::Children(
            h.call_discover(&mut *store, class, &view_to_wit(view))
                .await?
                .map(|children| children.into_iter().map(child).collect())
                .map_err(error),
        ),
        Call::ContentHash { class, view } => Answer::Text(
            h.call_content_hash(&mut *store, class, &view_to_wit(view))
                .await?
                .map_err(error),
        ),
        // 0.1.0's `inspect` answers text only.
        Call::Inspect { class, view, file } => Answer::Inspection(
            h.call_inspect(&mut *store, class, &view_to_wit(view), file)
                .await?
                .map(|text| (text, Vec::new()))
                .map_err(error),
        ),
    })
}

super::plain_conversions!();
