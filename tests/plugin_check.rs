//! `agents plugin check` and `agents plugin wit` through the real binary:
//! the checks of `plugin add` without a registry, and the contract as
//! this binary serves it.

use crate::common::{Env, Run, wasm};
use std::path::{Path, PathBuf};
use std::process::Command;

/// `agents ARGS…` with no home at all: no `--home`, no `$AGENTS_HOME`,
/// `$HOME` or `$XDG_DATA_HOME`.
fn homeless(args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_agents"))
        .args(args)
        .env_remove("AGENTS_HOME")
        .env_remove("HOME")
        .env_remove("XDG_DATA_HOME")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The repository's `wit/`: every file, relative path → text.
fn repo_wit() -> Vec<(PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("wit");
    let mut files = Vec::new();
    for dir in std::fs::read_dir(&root).unwrap() {
        let dir = dir.unwrap().path();
        for file in std::fs::read_dir(&dir).unwrap() {
            let file = file.unwrap().path();
            let rel = file.strip_prefix(&root).unwrap().to_owned();
            files.push((rel, std::fs::read_to_string(&file).unwrap()));
        }
    }
    files.sort();
    files
}

#[test]
fn check_reports_what_plugin_add_checks_with_no_home_and_writes_nothing() {
    let file = wasm("python_package.wasm");
    let shown = homeless(&["plugin", "check", path(&file)]);
    let text = shown.ok();
    assert!(text.contains("agents plugin add would accept it"), "{text}");
    assert!(text.contains("module:      myteam.python"), "{text}");
    assert!(
        text.contains("contract:    0.2.0 (newest served)"),
        "{text}"
    );
    assert!(
        text.contains("  PythonPackageHandler  A Python package"),
        "{text}"
    );
    assert!(text.contains(" ms (Cranelift)\n"), "{text}");

    // With a home named, it is not created.
    let env = Env::new();
    let home = env.path("never-made");
    let json = Run::json(&homeless(&[
        "--home",
        path(&home),
        "plugin",
        "check",
        path(&file),
        "-o",
        "json",
    ]));
    assert!(!home.exists());
    assert_eq!(json["module"], "myteam.python");
    assert_eq!(json["contract"], "0.2.0");
    assert_eq!(json["contract_current"], true);
    assert_eq!(json["exports"], "cleveragents:resource/handler@0.2.0");
    assert_eq!(json["classes"][0]["name"], "PythonPackageHandler");
    assert_eq!(
        json["sha256"],
        resource_host::digest::sha256_hex(&std::fs::read(&file).unwrap())
    );
    assert_eq!(json["size_bytes"], std::fs::metadata(&file).unwrap().len());
    let imports: Vec<&str> = json["imports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i.as_str().unwrap())
        .collect();
    assert!(
        imports.contains(&"cleveragents:resource/host@0.2.0"),
        "{imports:?}"
    );
    assert!(json["compile_ms"].is_u64(), "{json}");
    // A small component: Cranelift's, whatever the build.
    assert_eq!(json["compiler"], "Cranelift", "{json}");
}

#[test]
fn check_names_an_older_served_contract_and_the_module_it_would_be_added_as() {
    let json = Run::json(&homeless(&[
        "plugin",
        "check",
        path(&wasm("contract_v0_1_0.wasm")),
        "--module",
        "myteam.pinned",
        "-o",
        "json",
    ]));
    assert_eq!(json["contract"], "0.1.0");
    assert_eq!(json["contract_current"], false);
    assert_eq!(json["module"], "myteam.pinned");
    assert_eq!(json["exports"], "cleveragents:resource/handler@0.1.0");
}

#[test]
fn check_refuses_what_add_refuses_in_add_s_words() {
    let env = Env::new();
    let garbage = env.write("garbage.wasm", "#!/bin/sh\necho not wasm\n");
    let core = env.path("core.wasm");
    std::fs::write(&core, b"\0asm\x01\0\0\0").unwrap();
    let other_world = wasm("other_world.wasm");
    let cases: [(&Path, &[&str], &str); 4] = [
        (&garbage, &[], "not a WebAssembly file"),
        (&core, &[], "a core WebAssembly module, not a component"),
        (
            &other_world,
            &[],
            "it exports: cleveragents:resource/handler@9.0.0",
        ),
        (
            &wasm("faulty.wasm"),
            &["--module", "cleveragents.resource.handlers.x"],
            "reserved for the built-in handlers",
        ),
    ];
    for (file, extra, why) in cases {
        let mut args = vec!["plugin", "check", path(file)];
        args.extend_from_slice(extra);
        let checked = homeless(&args);
        checked.refused(&[why]);
        args[1] = "add";
        let added = env.run(&args);
        added.refused(&[why]);
        assert_eq!(checked.stderr, added.stderr);
    }
    let missing = homeless(&["plugin", "check", path(&env.path("nope.wasm"))]);
    missing.refused(&["nope.wasm", "No such file"]);
}

#[test]
fn wit_prints_the_newest_contract_or_the_one_asked_for_as_wit_holds_it() {
    let wit = Path::new(env!("CARGO_MANIFEST_DIR")).join("wit");
    let newest = std::fs::read_to_string(wit.join("v0.2.0/resource.wit")).unwrap();
    assert_eq!(homeless(&["plugin", "wit"]).ok(), newest);
    let old = std::fs::read_to_string(wit.join("v0.1.0/resource.wit")).unwrap();
    assert_eq!(
        homeless(&["plugin", "wit", "--contract", "0.1.0"]).ok(),
        old
    );
    let json = Run::json(&homeless(&["plugin", "wit", "-o", "json"]));
    assert_eq!(json["version"], "0.2.0");
    assert_eq!(json["current"], true);
    assert_eq!(json["files"][0]["path"], "v0.2.0/resource.wit");
    assert_eq!(json["files"][0]["text"], newest.as_str());
    homeless(&["plugin", "wit", "--contract", "9.9.9"])
        .usage(&["serves contract versions 0.1.0, 0.2.0"]);
}

#[test]
fn wit_out_writes_every_served_version_as_wit_holds_them_and_never_over_other_text() {
    let env = Env::new();
    let out = env.path("contract");
    let run = homeless(&["plugin", "wit", "--out", path(&out)]);
    assert!(run.ok().contains("wrote "), "{}", run.stdout);
    let mut written = Vec::new();
    for dir in std::fs::read_dir(&out).unwrap() {
        for file in std::fs::read_dir(dir.unwrap().path()).unwrap() {
            let file = file.unwrap().path();
            let text = std::fs::read_to_string(&file).unwrap();
            written.push((file.strip_prefix(&out).unwrap().to_owned(), text));
        }
    }
    written.sort();
    assert_eq!(written, repo_wit());

    // Again is fine; a file changed since is refused and kept.
    homeless(&["plugin", "wit", "--out", path(&out)]).ok();
    let changed = out.join("v0.1.0/resource.wit");
    std::fs::write(&changed, "// mine\n").unwrap();
    homeless(&["plugin", "wit", "--out", path(&out)])
        .refused(&["v0.1.0/resource.wit already exists with other contents"]);
    assert_eq!(std::fs::read_to_string(&changed).unwrap(), "// mine\n");
}
