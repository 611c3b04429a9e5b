//! Virtual identities: the one home of the rule that decides when two
//! physical resources are the same thing, driven by each virtual type's
//! `equivalence` (`links`: the physical types it joins; `match`: the
//! property keys whose equal values make them equivalent).
//!
//! When two or more resources of the linked types (subtypes included)
//! agree on every `match` property, the registry keeps exactly one
//! resource of the virtual type for that identity — named
//! `identity/<virtual type>/<12 hex digits of the key's sha256>`, holding
//! the key's values as properties — linked to each member by a *derived*
//! link. [`reconcile`] brings the identities in line with the members in
//! the caller's transaction, after every write that can change members
//! (registration, discovery, refresh, removal): a member that stops
//! matching is unlinked, an identity left with fewer than two members
//! goes, and running it twice changes nothing. Derived links never keep a
//! member alive (see `dag::removal` and `store::links`).

use super::RegistryError;
use super::type_set::TypeSet;
use crate::model::{ResourceId, ResourceKind, ResourceName, TypeName};
use crate::store::{ResourceRow, Writer};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The namespace identities are named in.
pub const IDENTITY_NAMESPACE: &str = "identity";

/// Bring every virtual identity in line with its members' properties.
/// `new_id` makes the id of an identity created now.
pub(super) fn reconcile(
    w: &Writer<'_>,
    types: &TypeSet,
    new_id: &dyn Fn() -> ResourceId,
    now: &str,
) -> Result<(), RegistryError> {
    for virtual_type in virtual_types(types)? {
        let ty = types.resolve(&virtual_type)?;
        let Some(eq) = ty.equivalence_config() else {
            continue;
        };
        let members_of: Vec<TypeName> = member_types(types, &eq.links)?;
        // The match keys, then the `where` keys: a member must have them all.
        let keys: Vec<String> = eq
            .match_on
            .iter()
            .chain(eq.filter.keys())
            .cloned()
            .collect();
        let mut groups: BTreeMap<Vec<String>, Vec<ResourceId>> = BTreeMap::new();
        for (id, mut key) in w.resources_with_properties(&members_of, &keys)? {
            let selected: Vec<Option<String>> = key
                .split_off(eq.match_on.len())
                .into_iter()
                .map(Some)
                .collect();
            if eq.admits(&selected) {
                groups.entry(key).or_default().push(id);
            }
        }
        groups.retain(|_, members| members.len() >= 2);
        // The identities there are, by their key.
        let mut existing: BTreeMap<Vec<String>, ResourceRow> = w
            .resources(Some(std::slice::from_ref(&virtual_type)))?
            .into_iter()
            .map(|row| (key_of(&row, &eq.match_on), row))
            .collect();
        // Every identity's members, in one read.
        let mut linked: BTreeMap<ResourceId, BTreeSet<ResourceId>> = BTreeMap::new();
        for (identity, member) in w.derived_links_of_type(&virtual_type)? {
            linked.entry(identity).or_default().insert(member);
        }
        for (key, members) in &groups {
            let identity = match existing.remove(key) {
                Some(row) => row.id,
                None => {
                    let row = identity_row(&virtual_type, &eq.match_on, key, new_id(), now)?;
                    w.insert_resource(&row)?;
                    row.id
                }
            };
            let current = linked.remove(&identity).unwrap_or_default();
            let wanted: BTreeSet<ResourceId> = members.iter().copied().collect();
            for gone in current.difference(&wanted) {
                w.delete_link(identity, *gone)?;
            }
            for new in wanted.difference(&current) {
                w.insert_derived_link(identity, *new, now)?;
            }
        }
        let orphans: Vec<ResourceId> = existing.values().map(|row| row.id).collect();
        w.delete_resources(&orphans)?;
    }
    Ok(())
}

/// The types that declare an equivalence.
fn virtual_types(types: &TypeSet) -> Result<Vec<TypeName>, RegistryError> {
    let mut out = Vec::new();
    for row in types.rows() {
        let ty = types.resolve(&row.spec.name)?;
        if ty.kind() == ResourceKind::Virtual && ty.equivalence_config().is_some() {
            out.push(ty.name.clone());
        }
    }
    Ok(out)
}

/// `links` and every subtype of them.
fn member_types(types: &TypeSet, links: &[TypeName]) -> Result<Vec<TypeName>, RegistryError> {
    let mut out = Vec::new();
    for row in types.rows() {
        let ty = types.resolve(&row.spec.name)?;
        if links.iter().any(|l| ty.is_a(l)) {
            out.push(ty.name.clone());
        }
    }
    Ok(out)
}

/// The key an identity stands for, from its properties.
fn key_of(row: &ResourceRow, match_on: &[String]) -> Vec<String> {
    match_on
        .iter()
        .map(|k| match row.properties.get(k) {
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
            None => String::new(),
        })
        .collect()
}

/// A new identity for `key`.
fn identity_row(
    virtual_type: &TypeName,
    match_on: &[String],
    key: &[String],
    id: ResourceId,
    now: &str,
) -> Result<ResourceRow, RegistryError> {
    let digest = crate::digest::sha256_hex(key.join("\0").as_bytes());
    let name = ResourceName::parse(&format!(
        "{IDENTITY_NAMESPACE}/{virtual_type}/{}",
        &digest[..12]
    ))?;
    Ok(ResourceRow {
        id,
        name: Some(name),
        type_name: virtual_type.clone(),
        kind: ResourceKind::Virtual,
        location: None,
        description: None,
        read_only: true,
        auto_discovered: true,
        sandbox_strategy: None,
        content_hash: None,
        properties: match_on
            .iter()
            .cloned()
            .zip(key.iter().cloned().map(Value::String))
            .collect(),
        created_at: now.to_owned(),
        updated_at: now.to_owned(),
        discovered_at: None,
        stale: None,
    })
}
