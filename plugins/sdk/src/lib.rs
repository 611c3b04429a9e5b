//! `resource-handler-sdk`: write a resource handler component for
//! `resource-host` without touching the WIT bindings.
//!
//! This crate is the one home of the guest side of the contract in
//! `wit/v0.2.0/` (the same files the host's `bindgen!` reads; the SDK
//! follows the newest contract version). An author writes one
//! [`Handler`] impl per class and names them all in one
//! [`export_plugin!`]; the macro generates the `describe` answer and the
//! dispatch by class name (an unknown class answers `unsupported`, naming
//! the classes that exist). Operations a class does not implement answer
//! `unsupported` through the trait's default methods.
//!
//! ```ignore
//! use resource_handler_sdk::{Handler, HandlerError, Props, Property};
//!
//! pub struct PythonPackageHandler;
//!
//! impl Handler for PythonPackageHandler {
//!     const DESCRIPTION: &'static str = "A Python package directory";
//!     fn validate(args: &Props) -> Result<Vec<Property>, HandlerError> {
//!         let path = args.require("path")?;
//!         Ok(vec![Property::new("path", path)])
//!     }
//! }
//!
//! resource_handler_sdk::export_plugin!(
//!     module: "myteam.python",
//!     version: env!("CARGO_PKG_VERSION"),
//!     classes: [PythonPackageHandler],
//! );
//! ```
//!
//! Every call runs in a fresh sandbox: a handler keeps no state between
//! calls, which is why the trait's methods take no `self`.

extern crate self as resource_handler_sdk;

pub mod log;
mod names;
mod props;

pub use names::{name_of_bytes, name_part, name_path};
pub use props::Props;

#[doc(hidden)]
pub mod bindings {
    wit_bindgen::generate!({
        path: "../../wit/v0.2.0",
        world: "resource-handler",
        pub_export_macro: true,
        export_macro_name: "__export_resource_handler_world",
        default_bindings_module: "resource_handler_sdk::bindings",
        runtime_path: "resource_handler_sdk::__private::wit_bindgen::rt",
    });
}

pub use bindings::cleveragents::resource::types::{
    ClassInfo, Discovered, HandlerError, Inspection, PluginInfo, Property, ResourceView,
};

/// Read-only facts about the git repository that contains the call's
/// location, answered by the host (`git::references()`, `git::head()`,
/// `git::read_commit(id)`, …). The host picks the repository: a handler
/// cannot name another one. See the contract, `wit/v0.2.0/resource.wit`.
pub mod git {
    pub use crate::bindings::cleveragents::resource::git::*;

    impl From<GitError> for crate::HandlerError {
        /// A git answer that is not there, as a handler error: no
        /// repository or no such object is `not-found`, a malformed
        /// request `invalid-args`, the rest `failed`.
        fn from(e: GitError) -> Self {
            match e {
                GitError::NotARepository(m) | GitError::NotFound(m) => {
                    crate::HandlerError::NotFound(m)
                }
                GitError::Invalid(m) => crate::HandlerError::InvalidArgs(m),
                GitError::Failed(m) => crate::HandlerError::Failed(m),
            }
        }
    }
}

/// Facts the host answers about the call's location that the sandbox
/// cannot see itself.
pub mod host {
    /// Is the call's location a mount point?
    pub fn location_is_mount_point() -> bool {
        crate::bindings::cleveragents::resource::host::location_is_mount_point()
    }

    pub use crate::bindings::cleveragents::resource::host::{DirEntry, EntryStat};

    /// `lstat` of `path` inside the call's location (mode, links, inode,
    /// device, size, modification time), if it exists there.
    pub fn lstat(path: &str) -> Option<EntryStat> {
        crate::bindings::cleveragents::resource::host::lstat(path)
    }

    /// The entries of the directory `path` inside the call's location,
    /// each with its `lstat`, sorted by name, symlinks not followed: one
    /// host call for a whole directory. Names that are not UTF-8 are left
    /// out; more than 100,000 entries is an error (list through WASI then).
    pub fn read_dir(path: &str) -> Result<Vec<DirEntry>, String> {
        crate::bindings::cleveragents::resource::host::read_dir(path)
    }

    /// `sha256:<hex>` of the regular file `path` inside the call's
    /// location, read and hashed by the host (several times faster than
    /// through WASI); an error when it is not a regular file there or is
    /// larger than 64 MiB.
    pub fn sha256_file(path: &str) -> Result<String, String> {
        crate::bindings::cleveragents::resource::host::sha256_file(path)
    }
}

/// One class of a handler component. Implement the operations the class
/// supports; the others answer `unsupported`.
pub trait Handler {
    /// One line for `agents plugin show`.
    const DESCRIPTION: &'static str = "";

