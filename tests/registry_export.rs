//! `agents registry export|import|info` with the real binary: a registry
//! moved into a fresh home is the same registry (every view of it reads
//! the same), importing twice is a no-op, and every refusal leaves the
//! target home exactly as it was — rows, file bytes and plugin store.

use crate::common::{self, Env, wasm};
use serde_json::Value;

const TYPE_FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/plugins/examples/python-package/python-package.yaml"
);

/// A home holding one of everything worth moving: a plugin and the custom
/// type that uses it, a real git checkout explored to the bottom
/// (virtual identities included), a Python package linked below
/// it by hand, two directories (one read-only, described, with a
/// strategy override) linked, and a plan's setting.
fn source() -> Env {
    fill(Env::new())
}

/// A home whose registry is its own SQLite file, whatever backend the
/// suite runs on.
fn sqlite_home() -> Env {
    let mut env = Env::new();
    env.vars.retain(|(k, _)| k != "AGENTS_REGISTRY");
    env.postgres = None;
    env
}

/// [`source`]'s contents, in `env`.
fn fill(env: Env) -> Env {
    let plugin = wasm("python_package.wasm");
    env.run(&["plugin", "add", plugin.to_str().unwrap()]).ok();
    env.run(&["resource", "type", "add", TYPE_FILE]).ok();
    common::git_repo(&env.path("repo"));
    env.add("git-checkout", "local/repo", &env.path("repo"), &[])
        .ok();
    // Every level: files and tree entries, and the virtual identities
    // (with their derived links) that join them.
    env.run(&["resource", "discover", "--recursive", "local/repo"])
        .ok();
    env.write(
        "pkg/pyproject.toml",
        "[project]\nname = \"acme\"\nversion = \"1.0\"\n",
    );
    env.write("pkg/src/acme/__init__.py", "");
    env.add("myteam/python-package", "local/pkg", &env.path("pkg"), &[])
        .ok();
    env.run(&["resource", "link-child", "local/repo", "local/pkg"])
        .ok();
    env.write("docs/guide/a.md", "# a\n");
    env.mkdir("notes");
    env.add("fs-directory", "local/docs", &env.path("docs"), &[])
        .ok();
    let notes = [
        "--read-only",
        "--description",
        "kept",
        "--sandbox-strategy",
        "none",
    ];
    env.add("fs-directory", "local/notes", &env.path("notes"), &notes)
        .ok();
    env.run(&["resource", "link-child", "local/docs", "local/notes"])
        .ok();
    env.run(&[
        "plan",
        "use",
        "--plan",
        "nightly",
        "--execution-environment",
        "host",
        "--execution-env-priority",
        "fallback",
    ])
    .ok();
    env
}

/// A home that exists (its registry created) and holds nothing of ours.
fn fresh() -> Env {
    let env = Env::new();
    env.run(&["registry", "info"]).ok();
    env
}

/// Every view a user has of a registry, as printed.
fn views(env: &Env) -> Vec<String> {
    let views: [&[&str]; 8] = [
        &["resource", "list", "-o", "json"],
        &["resource", "tree", "local/repo"],
        &["resource", "tree", "local/docs"],
        &["resource", "show", "local/notes", "-o", "json"],
        &["resource", "type", "list"],
        &[
            "resource",
            "type",
            "list",
            "--namespace",
            "myteam",
            "-o",
            "json",
        ],
        &["plugin", "list", "-o", "json"],
        &["plan", "show", "-o", "json"],
    ];
    views
        .iter()
        .map(|args| env.run(args).ok().to_owned())
        .collect()
}

/// `resource type list -o json` without the built-in types' timestamps
/// (those say when each home was first opened: built-in types come with
/// the binary, not with the document).
fn types_json(env: &Env) -> Value {
    let mut types = env.run(&["resource", "type", "list", "-o", "json"]).json();
    for ty in types.as_array_mut().unwrap() {
        if ty["built_in"] == Value::Bool(true) {
            let ty = ty.as_object_mut().unwrap();
            ty.remove("created_at");
            ty.remove("updated_at");
        }
    }
    types
}

