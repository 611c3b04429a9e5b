//! Built-in handler components: the one home of which modules the binary
//! itself provides (the reserved name prefix is a name rule, in
//! `model::BUILTIN_MODULE_PREFIX`). Their `.wasm` is built from `plugins/builtin-*`
//! by the build script and embedded with `include_bytes!` from
//! `RESOURCE_HOST_WASM_DIR`; a type naming one of these modules never
//! needs the plugin store.
//!
//! None is built yet (the built-in handlers are a later issue); the table
//! is the mechanism. An entry will read
//! `("cleveragents.resource.handlers.fs", include_bytes!(concat!(env!("RESOURCE_HOST_WASM_DIR"), "/builtin_fs.wasm")))`.

use crate::model::ModuleName;

static BUILTINS: &[(&str, &[u8])] = &[];

/// The embedded component for built-in module `module`, if there is one.
pub fn builtin_component(module: &ModuleName) -> Option<&'static [u8]> {
    BUILTINS
        .iter()
        .find(|(name, _)| *name == module.as_str())
        .map(|(_, bytes)| *bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_module_has_no_builtin_component() {
        let module = ModuleName::parse("myteam.python").unwrap();
        assert!(builtin_component(&module).is_none());
    }
}