    /// Check and normalise registration arguments into the properties the
    /// resource is stored with. Refuse with [`HandlerError::InvalidArgs`].
    fn validate(args: &Props) -> Result<Vec<Property>, HandlerError> {
        let _ = args;
        Err(unsupported("validate"))
    }

    /// The children to register under `r` (one level).
    fn discover(r: &ResourceView) -> Result<Vec<Discovered>, HandlerError> {
        let _ = r;
        Err(unsupported("discover"))
    }

    /// A stable hash of `r`'s contents (e.g. `sha256:<hex>`).
    fn content_hash(r: &ResourceView) -> Result<String, HandlerError> {
        let _ = r;
        Err(unsupported("content-hash"))
    }

    /// A description of `r`, or of `file` (relative to its location):
    /// text for people and the same facts as fields. Build it with
    /// [`Inspection::field`] (a fact: a line and a field) and
    /// [`Inspection::line`] (text only), or from text alone
    /// (`Ok(text.into())`).
    fn inspect(r: &ResourceView, file: Option<&str>) -> Result<Inspection, HandlerError> {
        let _ = (r, file);
        Err(unsupported("inspect"))
    }
}

/// The answer of an operation a class does not implement.
pub fn unsupported(operation: &str) -> HandlerError {
    HandlerError::Unsupported(format!("this class does not implement {operation}"))
}

impl Property {
    pub fn new(key: impl Into<String>, value: impl Into<String>) -> Self {
        Self {
            key: key.into(),
            value: value.into(),
        }
    }
}

impl ResourceView {
    /// The resource's location, or `invalid-args` if it has none.
    pub fn location(&self) -> Result<&str, HandlerError> {
        self.location.as_deref().ok_or_else(|| {
            HandlerError::InvalidArgs(format!("resource {} has no location", self.label()))
        })
    }

    /// The value of property `key`, if the resource has it.
    pub fn property(&self, key: &str) -> Option<&str> {
        self.properties
            .iter()
            .find(|p| p.key == key)
            .map(|p| p.value.as_str())
    }

    /// The properties as a map.
    pub fn props(&self) -> Props {
        Props::from(self.properties.clone())
    }

    /// The name if it has one, else the id: how messages refer to it.
    pub fn label(&self) -> &str {
        self.name.as_deref().unwrap_or(&self.id)
    }
}

impl Inspection {
    /// Nothing yet.
    pub fn new() -> Self {
        Self {
            text: String::new(),
            fields: Vec::new(),
        }
    }

    /// A fact: the line `key value` for people and the field `key` =
    /// `value` for `-o json`. Keys must be unique.
    pub fn field(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        let (key, value) = (key.into(), value.into());
        self.text.push_str(&format!(
            "{key} {value}
"
        ));
        self.fields.push(Property::new(key, value));
        self
    }

    /// A field that is not shown as its own line (the text says it
    /// another way, e.g. two facts on one [`line`](Self::line)).
    pub fn data(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.fields.push(Property::new(key, value));
        self
    }

    /// A line of text for people only.
    pub fn line(mut self, text: impl AsRef<str>) -> Self {
        self.text.push_str(text.as_ref());
        self.text.push('\n');
        self
    }
}

impl Default for Inspection {
    fn default() -> Self {
        Self::new()
    }
}

impl From<String> for Inspection {
    /// Text alone, no fields.
    fn from(text: String) -> Self {
        Self {
            text,
            fields: Vec::new(),
        }
    }
}

impl From<&str> for Inspection {
    fn from(text: &str) -> Self {
        Self::from(text.to_owned())
    }
}

impl Discovered {
    /// A child of type `type_name` with no name, location or properties yet.
    pub fn new(type_name: impl Into<String>) -> Self {
        Self {
            type_name: type_name.into(),
            name: None,
            location: None,
            properties: Vec::new(),
            content_hash: None,
        }
    }

    /// Its name below the parent's: `src` → `local/pkg/src`; `../x` names
    /// it beside the parent (`local/pkg` + `../pkg-extra` →
    /// `local/pkg-extra`).
    pub fn named(mut self, suffix: impl Into<String>) -> Self {
        self.name = Some(suffix.into());
        self
    }

    pub fn at(mut self, location: impl Into<String>) -> Self {
        self.location = Some(location.into());
        self
    }

    pub fn with_property(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.properties.push(Property::new(key, value));
        self
    }

    /// The child's content hash, when the handler knows it already (so the
    /// host need not ask the child's own handler for it).
    pub fn with_hash(mut self, hash: impl Into<String>) -> Self {
        self.content_hash = Some(hash.into());
        self
    }
}

