//! Built-in handler components: the one home of which modules the binary
//! itself provides (the reserved name prefix is a name rule, in
//! `model::BUILTIN_MODULE_PREFIX`). Their `.wasm` is built from
//! `plugins/builtin/*` by the build script and embedded with
//! `include_bytes!` from `RESOURCE_HOST_WASM_DIR`; they are components like
//! any plugin, loaded, sandboxed and limited the same way, and never need
//! the plugin store.

use crate::model::ModuleName;

static BUILTINS: &[(&str, &[u8])] = &[
    (
        "cleveragents.resource.handlers.fs",
        include_bytes!(concat!(env!("RESOURCE_HOST_WASM_DIR"), "/builtin_fs.wasm")),
    ),
    (
        "cleveragents.resource.handlers.git",
        include_bytes!(concat!(env!("RESOURCE_HOST_WASM_DIR"), "/builtin_git.wasm")),
    ),
];

/// The embedded component for built-in module `module`, if there is one.
pub fn builtin_component(module: &ModuleName) -> Option<&'static [u8]> {
    BUILTINS
        .iter()
        .find(|(name, _)| *name == module.as_str())
        .map(|(_, bytes)| *bytes)
}

/// Every built-in module and its component.
pub fn builtin_components() -> impl Iterator<Item = (ModuleName, &'static [u8])> {
    BUILTINS.iter().map(|(name, bytes)| {
        let module = ModuleName::parse(name)
            .unwrap_or_else(|e| unreachable!("built-in module names are valid: {e}"));
        (module, *bytes)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fs_and_git_modules_are_built_in_and_reserved() {
        let names: Vec<String> = builtin_components().map(|(m, _)| m.to_string()).collect();
        assert_eq!(
            names,
            [
                "cleveragents.resource.handlers.fs",
                "cleveragents.resource.handlers.git"
            ]
        );
        assert!(
            builtin_components().all(|(m, bytes)| m.is_reserved() && bytes.starts_with(b"\0asm"))
        );
        let module = ModuleName::parse("myteam.python").unwrap();
        assert!(builtin_component(&module).is_none());
    }
}
