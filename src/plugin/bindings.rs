//! The host side of the WIT contract: `bindgen!` over the same `wit/`
//! files every guest's `wit_bindgen::generate!` reads, and the conversions
//! between the generated types and the plain mirrors in `types`. The only
//! file that names generated types; nothing generated leaves `plugin`.

use super::answer::RawChild;
use super::sandbox::CallState;
use super::types;

wasmtime::component::bindgen!({
    path: "wit",
    world: "resource-handler",
});

pub(crate) use cleveragents::resource::types as wit;
pub(crate) use exports::cleveragents::resource::handler::Guest as HandlerExports;

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

pub(crate) fn properties_to_wit(props: &[(String, String)]) -> Vec<wit::Property> {
    props
        .iter()
        .map(|(key, value)| wit::Property {
            key: key.clone(),
            value: value.clone(),
        })
        .collect()
}

pub(crate) fn properties_from_wit(props: Vec<wit::Property>) -> Vec<(String, String)> {
    props.into_iter().map(|p| (p.key, p.value)).collect()
}

pub(crate) fn view_to_wit(view: &types::ResourceView) -> wit::ResourceView {
    wit::ResourceView {
        id: view.id.clone(),
        name: view.name.clone(),
        type_name: view.type_name.clone(),
        location: view.location.clone(),
        properties: properties_to_wit(&view.properties),
    }
}

pub(crate) fn child_from_wit(d: wit::Discovered) -> RawChild {
    RawChild {
        type_name: d.type_name,
        name: d.name,
        location: d.location,
        properties: properties_from_wit(d.properties),
        content_hash: d.content_hash,
    }
}

pub(crate) fn info_from_wit(info: wit::PluginInfo) -> types::PluginInfo {
    types::PluginInfo {
        module: info.module,
        version: info.version,
        classes: info
            .classes
            .into_iter()
            .map(|c| types::ClassInfo {
                name: c.name,
                description: c.description,
            })
            .collect(),
    }
}

pub(crate) fn error_from_wit(e: wit::HandlerError) -> types::HandlerError {
    match e {
        wit::HandlerError::InvalidArgs(m) => types::HandlerError::InvalidArgs(m),
        wit::HandlerError::NotFound(m) => types::HandlerError::NotFound(m),
        wit::HandlerError::Unsupported(m) => types::HandlerError::Unsupported(m),
        wit::HandlerError::Io(m) => types::HandlerError::Io(m),
        wit::HandlerError::Failed(m) => types::HandlerError::Failed(m),
    }
}
