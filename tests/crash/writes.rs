//! The registry's big writes, killed: a recursive discovery of thousands
//! of files (one transaction), a refresh after changes in every directory
//! (one transaction per changed resource), and a batch registration — the
//! import of a whole exported document, plugin included (one transaction,
//! the plugin file written just before it commits).

use super::{Crasher, PACKAGE_TYPE, check_home, events_of, registry_probe};
use crate::common::{self, Env, wasm};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Files and directories below `dir`, recursively: one resource each.
fn entries(dir: &Path) -> i64 {
    common::entries(dir) as i64
}

/// `dirs` directories under `root`, each with `files` files and a `sub/`
/// of five more.
fn populate(root: &Path, dirs: usize, files: usize) {
    for d in 0..dirs {
        let dir = root.join(format!("d{d:02}"));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        for f in 0..files {
            std::fs::write(dir.join(format!("f{f}")), format!("{d}/{f}\n")).unwrap();
        }
        for f in 0..5 {
            std::fs::write(dir.join(format!("sub/g{f}")), "g\n").unwrap();
        }
    }
}

/// Every resource but `root` has exactly one parent, and there are no
/// other links: what a discovered tree is.
fn assert_one_tree(env: &Env) {
    let resources = env.count("SELECT count(*) FROM resources");
    let links = env.count("SELECT count(*) FROM resource_links");
    assert_eq!(
        links,
        resources - 1,
        "a tree of {resources} has that less one link"
    );
    let orphans = env.count(
        "SELECT count(*) FROM resources r WHERE NOT EXISTS \
         (SELECT 1 FROM resource_links l WHERE l.child_id = r.resource_id)",
    );
    assert_eq!(orphans, 1, "only the root has no parent");
}

#[test]
fn a_killed_recursive_discovery_leaves_all_of_it_or_none() {
    let env = Env::new();
    let root = env.mkdir("tree");
    populate(&root.join("small"), 3, 5);
    let big = root.join("big");
    populate(&big, 40, 45);
    let parked = env.path("parked-big");
    env.add("fs-directory", "local/t", &root, &[]).ok();
    let resources = || env.count("SELECT count(*) FROM resources");

    let mut crasher = Crasher::new("discovery");
    while crasher.more() {
        // Every run has thousands of resources to write: the big subtree
        // comes or goes when the registry is in step with the disk.
        let before = resources();
        if before == 1 + entries(&root) {
            if big.exists() {
                std::fs::rename(&big, &parked).unwrap();
            } else {
                std::fs::rename(&parked, &big).unwrap();
            }
        }
        let after = 1 + entries(&root);
        let discovered = events_of(&env, "resource.discovered");
        let mut probe = registry_probe(&env);
        let ending = crasher.run(
            &env,
            &["resource", "discover", "--recursive", "local/t"],
            &mut probe,
        );
        drop(probe);
        crasher.check(&ending, || {
            let temps = check_home(&env);
            let now = resources();
            assert!(
                now == before || now == after,
                "{now} resources: neither the {before} before nor the {after} after"
            );
            if ending.finished() {
                assert_eq!(now, after);
            }
            // The log and the registry agree: a discovery that changed the
            // tree recorded its one event, one that did not recorded none.
            let recorded = events_of(&env, "resource.discovered") - discovered;
            assert_eq!(
                recorded,
                i64::from(now != before),
                "{recorded} discovery events for {before} → {now} resources"
            );
            assert_one_tree(&env);
            temps
        });
    }
    crasher.report();
    env.run(&["resource", "discover", "--recursive", "local/t"])
        .ok();
    assert_eq!(resources(), 1 + entries(&root));
    assert_one_tree(&env);
}

