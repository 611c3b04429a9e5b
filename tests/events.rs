//! The event log: every change records one event in its own
//! transaction — op, subject, changes, actor and face — on either backend
//! (`AGENTS_TEST_BACKEND=postgres`); a refusal or a dry run records none;
//! concurrent writers leave a gap-free ordered sequence; retention and
//! pruning remove only what they should and never reuse a number; a
//! removed resource's history is still found by its old name; export
//! `--with-events` carries the log into another home.
//!
//! The scenarios are in `events/` (what is recorded, the sequence,
//! retention, the log read back); the readers they share are here.

use crate::common::Env;
use resource_host::home::Home;
use resource_host::model::Actor;
use resource_host::registry::{Options, Registry};
use serde_json::Value;

/// `agents events ARGS… -o json`.
fn events(env: &Env, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["events", "-o", "json"];
    all.extend_from_slice(args);
    match env.run(&all).json() {
        Value::Array(items) => items,
        other => panic!("not a list: {other}"),
    }
}

fn ops(list: &[Value]) -> Vec<String> {
    list.iter()
        .map(|e| e["op"].as_str().unwrap().to_owned())
        .collect()
}

fn seqs(list: &[Value]) -> Vec<i64> {
    list.iter().map(|e| e["seq"].as_i64().unwrap()).collect()
}

fn last_seq(env: &Env) -> i64 {
    env.count("SELECT COALESCE(MAX(seq), 0) FROM events")
}

const TYPE: &str = "name: acme/notes\ndescription: notes\nresource_kind: physical\n\
    sandbox_strategy: none\nuser_addable: true\ncli_args:\n  - name: path\n    type: path\n    \
    required: true\n";

/// The registry `env`'s CLI uses, opened by an embedder under `actor`.
fn open_as(env: &Env, actor: Actor) -> Registry {
    let options = Options {
        actor,
        registry: env
            .postgres
            .as_ref()
            .map(|schema| resource_host::RegistryLocation::parse(&schema.url).unwrap()),
        ..Options::default()
    };
    Registry::open_with(&Home::new(env.home.path()), options).unwrap()
}

mod history;
mod recorded;
mod retention;
mod sequence;
