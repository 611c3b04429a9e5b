//! What a registration is refused for before any handler runs: a type
//! whose resources are not added by hand, a sandbox strategy the resource
//! cannot use, or a location that does not fit its strategy.

use crate::model::{ResolvedType, ResourceKind, ResourceName, SandboxStrategy, TypeName};
use crate::registry::ResourcesError;
use crate::registry::{NotAddable, RegistryError, StrategyRefusal};

/// May resources of `ty` be registered by hand?
pub(super) fn check_addable(ty: &ResolvedType) -> Result<(), RegistryError> {
    if ty.is_user_addable() {
        return Ok(());
    }
    let parents: Vec<TypeName> = ty.parent_type_names().cloned().collect();
    let reason = match (ty.kind(), parents.is_empty()) {
        (ResourceKind::Virtual, _) => NotAddable::Virtual,
        (_, false) => NotAddable::DiscoveredBelow(parents),
        (_, true) => NotAddable::DiscoveredOnly,
    };
    Err(RegistryError::Resources(ResourcesError::NotUserAddable {
        type_name: ty.name.clone(),
        reason,
    }))
}

/// The strategy that will sandbox the resource must fit what is at its
/// location: a directory for the copying strategies, a SQLite file for
/// `transaction_rollback`. (Checked again when a sandbox is made: the
/// location may change in between.)
pub(super) fn check_location_fits(
    ty: &ResolvedType,
    name: Option<&ResourceName>,
    strategy: SandboxStrategy,
    location: Option<&str>,
) -> Result<(), RegistryError> {
    let Some(location) = location else {
        return Ok(());
    };
    let refuse = |reason| bad_strategy(ty, name, strategy.as_str(), reason);
    let path = std::path::Path::new(location);
    match strategy {
        SandboxStrategy::GitWorktree | SandboxStrategy::CopyOnWrite | SandboxStrategy::Overlay => {
            if !std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
                return Err(refuse(StrategyRefusal::NeedsDirectory));
            }
        }
        SandboxStrategy::TransactionRollback => {
            crate::sandbox::check_sqlite_file(path)
                .map_err(|e| refuse(StrategyRefusal::NeedsSqliteFile(e.to_string())))?;
        }
        SandboxStrategy::None | SandboxStrategy::Inherit => {}
    }
    Ok(())
}

/// A per-resource sandbox override must be a strategy the resource can use.
pub(in crate::registry) fn check_strategy(
    ty: &ResolvedType,
    name: Option<&ResourceName>,
    text: &str,
) -> Result<SandboxStrategy, RegistryError> {
    let refuse = |reason| bad_strategy(ty, name, text, reason);
    let strategy = SandboxStrategy::parse(text).ok_or_else(|| refuse(StrategyRefusal::Unknown))?;
    if ty.kind() == ResourceKind::Virtual && strategy != SandboxStrategy::None {
        return Err(refuse(StrategyRefusal::Virtual));
    }
    if strategy == SandboxStrategy::GitWorktree
        && ty.sandbox_strategy() != SandboxStrategy::GitWorktree
        && !ty.chain.iter().any(|t| t.as_str() == "git-checkout")
    {
        return Err(refuse(StrategyRefusal::GitWorktreeNeedsCheckout));
    }
    Ok(strategy)
}

/// The refusal of `strategy` for the resource `name` of `ty`.
fn bad_strategy(
    ty: &ResolvedType,
    name: Option<&ResourceName>,
    strategy: &str,
    reason: StrategyRefusal,
) -> RegistryError {
    RegistryError::Resources(ResourcesError::BadSandboxStrategy {
        resource: name.map_or_else(|| "(unnamed)".to_owned(), ToString::to_string),
        type_name: ty.name.clone(),
        strategy: strategy.to_owned(),
        reason,
    })
}
