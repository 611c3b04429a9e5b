//! The host's rules for what `discover` answered, before anything is
//! written: a discovered child's type must be registered, allowed below
//! the parent's type (subtypes included) and — when the parent's type
//! lists discovery rules — match one; a virtual child has no location;
//! its name (`<parent name>/<suffix>`, or beside the parent for a suffix
//! `../<part>`) must be a valid resource name,
//! given once; a devcontainer's `config-path` names a regular file inside
//! its location (checked on the real filesystem, stored absolute); a
//! child whose type is not `fs-symlink`'s is not at a dangling symlink. (`plugin`
//! has already bounded the answer and checked that every location lies
//! inside the parent's.)

use crate::dag;
use crate::model::{HandlerRef, NameError, PropertyMap, ResolvedType, ResourceKind, ResourceName};
use crate::plugin::Discovered;
use crate::registry::ResourcesError;
use crate::registry::type_set::TypeSet;
use crate::registry::{ChildRefusal, Registry, RegistryError};
use crate::store::ResourceRow;
use serde_json::Value;
use std::collections::BTreeSet;

/// The name of a child `suffix` names below `parent`: `<parent>/<suffix>`,
/// or — for a suffix `../<part>` — one part beside the parent, in the
/// same place (`local/my-repo` + `../my-repo-devcontainer` →
/// `local/my-repo-devcontainer`). Nothing else may climb: `..` stays an
/// invalid name part.
fn child_name(parent: &ResourceName, suffix: &str) -> Result<ResourceName, NameError> {
    match suffix.strip_prefix("../") {
        Some(part) if !part.contains('/') => {
            let (place, _) = parent
                .as_str()
                .rsplit_once('/')
                .expect("a resource name has a namespace");
            ResourceName::parse(&format!("{place}/{part}"))
        }
        _ => ResourceName::parse(&format!("{parent}/{suffix}")),
    }
}

/// `fs-symlink`: a child of that type (or a subtype) names a link itself,
/// dangling or not, and is read as one.
fn symlink_type() -> crate::model::TypeName {
    crate::model::TypeName::parse("fs-symlink")
        .unwrap_or_else(|e| unreachable!("a built-in name: {e}"))
}

impl Registry {
    /// Check every child `handler` found below `parent` and make its row
    /// (new ids, stamped `now`, `auto_discovered`).
    pub(crate) fn child_rows(
        &self,
        types: &TypeSet,
        parent_ty: &ResolvedType,
        parent: &ResourceRow,
        handler: &HandlerRef,
        found: Vec<Discovered>,
        now: &str,
    ) -> Result<Vec<ResourceRow>, RegistryError> {
        let refuse = |index: usize, reason: ChildRefusal| {
            RegistryError::Resources(ResourcesError::ChildRefused {
                handler: handler.clone(),
                index,
                reason: Box::new(reason),
            })
        };
        let mut names = BTreeSet::new();
        let each = |(index, child)| {
            let row = self
                .child_row(types, parent_ty, parent, child, now)
                .map_err(|reason| refuse(index, reason))?;
            match &row.name {
                Some(name) if !names.insert(name.clone()) => {
                    Err(refuse(index, ChildRefusal::NameGivenTwice(name.clone())))
                }
                _ => Ok(row),
            }
        };
        found.into_iter().enumerate().map(each).collect()
    }

