//! The store's unit tests, by scenario: opening and migrating
//! (`opening`), rows written and read (`rows`), the event log
//! (`event_log`). Here: the rows they build and `on_both_backends!`,
//! which runs a body on SQLite and on PostgreSQL.

use super::*;
use crate::model::{
    HandlerRef, ResourceId, ResourceKind, ResourceName, SandboxStrategy, TypeArgument, TypeName,
    TypeSpec,
};

fn spec(name: &str) -> TypeSpec {
    TypeSpec {
        name: TypeName::parse(name).unwrap(),
        inherits: None,
        description: Some("d".into()),
        kind: Some(ResourceKind::Physical),
        sandbox_strategy: Some(SandboxStrategy::CopyOnWrite),
        user_addable: Some(true),
        built_in: false,
        cli_args: vec![TypeArgument {
            name: "path".into(),
            arg_type: crate::model::ArgType::Path,
            required: true,
            description: String::new(),
            default: None,
            choices: vec![],
        }],
        parent_types: vec![],
        child_types: vec![TypeName::parse("fs-directory").unwrap()],
        replace: Default::default(),
        handler: Some(HandlerRef::parse("myteam.python:PythonPackageHandler").unwrap()),
        capabilities: Default::default(),
        auto_discovery: None,
        equivalence: None,
    }
}

fn row(n: u128, type_name: &str) -> ResourceRow {
    ResourceRow::new(
        id(n),
        Some(ResourceName::parse(&format!("local/r{n}")).unwrap()),
        TypeName::parse(type_name).unwrap(),
        ResourceKind::Physical,
        "2026-01-01T00:00:00.000Z",
    )
}

fn id(n: u128) -> ResourceId {
    ResourceId::from_ulid(ulid::Ulid(n))
}

/// Each body runs twice: on SQLite in memory and on a fresh PostgreSQL
/// schema (skipped, loudly, without a server).
macro_rules! on_both_backends {
    ($(fn $name:ident(mut $store:ident: Store) $body:block)*) => {$(
        mod $name {
            use super::*;

            fn body(mut $store: Store) $body

            #[test]
            fn sqlite() {
                body(Store::open_in_memory().unwrap());
            }

            #[test]
            fn postgres() {
                if let Some(schema) = testing::postgres() {
                    body(Store::open_postgres(&schema.url).unwrap());
                }
            }
        }
    )*};
}

mod event_log;
mod opening;
mod rows;
