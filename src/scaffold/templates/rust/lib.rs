//! `@@MODULE@@`: a resource handler component for `agents`.
//!
//! The bindings are generated from the contract in `wit/` (copied from
//! `agents plugin wit`) by the `wit-bindgen` crate; nothing else is needed.
//! Each class is a struct implementing [`Class`] and listed in [`CLASSES`];
//! a resource type names one as `handler: @@MODULE@@:<Class>`. Every call
//! runs in a fresh sandbox that sees only the resource's location,
//! read-only: keep no state between calls.

wit_bindgen::generate!({ path: "wit", world: "resource-handler" });

use cleveragents::resource::host::{LogLevel, log};
use cleveragents::resource::types::{
    ClassInfo, Discovered, HandlerError, Inspection, PluginInfo, Property, ResourceView,
};
use exports::cleveragents::resource::handler::Guest;

/// The module name types use in `handler: @@MODULE@@:<Class>`.
const MODULE: &str = "@@MODULE@@";

/// Every class of this module: add a new one here too.
const CLASSES: &[&dyn Class] = &[@@CLASS_LIST@@];

/// A type file this component carries, framed as `agents` reads it: its
/// length (4 bytes, little-endian), then its text. `agents plugin add`
/// registers the types carried in the `cleveragents:resource-types`
/// custom section together with the module; other tools ignore it.
#[repr(C)]
#[allow(dead_code)] // read by `agents`, not by this code
struct TypeFile<const N: usize> {
    len: [u8; 4],
    text: [u8; N],
}

#[allow(dead_code)]
impl<const N: usize> TypeFile<N> {
    const fn new(text: [u8; N]) -> Self {
        Self {
            len: (N as u32).to_le_bytes(),
            text,
        }
    }
}

@@TYPE_EMBEDS@@
/// One class. An operation left out answers `unsupported` (for `discover`
/// and `content-hash` the host takes that as "no children" / "no hash").
trait Class {
    /// The class name, as a type's `handler:` names it.
    fn name(&self) -> &'static str;
    /// One line for `agents plugin show`.
    fn description(&self) -> &'static str;

    /// Check the registration arguments (the type's `cli_args`; `path` is
    /// canonical and readable in the sandbox) and answer the properties to
    /// store.
    fn validate(&self, args: &[Property]) -> Result<Vec<Property>, HandlerError> {
        let _ = args;
        Err(unsupported(self.name(), "validate"))
    }

    /// The children to register below `r` (one level).
    fn discover(&self, r: &ResourceView) -> Result<Vec<Discovered>, HandlerError> {
        let _ = r;
        Err(unsupported(self.name(), "discover"))
    }

    /// Any stable text that changes whenever `validate` or `discover`
    /// would answer differently (e.g. `sha256:<hex>`).
    fn content_hash(&self, r: &ResourceView) -> Result<String, HandlerError> {
        let _ = r;
        Err(unsupported(self.name(), "content-hash"))
    }

    /// Text for people and the same facts as fields, for
    /// `agents resource inspect` (of one file inside `r` when `file` is given).
    fn inspect(&self, r: &ResourceView, file: Option<&str>) -> Result<Inspection, HandlerError> {
        let _ = (r, file);
        Err(unsupported(self.name(), "inspect"))
    }
}
@@CLASSES@@
/// The registration argument `key`, or `invalid-args` naming it.
fn arg<'a>(args: &'a [Property], key: &str) -> Result<&'a str, HandlerError> {
    args.iter()
        .find(|p| p.key == key)
        .map(|p| p.value.as_str())
        .ok_or_else(|| HandlerError::InvalidArgs(format!("missing argument `{key}`")))
}

fn property(key: &str, value: impl Into<String>) -> Property {
    Property {
        key: key.to_owned(),
        value: value.into(),
    }
}

fn unsupported(class: &str, operation: &str) -> HandlerError {
    HandlerError::Unsupported(format!("{MODULE}:{class} does not implement {operation}"))
}

/// The class called `name`, or `unsupported` listing the classes there are.
fn class(name: &str) -> Result<&'static dyn Class, HandlerError> {
    CLASSES
        .iter()
        .copied()
        .find(|c| c.name() == name)
        .ok_or_else(|| {
            let names: Vec<&str> = CLASSES.iter().map(|c| c.name()).collect();
            HandlerError::Unsupported(format!(
                "{MODULE} has no class {name}; it has {}",
                names.join(", ")
            ))
        })
}

/// The contract's `handler` interface: dispatch by class name.
struct Component;

impl Guest for Component {
    fn describe() -> PluginInfo {
        PluginInfo {
            module: MODULE.to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            classes: CLASSES
                .iter()
                .map(|c| ClassInfo {
                    name: c.name().to_owned(),
                    description: c.description().to_owned(),
                })
                .collect(),
        }
    }

    fn validate(name: String, args: Vec<Property>) -> Result<Vec<Property>, HandlerError> {
        class(&name)?.validate(&args)
    }

    fn discover(name: String, r: ResourceView) -> Result<Vec<Discovered>, HandlerError> {
        class(&name)?.discover(&r)
    }

    fn content_hash(name: String, r: ResourceView) -> Result<String, HandlerError> {
        class(&name)?.content_hash(&r)
    }

    fn inspect(
        name: String,
        r: ResourceView,
        file: Option<String>,
    ) -> Result<Inspection, HandlerError> {
        class(&name)?.inspect(&r, file.as_deref())
    }
}

export!(Component);
