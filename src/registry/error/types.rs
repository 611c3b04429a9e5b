//! How a type operation is refused: a type that is not there or already
//! is, a built-in type touched, a reference to an unregistered type, a
//! removal or replacement that would break what is registered, and a
//! type table changed underneath a preparation. The rooms `types`,
//! `type_set` and `register` produce these.
//!
//! Each message is the one a person reads after `agents: error:`; the
//! variants carry the fields an embedder matches on.

use super::{join, suggest};
use crate::dag::LinkTypeRefusal;
use crate::model::{ResourceKind, TypeName};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum TypesError {
    #[error("no resource type {name}{}", suggest(.suggestions))]
    TypeNotFound {
        name: String,
        suggestions: Vec<TypeName>,
    },
    #[error("type {name} is already registered (from {source_name}); pass --replace to replace it")]
    TypeExists { name: TypeName, source_name: String },
    #[error("type {name} is built in and cannot be {action}")]
    BuiltinType {
        name: TypeName,
        action: &'static str,
    },
    #[error(
        "type {type_name} names {missing} in {field}, which is not a registered type; \
         register it first (agents resource type add …)"
    )]
    UnknownTypeReference {
        type_name: TypeName,
        field: String,
        missing: TypeName,
    },
    #[error(
        "cannot remove type {name}: {count} resource(s) of this type are registered; remove \
         them first (agents resource list --type {name})"
    )]
    TypeHasResources { name: TypeName, count: i64 },
    #[error(
        "cannot remove type {name}: {} name it in their parent/child types, discovery rules or \
         equivalence links; change or remove those first",
        join(.by)
    )]
    TypeReferenced { name: TypeName, by: Vec<TypeName> },
    #[error(
        "cannot replace type {name}: it would change the kind of {type_name} from {from} to \
         {to}, and {count} resource(s) of that type exist; the registered type was left as it was"
    )]
    ReplaceChangesKind {
        name: TypeName,
        type_name: TypeName,
        from: ResourceKind,
        to: ResourceKind,
        count: i64,
    },
    #[error(
        "cannot replace type {name}: it would make {} required for {type_name}, and {count} \
         resource(s) of that type were registered without it; the registered type was left as \
         it was",
        .flags.iter().map(|f| format!("--{f}")).collect::<Vec<_>>().join(", ")
    )]
    ReplaceAddsRequired {
        name: TypeName,
        type_name: TypeName,
        flags: Vec<String>,
        count: i64,
    },
    /// A replacement (a plugin's update, most often) would leave a
    /// registered resource without a field its type now requires.
    #[error(
        "cannot replace type {name}: resource {resource} has no {field}, which the new type \
         requires, so it would no longer be valid; the registered type was left as it was \
         (pass --force to replace it anyway, or give the resource a {field} first)"
    )]
    ReplaceInvalidatesResource {
        name: TypeName,
        resource: String,
        field: String,
    },
    #[error(
        "cannot replace type {name}: the existing link {parent} ({}) → {child} ({}) would no \
         longer be allowed: {rule}; the registered type was left as it was",
        rule.parent_type, rule.child_type
    )]
    ReplaceBreaksLink {
        name: TypeName,
        parent: String,
        child: String,
        rule: Box<LinkTypeRefusal>,
    },
    #[error(
        "the types changed while {what} was being prepared (type {type_name} was replaced or \
         removed by another process); nothing was written — run the command again"
    )]
    TypesChanged { what: String, type_name: TypeName },
}
