//! The versions of the handler contract this host serves: the one home of
//! which WIT packages exist, which one is current, and how a call reaches
//! a component built against any of them.
//!
//! The contract lives in `wit/v<version>/` (one directory per version, as
//! Zed's extension host keeps `since_v0_x_y`); each version has one
//! bindings module here (`v0_1_0`) generated from its directory and
//! converting between its generated types and the plain mirrors in
//! `types`. A version is never edited once released: a change is a new
//! directory and a new module, and every older version keeps loading and
//! running (a test pins `0.1.0` with a component built from
//! `wit/v0.1.0`).
//!
//! Everything version-specific sits behind [`HandlerPre::call`]: one
//! [`Call`] in, one [`Answer`] out, so `call` and `runtime` never name a
//! generated type.

/// The conversions between a version's generated types and the plain
/// mirrors that read the same in every version so far: each version's
/// `wit` types are distinct Rust types, so the bodies are stamped into
/// each bindings module (where `wit` names its generated types) rather
/// than written out again. A version whose types differ writes its own.
macro_rules! plain_conversions {
    () => {
        fn properties_to_wit(props: &[(String, String)]) -> Vec<wit::Property> {
            props
                .iter()
                .map(|(key, value)| wit::Property {
                    key: key.clone(),
                    value: value.clone(),
                })
                .collect()
        }

        fn properties_from_wit(props: Vec<wit::Property>) -> Vec<(String, String)> {
            props.into_iter().map(|p| (p.key, p.value)).collect()
        }

        fn view_to_wit(view: &ResourceView) -> wit::ResourceView {
            wit::ResourceView {
                id: view.id.clone(),
                name: view.name.clone(),
                type_name: view.type_name.clone(),
                location: view.location.clone(),
                properties: properties_to_wit(&view.properties),
            }
        }

        fn child(d: wit::Discovered) -> RawChild {
            RawChild {
                type_name: d.type_name,
                name: d.name,
                location: d.location,
                properties: properties_from_wit(d.properties),
                content_hash: d.content_hash,
            }
        }

        fn info(info: wit::PluginInfo) -> RawInfo {
            RawInfo {
                module: info.module,
                version: info.version,
                classes: info
                    .classes
                    .into_iter()
                    .map(|c| (c.name, c.description))
                    .collect(),
            }
        }

        fn error(e: wit::HandlerError) -> HandlerError {
            match e {
                wit::HandlerError::InvalidArgs(m) => HandlerError::InvalidArgs(m),
                wit::HandlerError::NotFound(m) => HandlerError::NotFound(m),
                wit::HandlerError::Unsupported(m) => HandlerError::Unsupported(m),
                wit::HandlerError::Io(m) => HandlerError::Io(m),
                wit::HandlerError::Failed(m) => HandlerError::Failed(m),
            }
        }
    };
}
use plain_conversions;

pub(crate) mod v0_1_0;
pub(crate) mod v0_2_0;

use super::error::PluginError;
use super::sandbox::CallState;
use super::types::{HandlerError, Operation, RawChild, RawInfo, ResourceView};
use super::version::ContractVersion;
use wasmtime::Store;
use wasmtime::component::{InstancePre, Linker};

/// Add what every served version imports from the host (its `host`
/// interface) to `linker`.
pub(crate) fn add_to_linker(linker: &mut Linker<CallState>) -> wasmtime::Result<()> {
    v0_1_0::add_to_linker(linker)?;
    v0_2_0::add_to_linker(linker)
}

/// One operation, with its arguments as plain data.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Call<'a> {
    Describe,
    Validate {
        class: &'a str,
        args: &'a [(String, String)],
    },
    Discover {
        class: &'a str,
        view: &'a ResourceView,
    },
    ContentHash {
        class: &'a str,
        view: &'a ResourceView,
    },
    Inspect {
        class: &'a str,
        view: &'a ResourceView,
        file: Option<&'a str>,
    },
}

impl Call<'_> {
    pub fn operation(&self) -> Operation {
        match self {
            Self::Describe => Operation::Describe,
            Self::Validate { .. } => Operation::Validate,
            Self::Discover { .. } => Operation::Discover,
            Self::ContentHash { .. } => Operation::ContentHash,
            Self::Inspect { .. } => Operation::Inspect,
        }
    }
}

/// What an operation answered, as plain data, not yet checked.
#[derive(Debug)]
pub(crate) enum Answer {
    Info(RawInfo),
    Properties(Result<Vec<(String, String)>, HandlerError>),
    Children(Result<Vec<RawChild>, HandlerError>),
    Text(Result<String, HandlerError>),
    /// `inspect`'s text and fields.
    Inspection(Result<(String, Vec<(String, String)>), HandlerError>),
}

/// A component prepared for instantiation, in the version it was built for.
#[derive(Clone)]
pub(crate) enum HandlerPre {
    V0_1_0(v0_1_0::ResourceHandlerPre<CallState>),
    V0_2_0(v0_2_0::ResourceHandlerPre<CallState>),
}

impl HandlerPre {
    /// Bind `pre` as a component of `version` (refused when its exports
    /// do not have that version's signatures).
    pub fn new(version: ContractVersion, pre: InstancePre<CallState>) -> Result<Self, PluginError> {
        let wrong = |e: wasmtime::Error| PluginError::WrongWorld {
            found: vec![format!(
                "{} with other signatures ({e:#})",
                version.handler_export()
            )],
        };
        match version {
            ContractVersion::V0_1_0 => v0_1_0::ResourceHandlerPre::new(pre)
                .map(Self::V0_1_0)
                .map_err(wrong),
            ContractVersion::V0_2_0 => v0_2_0::ResourceHandlerPre::new(pre)
                .map(Self::V0_2_0)
                .map_err(wrong),
        }
    }

    pub fn version(&self) -> ContractVersion {
        match self {
            Self::V0_1_0(_) => ContractVersion::V0_1_0,
            Self::V0_2_0(_) => ContractVersion::V0_2_0,
        }
    }

    /// Instantiate in `store` and run `call`.
    pub async fn call(
        &self,
        store: &mut Store<CallState>,
        call: Call<'_>,
    ) -> wasmtime::Result<Answer> {
        match self {
            Self::V0_1_0(pre) => v0_1_0::call(pre, store, call).await,
            Self::V0_2_0(pre) => v0_2_0::call(pre, store, call).await,
        }
    }
}