/// Export a component made of the named [`Handler`] classes.
///
/// `module` is the name types use in `handler: module:Class`; `version` is
/// the module's own version; each class is a type in scope implementing
/// [`Handler`], and its Rust name is its class name. Invoke once per crate.
#[macro_export]
macro_rules! export_plugin {
    (module: $module:expr, version: $version:expr, classes: [$($class:ident),+ $(,)?] $(,)?) => {
        const _: () = {
            use $crate::__private::Guest;
            const __CLASSES: &[&str] = &[$(stringify!($class)),+];

            struct __ResourceHandlerPlugin;

            impl Guest for __ResourceHandlerPlugin {
                fn describe() -> $crate::PluginInfo {
                    $crate::PluginInfo {
                        module: ::std::string::String::from($module),
                        version: ::std::string::String::from($version),
                        classes: ::std::vec![$($crate::ClassInfo {
                            name: ::std::string::String::from(stringify!($class)),
                            description: ::std::string::String::from(
                                <$class as $crate::Handler>::DESCRIPTION,
                            ),
                        }),+],
                    }
                }

                fn validate(
                    class: ::std::string::String,
                    args: ::std::vec::Vec<$crate::Property>,
                ) -> ::std::result::Result<::std::vec::Vec<$crate::Property>, $crate::HandlerError> {
                    let args = $crate::Props::from(args);
                    $(if class == stringify!($class) {
                        return <$class as $crate::Handler>::validate(&args);
                    })+
                    Err($crate::__private::unknown_class(&class, __CLASSES))
                }

                fn discover(
                    class: ::std::string::String,
                    r: $crate::ResourceView,
                ) -> ::std::result::Result<::std::vec::Vec<$crate::Discovered>, $crate::HandlerError> {
                    $(if class == stringify!($class) {
                        return <$class as $crate::Handler>::discover(&r);
                    })+
                    Err($crate::__private::unknown_class(&class, __CLASSES))
                }

                fn content_hash(
                    class: ::std::string::String,
                    r: $crate::ResourceView,
                ) -> ::std::result::Result<::std::string::String, $crate::HandlerError> {
                    $(if class == stringify!($class) {
                        return <$class as $crate::Handler>::content_hash(&r);
                    })+
                    Err($crate::__private::unknown_class(&class, __CLASSES))
                }

                fn inspect(
                    class: ::std::string::String,
                    r: $crate::ResourceView,
                    file: ::std::option::Option<::std::string::String>,
                ) -> ::std::result::Result<$crate::Inspection, $crate::HandlerError> {
                    $(if class == stringify!($class) {
                        return <$class as $crate::Handler>::inspect(&r, file.as_deref());
                    })+
                    Err($crate::__private::unknown_class(&class, __CLASSES))
                }
            }

            $crate::bindings::__export_resource_handler_world!(__ResourceHandlerPlugin);
        };
    };
}

/// The custom section a component carries its type files in: each file
/// framed as its length (4 bytes, little-endian) then its UTF-8 text, so
/// the sections the linker concatenates stay readable one file at a time.
/// `agents plugin add` registers them with the module; any other tool sees
/// an ordinary component.
pub const TYPES_SECTION: &str = "cleveragents:resource-types";

/// Embed type files (YAML, paths relative to the file invoking the macro)
/// in the component, so the one `.wasm` brings its handler and the types
/// naming its classes: `agents plugin add` (and `agents plugin install`)
/// registers them with the module.
///
/// ```ignore
/// resource_handler_sdk::embed_types!("../python-package.yaml");
/// ```
#[macro_export]
macro_rules! embed_types {
    ($($path:literal),+ $(,)?) => {
        $(
            const _: () = {
                #[repr(C)]
                struct __TypeFile<const N: usize> {
                    len: [u8; 4],
                    text: [u8; N],
                }
                // The section's name is `TYPES_SECTION`'s (an attribute
                // takes a literal only).
                #[cfg(target_arch = "wasm32")]
                #[used]
                #[unsafe(link_section = "cleveragents:resource-types")]
                static __TYPE_FILE: __TypeFile<{ include_bytes!($path).len() }> = __TypeFile {
                    len: (include_bytes!($path).len() as u32).to_le_bytes(),
                    text: *include_bytes!($path),
                };
            };
        )+
    };
}

#[doc(hidden)]
pub mod __private {
    pub use crate::bindings::exports::cleveragents::resource::handler::Guest;
    pub use wit_bindgen;

    /// The answer for a class this component does not provide.
    pub fn unknown_class(class: &str, classes: &[&str]) -> crate::HandlerError {
        crate::HandlerError::Unsupported(format!(
            "this module has no class {class:?}; it provides: {}",
            classes.join(", ")
        ))
    }
}