/// `registry export` as JSON, without its export time.
fn document(env: &Env, extra: &[&str]) -> Value {
    let mut args = vec!["registry", "export"];
    args.extend_from_slice(extra);
    let mut doc = env.run(&args).json();
    doc.as_object_mut().unwrap().remove("exported_at");
    doc
}

/// The target home as a refusal must leave it.
fn home_state(env: &Env) -> (String, String, Vec<String>) {
    let (rows, bytes) = env.state();
    (rows, bytes, env.plugin_files())
}

#[test]
fn a_registry_exported_and_imported_into_a_fresh_home_is_the_same_registry() {
    let from = source();
    let file = from.path("registry.yaml");
    let out = from.run(&[
        "registry",
        "export",
        "--with-plugins",
        "--out",
        file.to_str().unwrap(),
    ]);
    assert!(out.ok().contains("to "), "{}", out.stdout);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.starts_with("format: agents-registry\nversion: 1\n"),
        "{text}"
    );
    assert!(text.contains("component_base64:"));

    let to = Env::new();
    let imported = to.run(&["registry", "import", file.to_str().unwrap(), "-o", "json"]);
    let report = imported.json();
    assert_eq!(report["types"]["added"], 1, "{report}");
    assert_eq!(report["plugins"]["added"], 1, "{report}");
    assert_eq!(report["plugin_files"].as_array().unwrap().len(), 1);
    assert_eq!(report["same_builtin_catalogue"], true);

    assert_eq!(views(&to), views(&from));
    assert_eq!(types_json(&to), types_json(&from));
    let doc = document(&from, &[]);
    let links = doc["links"].as_array().unwrap();
    assert!(
        links.iter().any(|l| l["derived"] == true),
        "identities came along"
    );
    assert_eq!(document(&to, &[]), doc);
    // The component came along intact: its handler runs in the new home.
    let inspected = to.run(&["resource", "inspect", "local/pkg", "-o", "json"]);
    assert_eq!(
        inspected.json(),
        from.run(&["resource", "inspect", "local/pkg", "-o", "json"])
            .json()
    );
}

/// A team moves a local registry to its server and back: SQLite → the
/// backend under test → SQLite, every view the same at each step and the
/// documents identical (on the SQLite run, three SQLite homes).
#[test]
fn a_local_registry_moves_to_the_team_registry_and_back_exactly() {
    let local = fill(sqlite_home());
    let file = local.path("local.json");
    let export = |env: &Env, file: &std::path::Path| {
        env.run(&[
            "registry",
            "export",
            "--with-plugins",
            "--out",
            file.to_str().unwrap(),
        ])
        .ok();
    };
    export(&local, &file);
    let team = Env::new();
    team.run(&["registry", "import", file.to_str().unwrap()])
        .ok();
    let back_file = team.path("team.json");
    export(&team, &back_file);
    let back = sqlite_home();
    back.run(&["registry", "import", back_file.to_str().unwrap()])
        .ok();
    let info = team.run(&["registry", "info", "-o", "json"]).json();
    assert_eq!(info["backend"], common::backend());
    for env in [&team, &back] {
        assert_eq!(views(env), views(&local));
        assert_eq!(types_json(env), types_json(&local));
        assert_eq!(document(env, &[]), document(&local, &[]));
    }
    // The plugin travelled with the registry: its handler runs on both.
    for env in [&team, &back] {
        env.run(&["resource", "inspect", "local/pkg"]).ok();
    }
}

