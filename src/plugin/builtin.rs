//! Built-in handler components: the one home of which module names the
//! binary itself provides. Their `.wasm` is built from `plugins/builtin-*`
//! by the build script and embedded with `include_bytes!` from
//! `RESOURCE_HOST_WASM_DIR`; a type naming one of these modules never
//! needs the plugin store.
//!
//! None is built yet (the built-in handlers are a later issue); the table
//! is the mechanism. An entry will read
//! `("cleveragents.resource.handlers.fs", include_bytes!(concat!(env!("RESOURCE_HOST_WASM_DIR"), "/builtin_fs.wasm")))`.

/// Module names under this prefix are reserved for built-in handlers.
pub const BUILTIN_MODULE_PREFIX: &str = "cleveragents.resource.handlers.";

static BUILTINS: &[(&str, &[u8])] = &[];

/// The embedded component for built-in module `module`, if there is one.
pub fn builtin_component(module: &str) -> Option<&'static [u8]> {
    BUILTINS
        .iter()
        .find(|(name, _)| *name == module)
        .map(|(_, bytes)| *bytes)
}

/// The built-in module names.
pub fn builtin_modules() -> impl Iterator<Item = &'static str> {
    BUILTINS.iter().map(|(name, _)| *name)
}

/// Is `module` in the namespace reserved for built-ins (so a plugin may
/// not claim it)?
pub fn is_reserved_module(module: &str) -> bool {
    module.starts_with(BUILTIN_MODULE_PREFIX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_module_has_no_builtin_component() {
        assert!(builtin_component("myteam.python").is_none());
        assert!(is_reserved_module("cleveragents.resource.handlers.git"));
        assert!(!is_reserved_module("myteam.python"));
    }
}
