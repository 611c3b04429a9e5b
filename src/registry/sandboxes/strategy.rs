//! Which sandbox strategy a resource may use: a per-resource override
//! the resource can use, and a location that fits the strategy — checked
//! at registration, at import and when a sandbox is made.

use crate::model::{ResolvedType, ResourceKind, ResourceName, SandboxStrategy};
use crate::registry::ResourcesError;
use crate::registry::{RegistryError, StrategyRefusal};

/// The strategy that will sandbox the resource must fit what is at its
/// location: a directory for the copying strategies, a SQLite file for
/// `transaction_rollback`. (Checked again when a sandbox is made: the
/// location may change in between.)
pub(in crate::registry) fn check_location_fits(
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