#[test]
fn importing_the_same_document_twice_is_a_no_op_that_leaves_the_home_as_it_was() {
    let from = source();
    let file = from.path("registry.json");
    let file = file.to_str().unwrap();
    from.run(&["registry", "export", "--with-plugins", "--out", file])
        .ok();
    let to = Env::new();
    to.run(&["registry", "import", file]).ok();
    let before = home_state(&to);
    let again = to.run(&["registry", "import", file]);
    assert!(
        again.ok().starts_with("nothing to import"),
        "{}",
        again.stdout
    );
    assert_eq!(home_state(&to), before);
    // Into the home it came from, too.
    let before = home_state(&from);
    from.run(&["registry", "import", file]).ok();
    assert_eq!(home_state(&from), before);
}

#[test]
fn a_document_without_components_imports_where_the_plugin_files_already_are() {
    let from = source();
    let file = from.path("registry.json");
    let file = file.to_str().unwrap();
    from.run(&["registry", "export", "--out", file]).ok();
    let to = fresh();
    let before = home_state(&to);
    let refused = to.run(&["registry", "import", file]);
    let sha = from
        .run(&["plugin", "show", "myteam.python", "-o", "json"])
        .json()["sha256"]
        .as_str()
        .unwrap()
        .to_owned();
    refused.refused(&[
        "plugin store does not hold",
        &format!("myteam.python (sha256 {sha})"),
        "--with-plugins",
        "nothing was imported",
    ]);
    assert_eq!(home_state(&to), before);
    // With the file in the target's store (copied, as from a shared
    // store), the same document goes in, and the handler runs.
    let store = to.home.path().join("plugins");
    std::fs::create_dir_all(&store).unwrap();
    let name = format!("{sha}.wasm");
    std::fs::copy(
        from.home.path().join("plugins").join(&name),
        store.join(&name),
    )
    .unwrap();
    to.run(&["registry", "import", file]).ok();
    assert_eq!(views(&to), views(&from));
    to.run(&["resource", "inspect", "local/pkg"]).ok();
}

#[test]
fn a_refused_import_lists_every_conflicting_name_and_leaves_the_home_byte_identical() {
    let from = source();
    let file = from.path("registry.json");
    let file = file.to_str().unwrap();
    from.run(&["registry", "export", "--with-plugins", "--out", file])
        .ok();
    let to = Env::new();
    to.mkdir("elsewhere");
    to.add("fs-directory", "local/repo", &to.path("elsewhere"), &[])
        .ok();
    to.add("fs-directory", "local/notes", &to.path("elsewhere"), &[])
        .ok();
    let before = home_state(&to);
    let out = to.run(&["registry", "import", file]);
    let stderr = out.refused(&[
        "conflicts with this registry in 2 place(s)",
        "resource name local/repo is",
        "resource name local/notes is",
        "nothing was imported",
    ]);
    assert!(!stderr.contains("local/docs"), "{stderr}");
    // Not even the component the document carries was written.
    assert_eq!(home_state(&to), before);
    let dry = to.run(&["registry", "import", "--dry-run", file]);
    dry.refused(&["resource name local/repo is"]);
    assert_eq!(home_state(&to), before);
}

#[test]
fn a_type_registered_with_another_spec_is_a_conflict_naming_it() {
    let from = source();
    let file = from.path("registry.json");
    let file = file.to_str().unwrap();
    from.run(&["registry", "export", "--with-plugins", "--out", file])
        .ok();
    let to = Env::new();
    let other = std::fs::read_to_string(TYPE_FILE)
        .unwrap()
        .replace("handler: myteam.python:PythonPackageHandler\n", "");
    let other = to.write("other.yaml", &other);
    to.run(&["resource", "type", "add", other.to_str().unwrap()])
        .ok();
    let before = home_state(&to);
    to.run(&["registry", "import", file]).refused(&[
        "type myteam/python-package is registered here with another spec",
        "other.yaml",
    ]);
    assert_eq!(home_state(&to), before);
}

