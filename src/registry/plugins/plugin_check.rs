//! Accepting a plugin file: the one home of what `agents plugin add`
//! checks before the registry's own rules, and of `agents plugin check`,
//! which runs exactly those checks without a registry.
//!
//! Both go through [`accept`]: the file is read, the runtime accepts it
//! (WebAssembly, a component, a served contract version, imports the
//! sandbox satisfies, a sound `describe()` answer — see
//! [`PluginRuntime::accept`]) and the module it will be registered under
//! must not be reserved. So a file `check` passes is one `add` accepts,
//! except for what only a registry knows (a module of that name already
//! added, a replacement dropping a class a type uses), and a refusal reads
//! word for word the same: `cannot add plugin FILE: …`.

use crate::model::{ModuleName, TypeName};
use crate::plugin::{Accepted, ClassInfo, ContractVersion, Limits, PluginRuntime, carried_types};
use crate::registry::PluginsError;
use crate::registry::RegistryError;
use crate::registry::plugins::carried_types::CarriedTypes;
use serde::Serialize;
use std::path::Path;

/// A file that passed [`accept`]: its bytes, the module it will be
/// registered under, what the runtime found, and the type files it
/// carries (parsed, bound to the module).
#[derive(Debug)]
pub(crate) struct Acceptance {
    pub bytes: Vec<u8>,
    pub module: ModuleName,
    pub accepted: Accepted,
    pub types: CarriedTypes,
}

/// Read `path` and accept it as a plugin registered under `module` (else
/// the name it reports).
pub(crate) fn accept(
    runtime: &PluginRuntime,
    path: &Path,
    module: Option<&ModuleName>,
) -> Result<Acceptance, RegistryError> {
    let bytes = crate::user_files::read(path, crate::user_files::InputKind::PluginComponent)?;
    accept_bytes(runtime, bytes, path, module)
}

/// [`accept`] for bytes already in hand (a pulled artifact's layer);
/// `shown` names them in a refusal.
pub(crate) fn accept_bytes(
    runtime: &PluginRuntime,
    bytes: Vec<u8>,
    shown: &Path,
    module: Option<&ModuleName>,
) -> Result<Acceptance, RegistryError> {
    let accepted = runtime
        .accept(&bytes)
        .map_err(|source| PluginsError::PluginRefused {
            path: shown.to_owned(),
            source,
        })?;
    let module = module.unwrap_or(&accepted.info.module).clone();
    let checked = (|| {
        if module.is_reserved() {
            return Err(PluginsError::ReservedModule {
                module: module.clone(),
            }
            .into());
        }
        let files = carried_types(&bytes).map_err(|source| PluginsError::CarriedTypes {
            module: module.clone(),
            source,
        })?;
        if module != accepted.info.module && !files.is_empty() {
            // Its types name the module it reports; added under another
            // name, they would name nothing: they are left out, not
            // rewritten.
            log::warn!(
                "{} is added as {module}, not as the {} it reports: the {} type file(s) it \
                 carries name {} and are not registered",
                shown.display(),
                accepted.info.module,
                files.len(),
                accepted.info.module
            );
            return Ok(CarriedTypes::default());
        }
        CarriedTypes::parse(&module, &files)
    })();
    // Accepting compiled it into the cache: on a refusal nothing will use that.
    let types = checked.inspect_err(|_| runtime.forget_compiled(&accepted.sha256))?;
    Ok(Acceptance {
        bytes,
        module,
        accepted,
        types,
    })
}

/// What `agents plugin check` reports: every fact `plugin add` checked.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PluginCheckView {
    /// The file as given.
    pub file: String,
    pub sha256: String,
    pub size_bytes: u64,
    /// The module it would be added as.
    pub module: ModuleName,
    /// The module's own version (from `describe()`).
    pub version: String,
    /// The contract version it was built against (`0.2.0`).
    pub contract: String,
    /// Whether that is the newest version this binary serves.
    pub contract_current: bool,
    /// The contract interface it exports (`cleveragents:resource/handler@0.2.0`).
    pub exports: String,
    /// What it imports; the sandbox provides each.
    pub imports: Vec<String>,
    pub classes: Vec<ClassInfo>,
    /// The types it carries (`plugin add` registers them with it).
    pub types: Vec<TypeName>,
    /// Milliseconds spent compiling it (what its first `plugin add` costs).
    pub compile_ms: u64,
    /// The compiler that compiled it (`Winch` for a big component where
    /// the build has it, else `Cranelift`).
    pub compiler: String,
}

/// Check the component at `path` as `agents plugin add` would, in a
/// runtime of its own without a compile cache: no home, no registry,
/// nothing written.
pub fn check_plugin(
    path: &Path,
    module: Option<&ModuleName>,
    limits: Limits,
) -> Result<PluginCheckView, RegistryError> {
    let runtime = PluginRuntime::without_cache(limits);
    let Acceptance {
        bytes,
        module,
        accepted,
        types,
    } = accept(&runtime, path, module)?;
    let contract = accepted.info.contract;
    Ok(PluginCheckView {
        file: path.display().to_string(),
        sha256: accepted.sha256,
        size_bytes: bytes.len() as u64,
        module,
        version: accepted.info.version,
        contract: contract.as_str().to_owned(),
        contract_current: contract == ContractVersion::CURRENT,
        exports: contract.handler_export().to_owned(),
        imports: accepted.imports,
        classes: accepted.info.classes,
        types: types.names(),
        compile_ms: u64::try_from(accepted.compile_time.as_millis()).unwrap_or(u64::MAX),
        compiler: accepted.compiler.name().to_owned(),
    })
}