#[test]
fn a_killed_registration_leaves_the_resource_and_its_event_or_neither() {
    let env = Env::new();
    let root = env.mkdir("big");
    populate(&root, 30, 40);
    env.run(&["resource", "list"]).ok();
    let resources = || env.count("SELECT count(*) FROM resources");
    let mut crasher = Crasher::new("registration");
    let mut tree: Option<i64> = None;
    let mut run = 0;
    while crasher.more() {
        run += 1;
        let name = format!("local/r{run}");
        let before = resources();
        let registered = events_of(&env, "resource.registered");
        let mut probe = registry_probe(&env);
        let path = root.to_str().unwrap();
        let ending = crasher.run(
            &env,
            &["resource", "add", "fs-directory", &name, "--path", path],
            &mut probe,
        );
        drop(probe);
        crasher.check(&ending, || {
            let temps = check_home(&env);
            let here = env.count(&format!(
                "SELECT count(*) FROM resources WHERE namespaced_name = '{name}'"
            ));
            // The log and the registry agree: the resource (with its whole
            // tree) and its one event, or neither.
            let recorded = events_of(&env, "resource.registered") - registered;
            assert_eq!(recorded, here, "{name}: {recorded} events, {here} rows");
            // The tree the first run (never killed) registered, whole or
            // not at all.
            let now = resources();
            let size = *tree.get_or_insert(now - before);
            assert!(
                now == before || now == before + size,
                "{now} resources: neither the {before} before nor all {size} of {name}'s tree"
            );
            if ending.finished() {
                assert_eq!(here, 1);
            }
            temps
        });
    }
    crasher.report();
}

/// The toggled file names of each directory below `local/r`, from the
/// registry.
fn toggled(env: &Env) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for name in env
        .strings("SELECT namespaced_name FROM resources WHERE namespaced_name LIKE 'local/r/d%/%'")
    {
        let mut parts = name.trim_start_matches("local/r/").split('/');
        let (dir, leaf) = (parts.next().unwrap(), parts.next().unwrap());
        let entry = out.entry(dir.to_owned()).or_default();
        if leaf.len() == 2 && (leaf.starts_with('a') || leaf.starts_with('b')) {
            entry.insert(leaf.to_owned());
        }
    }
    out
}

/// Shape `a` or `b` of a directory: five files of that letter.
fn shape(letter: char) -> BTreeSet<String> {
    (0..5).map(|i| format!("{letter}{i}")).collect()
}

#[test]
fn a_killed_refresh_leaves_each_resource_before_or_after() {
    const DIRS: usize = 16;
    let env = Env::new();
    let root = env.mkdir("proj");
    populate(&root, DIRS, 10);
    let mut letter = 'a';
    let write_shape = |letter: char| {
        let other = if letter == 'a' { 'b' } else { 'a' };
        for d in 0..DIRS {
            let dir = root.join(format!("d{d:02}"));
            for name in shape(other) {
                let _ = std::fs::remove_file(dir.join(name));
            }
            for name in shape(letter) {
                std::fs::write(dir.join(name), "shape\n").unwrap();
            }
        }
    };
    write_shape(letter);
    env.add("fs-directory", "local/r", &root, &[]).ok();
    env.run(&["resource", "discover", "--recursive", "local/r"])
        .ok();

    let mut crasher = Crasher::new("refresh");
    while crasher.more() {
        letter = if letter == 'a' { 'b' } else { 'a' };
        write_shape(letter);
        let mut probe = registry_probe(&env);
        let ending = crasher.run(&env, &["resource", "refresh"], &mut probe);
        drop(probe);
        crasher.check(&ending, || {
            let temps = check_home(&env);
            let dirs = toggled(&env);
            assert_eq!(dirs.len(), DIRS);
            for (dir, names) in &dirs {
                assert!(
                    *names == shape('a') || *names == shape('b'),
                    "{dir} holds a mix: {names:?}"
                );
                if ending.finished() {
                    assert_eq!(*names, shape(letter), "{dir} after a refresh");
                }
            }
            assert_one_tree(&env);
            // The next refresh completes what the killed one left: a
            // resource it updated must not look done when it is not.
            env.run(&["resource", "refresh"]).ok();
            for (dir, names) in toggled(&env) {
                assert_eq!(names, shape(letter), "{dir} after the next refresh");
            }
            temps
        });
    }
    crasher.report();
}