    /// Check one discovered child against the parent's type and make its row.
    fn child_row(
        &self,
        types: &TypeSet,
        parent_ty: &ResolvedType,
        parent: &ResourceRow,
        child: Discovered,
        now: &str,
    ) -> Result<ResourceRow, ChildRefusal> {
        let child_ty = types
            .resolve(&child.type_name)
            .map_err(|_| ChildRefusal::UnknownType(child.type_name.clone()))?;
        dag::check_link_types(parent_ty, &child_ty).map_err(ChildRefusal::NotAllowed)?;
        if let Some(discovery) = parent_ty.discovery()
            && !discovery.rules.is_empty()
            && !discovery.rules.iter().any(|r| child_ty.is_a(&r.type_name))
        {
            return Err(ChildRefusal::NoRuleMatches {
                child_type: child_ty.name.clone(),
                parent_type: parent_ty.name.clone(),
                rules: discovery
                    .rules
                    .iter()
                    .map(|r| r.type_name.clone())
                    .collect(),
            });
        }
        let kind = child_ty.kind();
        if kind == ResourceKind::Virtual && child.location.is_some() {
            return Err(ChildRefusal::VirtualWithLocation(child_ty.name.clone()));
        }
        // A child that is not a symlink must not stand on a dangling one:
        // what appears at its target later, anywhere, is what it would name.
        if let Some(location) = &child.location
            && !child_ty.is_a(&symlink_type())
            && let Some(reason) = crate::plugin::dangling_symlink(location)
        {
            return Err(ChildRefusal::DanglingSymlink {
                child_type: child_ty.name.clone(),
                location: location.clone(),
                reason,
            });
        }
        let name = match (&parent.name, &child.name) {
            (Some(parent_name), Some(suffix)) => {
                Some(child_name(parent_name, suffix).map_err(ChildRefusal::BadName)?)
            }
            _ => None,
        };
        let mut properties: PropertyMap = child
            .properties
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect();
        if child_ty.is_a(&crate::registry::devcontainer_type())
            && let Some(Value::String(path)) = properties.get("config-path")
        {
            // The host decides where the configuration is: inside the
            // devcontainer's own location, on the real filesystem.
            let root = child
                .location
                .as_deref()
                .or(parent.location.as_deref())
                .ok_or_else(|| {
                    ChildRefusal::ConfigPath(format!(
                        "config-path {} names a file, but the devcontainer has no location",
                        crate::text::quote(path)
                    ))
                })?;
            let real = crate::devcontainer::config_inside(std::path::Path::new(root), path)
                .map_err(ChildRefusal::ConfigPath)?;
            properties.insert(
                "config-path".into(),
                Value::String(real.display().to_string()),
            );
        }
        let id = self.ids.next_id(self.clock.now());
        Ok(ResourceRow {
            location: child.location,
            auto_discovered: true,
            content_hash: child.content_hash,
            properties,
            registered_by: Some(self.actor.clone()),
            ..ResourceRow::new(id, name, child_ty.name.clone(), kind, now)
        })
    }

    /// [`Registry::child_rows`] on `found` as though the resource `parent`
    /// (of type `parent_type`, at `location`) had been answered it: the
    /// hook of the fuzz target for these checks (`fuzz/`), built only with
    /// the `test-support` feature and not an API. Nothing is written; the
    /// answer is the names the children would get.
    #[cfg(any(test, feature = "test-support"))]
    pub fn fuzz_child_rows(
        &self,
        parent_type: &str,
        parent: Option<ResourceName>,
        location: Option<String>,
        found: Vec<Discovered>,
    ) -> Result<Vec<Option<ResourceName>>, RegistryError> {
        let types = self.store.read(|r| self.types.get(r))?;
        let parent_ty = types.find(parent_type)?;
        let handler = match parent_ty.handler_ref() {
            Some(h) => h.clone(),
            None => HandlerRef::parse("fuzz:Fuzz").expect("a valid reference"),
        };
        let now = self.now();
        let id = self.ids.next_id(self.clock.now());
        let row = ResourceRow {
            location,
            ..ResourceRow::new(id, parent, parent_ty.name.clone(), parent_ty.kind(), &now)
        };
        let rows = self.child_rows(&types, &parent_ty, &row, &handler, found, &now)?;
        Ok(rows.into_iter().map(|r| r.name).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::child_name;
    use crate::model::ResourceName;

    #[test]
    fn a_child_is_named_below_its_parent_or_one_part_beside_it() {
        let parent = ResourceName::parse("local/my-repo").unwrap();
        let named = |s: &str| child_name(&parent, s).map(|n| n.to_string());
        assert_eq!(named("git").unwrap(), "local/my-repo/git");
        assert_eq!(
            named("../my-repo-devcontainer").unwrap(),
            "local/my-repo-devcontainer"
        );
        let deep = ResourceName::parse("local/a/b").unwrap();
        assert_eq!(child_name(&deep, "../c").unwrap().to_string(), "local/a/c");
        // Nothing climbs further, and the namespace is never left.
        assert!(named("../x/y").is_err());
        assert!(named("../../x").is_err());
        assert!(named("..").is_err());
        assert!(child_name(&parent, "../").is_err());
    }
}
