//! Contract versions live side by side: a component built against
//! `wit/v0.1.0` (the `contract-v0-1-0` fixture, kept on that version on
//! purpose) loads and answers every operation, through the runtime and
//! through the `agents` binary, whatever newer versions the host serves.

use crate::common;
use crate::plugin_support;

use plugin_support::{Host, canonical, grant, view};
use resource_host::plugin::{CONTRACT_PACKAGE, ContractVersion, Limits};

const MODULE: &str = "test.contract-v0-1-0";

#[test]
fn a_component_of_contract_0_1_0_answers_every_operation() {
    let host = Host::new(Limits::default());
    let m = host.load("contract_v0_1_0", MODULE);
    assert_eq!(m.info().contract, ContractVersion::V0_1_0);
    assert_eq!(m.info().class_names(), vec!["Pinned"]);
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("b")).unwrap();
    std::fs::create_dir(dir.path().join("a")).unwrap();
    let path = vec![("path".to_owned(), canonical(dir.path()))];
    let props = host
        .runtime
        .validate(&m, "Pinned", &path, &grant(dir.path()))
        .unwrap();
    assert!(props.contains(&("contract".to_owned(), "0.1.0".to_owned())));
    let v = view(dir.path(), &[("k", "v")]);
    let kids = host
        .runtime
        .discover(&m, "Pinned", &v, &grant(dir.path()))
        .unwrap();
    let names: Vec<_> = kids.iter().map(|k| k.name.clone().unwrap()).collect();
    assert_eq!(names, ["a", "b"]);
    let hash = host
        .runtime
        .content_hash(&m, "Pinned", &v, &grant(dir.path()))
        .unwrap();
    assert_eq!(hash, "pinned:1");
    let text = host
        .runtime
        .inspect(&m, "Pinned", &v, Some("x.txt"), &grant(dir.path()))
        .unwrap();
    // 0.1.0's `inspect` answers text; the host gives it no fields.
    assert_eq!(text.text, "pinned local/pkg x.txt");
    assert!(text.fields.is_empty());
}

#[test]
fn the_agents_binary_adds_and_runs_a_0_1_0_plugin() {
    let env = common::Env::new();
    let wasm = common::wasm("contract_v0_1_0.wasm");
    let added = env
        .run(&["plugin", "add", wasm.to_str().unwrap(), "-o", "json"])
        .json();
    assert_eq!(added["module"], MODULE);
    env.write(
        "pinned.yaml",
        "name: test/pinned\nresource_kind: physical\nuser_addable: true\n\
         cli_args:\n  - {name: path, type: path, required: true}\n\
         child_types: [fs-directory]\nhandler: test.contract-v0-1-0:Pinned\n",
    );
    env.run(&["resource", "type", "add", "pinned.yaml"]).ok();
    env.mkdir("tree/inner");
    env.run(&[
        "resource",
        "add",
        "test/pinned",
        "local/p",
        "--path",
        "tree",
    ])
    .ok();
    let shown = env
        .run(&["resource", "show", "local/p", "-o", "json"])
        .json();
    assert_eq!(shown["properties"]["contract"], "0.1.0");
    assert_eq!(shown["content_hash"], "pinned:1");
    assert_eq!(shown["children"].as_array().unwrap().len(), 1);
    let inspected = env.run(&["resource", "inspect", "local/p"]);
    assert!(
        inspected.ok().contains("pinned local/p"),
        "{}",
        inspected.stdout
    );
}

#[test]
fn the_current_contract_is_the_newest_served_version() {
    let newest = ContractVersion::ALL.last().unwrap();
    assert_eq!(CONTRACT_PACKAGE, format!("cleveragents:resource@{newest}"));
}