/// The registry's counts an import changes: resources, links, plugins,
/// custom types.
fn counts(env: &Env) -> [i64; 4] {
    [
        "SELECT count(*) FROM resources",
        "SELECT count(*) FROM resource_links",
        "SELECT count(*) FROM plugins",
        "SELECT count(*) FROM resource_types WHERE built_in = 0",
    ]
    .map(|sql| env.count(sql))
}

/// A registry to export: the example plugin, its type and a package of
/// it, and a discovered tree of about four hundred files.
fn exported_document() -> (Env, std::path::PathBuf, [i64; 4]) {
    let source = Env::new();
    source
        .run(&[
            "plugin",
            "add",
            wasm("python_package.wasm").to_str().unwrap(),
        ])
        .ok();
    source.run(&["resource", "type", "add", PACKAGE_TYPE]).ok();
    source.write(
        "pkg/pyproject.toml",
        "[project]\nname = \"acme\"\nversion = \"1.0\"\n",
    );
    source.write("pkg/src/acme/__init__.py", "");
    let pkg = source.path("pkg");
    source
        .add("myteam/python-package", "local/pkg", &pkg, &[])
        .ok();
    let tree = source.mkdir("tree");
    populate(&tree, 15, 20);
    source.add("fs-directory", "local/tree", &tree, &[]).ok();
    source
        .run(&["resource", "discover", "--recursive", "local/tree"])
        .ok();
    let doc = source.path("doc.json");
    source
        .run(&[
            "registry",
            "export",
            "--with-plugins",
            "--out",
            doc.to_str().unwrap(),
        ])
        .ok();
    let expected = counts(&source);
    (source, doc, expected)
}

/// Copy `from`'s compile-cache entries and seals into `to`'s home.
fn copy_compile_cache(from: &Env, to: &Env) {
    let (from, to) = (
        from.home.path().join("cache/components"),
        to.home.path().join("cache/components"),
    );
    std::fs::create_dir_all(&to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

#[test]
fn a_killed_import_leaves_the_whole_document_or_nothing() {
    let (source, doc, full) = exported_document();
    let doc = doc.to_str().unwrap();
    let mut crasher = Crasher::new("import");
    while crasher.more() {
        let env = Env::new();
        env.run(&["resource", "list"]).ok();
        // The compiled forms come from the source home, so a run costs the
        // import (the compile cache under kills is the plugin-add test's).
        copy_compile_cache(&source, &env);
        let empty = counts(&env);
        let mut probe = registry_probe(&env);
        let ending = crasher.run(&env, &["registry", "import", doc], &mut probe);
        drop(probe);
        crasher.check(&ending, || {
            let temps = check_home(&env);
            let now = counts(&env);
            assert!(
                now == empty || now == full,
                "{now:?}: neither nothing ({empty:?}) nor the document ({full:?})"
            );
            // The import's event is there exactly when its rows are.
            assert_eq!(events_of(&env, "registry.imported"), i64::from(now == full));
            if ending.finished() {
                assert_eq!(now, full);
            }
            for sha in env.strings("SELECT sha256 FROM plugins") {
                let file = env.home.path().join(format!("plugins/{sha}.wasm"));
                assert!(file.exists(), "a plugin row without its file");
            }
            // The next import completes it (or finds nothing to do), and
            // the plugin's handler runs from what the store holds.
            env.run(&["registry", "import", doc]).ok();
            assert_eq!(counts(&env), full);
            env.run(&["resource", "inspect", "local/pkg"]).ok();
            // The next write into the store and the cache removed what
            // the kill left there.
            assert_eq!(check_home(&env), 0, "temp files after the next commands");
            temps
        });
    }
    crasher.report();
}