#[test]
fn a_link_that_would_close_a_cycle_here_is_refused_naming_it() {
    let from = source();
    let file = from.path("registry.json");
    let file = file.to_str().unwrap();
    from.run(&["registry", "export", "--with-plugins", "--out", file])
        .ok();
    let to = Env::new();
    to.run(&["registry", "import", file]).ok();
    to.run(&["resource", "unlink-child", "local/docs", "local/notes"])
        .ok();
    to.run(&["resource", "link-child", "local/notes", "local/docs"])
        .ok();
    let before = home_state(&to);
    to.run(&["registry", "import", file]).refused(&[
        "cannot import the document's links: cannot link local/docs → local/notes",
        "would close a cycle",
        "nothing was imported",
    ]);
    assert_eq!(home_state(&to), before);
}

#[test]
fn a_newer_version_and_garbage_are_refused_leaving_the_home_untouched() {
    let to = fresh();
    let before = home_state(&to);
    let newer = to.write(
        "newer.json",
        r#"{"format": "agents-registry", "version": 2, "teams": []}"#,
    );
    to.run(&["registry", "import", newer.to_str().unwrap()])
        .refused(&["version 2", "newer than this agents binary reads"]);
    let garbage = to.write("garbage.json", "{ this is not json");
    to.run(&["registry", "import", garbage.to_str().unwrap()])
        .refused(&["not a registry document", "invalid JSON"]);
    let other = to.write("other.yaml", "format: something-else\nversion: 1\n");
    to.run(&["registry", "import", other.to_str().unwrap()])
        .refused(&["its format is \"something-else\""]);
    let missing = to.path("missing.json");
    to.run(&["registry", "import", missing.to_str().unwrap()])
        .refused(&["cannot read", "missing.json"]);
    assert_eq!(home_state(&to), before);
}

#[test]
fn a_dry_run_says_what_it_would_add_and_writes_nothing() {
    let from = source();
    let file = from.path("registry.json");
    let file = file.to_str().unwrap();
    from.run(&["registry", "export", "--with-plugins", "--out", file])
        .ok();
    let to = fresh();
    let before = home_state(&to);
    let out = to.run(&["registry", "import", "--dry-run", file]);
    let text = out.ok();
    assert!(text.contains("dry run, nothing was written"), "{text}");
    assert!(text.contains("would write 1 plugin file(s)"), "{text}");
    assert_eq!(home_state(&to), before);
}

#[test]
fn registry_info_names_the_backend_and_counts_what_the_home_holds() {
    let env = source();
    let info = env.run(&["registry", "info", "-o", "json"]).json();
    assert_eq!(info["backend"], common::backend());
    if common::backend() == "sqlite" {
        assert_eq!(
            info["database"].as_str().unwrap(),
            env.db().to_str().unwrap()
        );
        assert!(info["size_bytes"].as_u64().unwrap() > 0);
    } else {
        let location = info["location"].as_str().unwrap();
        assert!(location.starts_with("postgres://"), "{location}");
        // What the schema's tables take on the server.
        assert!(info["size_bytes"].as_u64().unwrap() > 0, "{info}");
        assert!(info["wal_bytes"].is_null(), "{info}");
    }
    assert_eq!(info["schema_version"], info["supported_schema_version"]);
    assert_eq!(info["document_version"], 1);
    let counts = &info["counts"];
    let doc = document(&env, &[]);
    let len = |key: &str| doc[key].as_array().unwrap().len();
    assert_eq!(counts["custom_types"], 1);
    assert!(counts["builtin_types"].as_i64().unwrap() > 10);
    assert_eq!(counts["resources"], len("resources"));
    assert_eq!(counts["links"], len("links"));
    assert_eq!(counts["plugins"], 1);
    assert_eq!(counts["sandboxes"], 0);
    assert_eq!(counts["environment_settings"], 1);
    let table = env.run(&["registry", "info"]);
    for line in ["backend:", common::backend(), "schema version:", "1 custom"] {
        assert!(table.ok().contains(line), "{line}: {}", table.stdout);
    }
}
