//! A pushed plugin installs in a fresh home — by tag with its types and
//! a working handler, by digest, and offline from an OCI image layout
//! directory — and where it came from stays with it (`plugin show`, an
//! export).

use super::{example, new_publisher, push, registry, repo, run, trusting};
use crate::common::{self, Env};
use std::path::PathBuf;

fn python_package(env: &Env) -> PathBuf {
    env.write(
        "pkg/pyproject.toml",
        "[project]\nname = \"acme\"\nversion = \"1.0\"\n",
    );
    env.write("pkg/src/acme/__init__.py", "");
    env.path("pkg")
}

#[test]
fn a_pushed_plugin_installs_in_a_fresh_home_with_its_types_and_its_handler_works() {
    let Some(reg) = registry("push then install") else {
        return;
    };
    let (publisher, key) = new_publisher();
    let reference = repo(&reg, "python-package");
    let pushed = push(&publisher, &example(), &reference, &["--sign", "team"]);
    assert_eq!(pushed["reference"], format!("{reference}:0.1.0"));
    assert_eq!(
        pushed["types"],
        serde_json::json!(["myteam/python-package"])
    );

    let prefix = reference.rsplit_once('/').unwrap().0;
    let teammate = trusting(&key, prefix);
    let installed = run(
        &teammate,
        &[
            "plugin",
            "install",
            &format!("{reference}:0.1.0"),
            "-o",
            "json",
        ],
        &[],
    )
    .json();
    assert_eq!(
        installed["types_added"],
        serde_json::json!(["myteam/python-package"])
    );
    // The type came with the plugin: a resource of it registers and
    // discovers through the handler.
    let pkg = python_package(&teammate);
    run(
        &teammate,
        &[
            "resource",
            "add",
            "myteam/python-package",
            "local/pkg",
            "--path",
            pkg.to_str().unwrap(),
        ],
        &[],
    )
    .ok();
    let tree = run(&teammate, &["resource", "tree", "local/pkg"], &[]);
    assert!(tree.ok().contains("acme"), "{}", tree.stdout);

    let shown = run(
        &teammate,
        &["plugin", "show", "myteam.python", "-o", "json"],
        &[],
    )
    .json();
    let provenance = &shown["provenance"];
    assert_eq!(provenance["reference"], format!("{reference}:0.1.0"));
    assert_eq!(provenance["manifest_digest"], pushed["manifest_digest"]);
    assert_eq!(provenance["layer_digest"], pushed["layer_digest"]);
    assert_eq!(provenance["signer"], pushed["signed_by"]);
    assert_eq!(provenance["contract"], "0.2.0");
    let listed = run(&teammate, &["plugin", "list"], &[]);
    assert!(listed.ok().contains(&format!("{reference}:0.1.0")));
}

#[test]
fn a_plugin_installs_by_digest_and_an_export_keeps_its_provenance() {
    let Some(reg) = registry("install by digest") else {
        return;
    };
    let (publisher, key) = new_publisher();
    let reference = repo(&reg, "p");
    let pushed = push(&publisher, &example(), &reference, &["--sign", "team"]);
    let digest = pushed["manifest_digest"].as_str().unwrap();
    let home = trusting(&key, &reg.open);
    let by_digest = format!("{reference}@{digest}");
    let installed = run(&home, &["plugin", "install", &by_digest, "-o", "json"], &[]).json();
    assert_eq!(installed["plugin"]["provenance"]["reference"], by_digest);
    assert_eq!(
        installed["plugin"]["provenance"]["tag"],
        serde_json::Value::Null
    );

    // An export with the components keeps where they came from.
    let doc = home.path("registry.json");
    run(
        &home,
        &[
            "registry",
            "export",
            "--with-plugins",
            "--out",
            doc.to_str().unwrap(),
        ],
        &[],
    )
    .ok();
    let other = Env::new();
    run(&other, &["registry", "import", doc.to_str().unwrap()], &[]).ok();
    let shown = run(
        &other,
        &["plugin", "show", "myteam.python", "-o", "json"],
        &[],
    )
    .json();
    assert_eq!(shown["provenance"], installed["plugin"]["provenance"]);
}

#[test]
fn an_oci_layout_directory_installs_offline() {
    let Some(reg) = registry("oci layout") else {
        return;
    };
    let Some(skopeo) = which("skopeo") else {
        assert!(
            std::env::var_os("CI").is_none(),
            "the oci-layout test needs skopeo"
        );
        common::skipped("oci layout", "skopeo is not installed");
        return;
    };
    let (publisher, _) = new_publisher();
    let path = repo(&reg, "p");
    push(&publisher, &example(), &path, &[]);
    let layout = publisher.path("offline");
    let copied = std::process::Command::new(skopeo)
        .args(["copy", "--src-tls-verify=false", "--quiet"])
        .arg(format!("docker://{path}:0.1.0"))
        .arg(format!("oci:{}:0.1.0", layout.display()))
        .output()
        .unwrap();
    assert!(
        copied.status.success(),
        "{}",
        String::from_utf8_lossy(&copied.stderr)
    );
    let home = Env::new();
    let source = format!("oci-layout:{}:0.1.0", layout.display());
    let installed = run(
        &home,
        &[
            "plugin",
            "install",
            &source,
            "--allow-unsigned",
            "-o",
            "json",
        ],
        &[],
    )
    .json();
    assert_eq!(installed["plugin"]["provenance"]["reference"], source);
    assert_eq!(
        installed["types_added"],
        serde_json::json!(["myteam/python-package"])
    );
}

fn which(tool: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(tool))
        .find(|p| p.is_file())
}
