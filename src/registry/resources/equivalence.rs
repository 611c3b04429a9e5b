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
//! (registration, discovery, refresh, removal) — only for the virtual
//! types whose member types the transaction wrote (the store records
//! which; a registry with 10,000 file identities would otherwise pay a
//! full pass on every write) — : a member that stops
//! matching is unlinked, an identity left with fewer than two members
//! goes, and running it twice changes nothing. Derived links never keep a
//! member alive (see `dag::removal` and `store::links`).

use crate::model::{ResolvedType, ResourceId, ResourceKind, ResourceName, TypeName};
use crate::registry::RegistryError;
use crate::registry::type_set::TypeSet;
use crate::store::{ResourceRow, Writer};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The namespace identities are named in.
pub const IDENTITY_NAMESPACE: &str = "identity";

/// Bring every virtual identity in line with its members' properties.
/// `new_id` makes the id of an identity created now.
pub(crate) fn reconcile(
    w: &Writer<'_>,
    types: &TypeSet,
    new_id: &dyn Fn() -> ResourceId,
    now: &str,
) -> Result<(), RegistryError> {
    // Only what this transaction wrote can have changed a group: a virtual
    // type none of whose member types was written is left as it is.
    let written = w.written_types()?;
    for virtual_type in virtual_types(types)? {
        let ty = types.resolve(&virtual_type)?;
        let Some(eq) = ty.equivalence_config() else {
            continue;
        };
        let members_of: Vec<TypeName> = member_types(types, &eq.links)?;
        if !members_of.iter().any(|t| written.contains(t.as_str())) {
            continue;
        }
        // The match keys, then the `where` keys: a member must have them all.
        let keys: Vec<String> = eq
            .match_on
            .iter()
            .chain(eq.filter.keys())
            .cloned()
            .collect();
        let mut groups: BTreeMap<Vec<String>, Vec<ResourceId>> = BTreeMap::new();
        for (id, mut values) in w.resources_with_properties(&members_of, &keys)? {
            let selected = values.split_off(eq.match_on.len());
            let key: Option<Vec<String>> = values.into_iter().collect();
            if let Some(key) = key
                && eq.admits(&selected)
            {
                groups.entry(key).or_default().push(id);
            }
        }
        groups.retain(|_, members| members.len() >= 2);
        // The identities there are, by their key (read as the members are:
        // only the key's properties, not whole rows). One missing a key
        // (made under an older `match`) stands for nothing now: it goes.
        let mut existing: BTreeMap<Vec<String>, ResourceId> = BTreeMap::new();
        let mut orphans: Vec<ResourceId> = Vec::new();
        for (id, values) in
            w.resources_with_properties(std::slice::from_ref(&virtual_type), &eq.match_on)?
        {
            match values.into_iter().collect::<Option<Vec<String>>>() {
                Some(key) => {
                    existing.insert(key, id);
                }
                None => orphans.push(id),
            }
        }
        // Every identity's members, in one read.
        let mut linked: BTreeMap<ResourceId, BTreeSet<ResourceId>> = BTreeMap::new();
        for (identity, member) in w.derived_links_of_type(&virtual_type)? {
            linked.entry(identity).or_default().insert(member);
        }
        for (key, members) in &groups {
            let identity = match existing.remove(key) {
                Some(id) => id,
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
        orphans.extend(existing.into_values());
        w.delete_resources(&orphans)?;
    }
    w.forget_written_types()?;
    Ok(())
}

/// The types that declare an equivalence.
fn virtual_types(types: &TypeSet) -> Result<Vec<TypeName>, RegistryError> {
    types_where(types, |ty| {
        ty.kind() == ResourceKind::Virtual && ty.equivalence_config().is_some()
    })
}

/// `links` and every subtype of them.
fn member_types(types: &TypeSet, links: &[TypeName]) -> Result<Vec<TypeName>, RegistryError> {
    types_where(types, |ty| links.iter().any(|l| ty.is_a(l)))
}

/// The names of the types `wanted` accepts, in the set's order.
fn types_where(
    types: &TypeSet,
    wanted: impl Fn(&ResolvedType) -> bool,
) -> Result<Vec<TypeName>, RegistryError> {
    let mut out = Vec::new();
    for row in types.rows() {
        let ty = types.resolve(&row.spec.name)?;
        if wanted(&ty) {
            out.push(ty.name.clone());
        }
    }
    Ok(out)
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
    // The registry's own: no one registered it.
    Ok(ResourceRow {
        read_only: true,
        auto_discovered: true,
        properties: match_on
            .iter()
            .cloned()
            .zip(key.iter().cloned().map(Value::String))
            .collect(),
        ..ResourceRow::new(
            id,
            Some(name),
            virtual_type.clone(),
            ResourceKind::Virtual,
            now,
        )
    })
}
