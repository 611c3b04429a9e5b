//! The per-user compile cache shared by every home (`$XDG_CACHE_HOME/agents`):
//! a new home reads the built-in components' compiled code from it instead
//! of compiling them, and an entry or directory someone else could have
//! written is never trusted — it is recompiled over, or not used.

use crate::common::Env;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// A home whose shared cache is `xdg` (its `agents/components`).
fn home_with_cache(xdg: &Path) -> Env {
    let mut env = Env::new();
    env.vars
        .push(("XDG_CACHE_HOME".into(), xdg.display().to_string()));
    env
}

/// `-vv resource add fs-directory` of a new directory (the fs component).
fn add_directory(env: &Env, name: &str) -> crate::common::Run {
    let dir = env.mkdir(name);
    let run = env.run(&[
        "-vv",
        "resource",
        "add",
        "fs-directory",
        &format!("local/{name}"),
        "--path",
        dir.to_str().unwrap(),
    ]);
    run.ok();
    run
}

/// The compiled entries (`.cwasm`) in `dir`.
fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "cwasm"))
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

#[test]
fn a_new_home_reads_the_built_in_components_from_the_shared_cache_and_compiles_nothing() {
    let xdg = tempfile::tempdir().unwrap();
    let shared = xdg.path().join("agents/components");
    let first = home_with_cache(xdg.path());
    let run = add_directory(&first, "a");
    assert!(
        run.stderr.contains("into the shared compile cache"),
        "{}",
        run.stderr
    );
    assert_eq!(entries(&shared).len(), 1, "the fs component, compiled once");
    let mode = std::fs::metadata(&shared).unwrap().mode() & 0o777;
    assert_eq!(mode, 0o700, "created private");

    let second = home_with_cache(xdg.path());
    let run = add_directory(&second, "b");
    assert!(
        run.stderr.contains("from the shared compile cache"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("compiling"), "{}", run.stderr);
    assert!(
        entries(&second.home.path().join("cache/components")).is_empty(),
        "the new home compiled nothing into its own cache"
    );
    assert_eq!(entries(&shared).len(), 1);
}

#[test]
fn a_tampered_shared_entry_is_refused_and_recompiled() {
    let xdg = tempfile::tempdir().unwrap();
    let shared = xdg.path().join("agents/components");
    let env = home_with_cache(xdg.path());
    add_directory(&env, "a");
    let [entry] = entries(&shared).try_into().unwrap();
    let good = std::fs::read(&entry).unwrap();
    let mut bad = good.clone();
    let at = bad.len() / 2;
    bad[at] ^= 0xff;
    std::fs::write(&entry, &bad).unwrap();

    let other = home_with_cache(xdg.path());
    let run = add_directory(&other, "b");
    assert!(
        run.stderr.contains("is unusable (its contents changed"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("recompiling"), "{}", run.stderr);
    assert_eq!(std::fs::read(&entry).unwrap().len(), good.len());
    assert_ne!(std::fs::read(&entry).unwrap(), bad, "written anew");
    let run = add_directory(&other, "c");
    assert!(
        run.stderr.contains("from the shared compile cache"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_shared_entry_others_may_write_or_own_is_refused_and_recompiled() {
    let xdg = tempfile::tempdir().unwrap();
    let shared = xdg.path().join("agents/components");
    let env = home_with_cache(xdg.path());
    add_directory(&env, "a");
    let [entry] = entries(&shared).try_into().unwrap();
    std::fs::set_permissions(&entry, std::fs::Permissions::from_mode(0o666)).unwrap();
    let run = add_directory(&env, "b");
    assert!(
        run.stderr.contains("writable by its group and everyone"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("recompiling"), "{}", run.stderr);
    let mode = std::fs::metadata(&entry).unwrap().mode() & 0o777;
    assert_eq!(mode, 0o600, "recompiled over, owner-only");

    if rustix::process::geteuid().as_raw() != 0 {
        return; // only root can give a file away
    }
    std::os::unix::fs::chown(&entry, Some(4321), None).unwrap();
    let run = add_directory(&env, "c");
    assert!(run.stderr.contains("owned by uid 4321"), "{}", run.stderr);
    assert!(run.stderr.contains("recompiling"), "{}", run.stderr);
    assert_eq!(std::fs::metadata(&entry).unwrap().uid(), 0);
}

#[test]
fn a_shared_cache_others_may_write_is_not_used_and_the_home_compiles_for_itself() {
    let xdg = tempfile::tempdir().unwrap();
    let shared = xdg.path().join("agents/components");
    std::fs::create_dir_all(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
    let env = home_with_cache(xdg.path());
    let run = add_directory(&env, "a");
    assert!(
        run.stderr.contains("not using the shared compile cache"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("chmod go-w"), "{}", run.stderr);
    assert!(entries(&shared).is_empty());
    assert_eq!(entries(&env.home.path().join("cache/components")).len(), 1);
}
