//! Files the host trusts, killed while being written: a `plugin add` (a
//! compile-cache entry and its seal, the plugin store's file and seal,
//! then the row) and a `copy_on_write` checkpoint (a snapshot built as
//! `<n>.tmp` and renamed into place, then its row).

use super::{Crasher, PACKAGE_TYPE, Probe, check_home, events_of, new_file_probe};
use crate::common::{Env, wasm};
use crate::sandboxes::tree;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[test]
fn a_killed_plugin_add_leaves_no_half_file_that_is_trusted() {
    let component = wasm("python_package.wasm");
    let sha = resource_host::digest::sha256_hex(&std::fs::read(&component).unwrap());
    let component = component.to_str().unwrap();
    let mut crasher = Crasher::new("plugin add");
    while crasher.more() {
        let env = Env::new();
        env.run(&["resource", "list"]).ok();
        let home = env.home.path();
        let mut probe = new_file_probe(vec![home.join("plugins"), home.join("cache/components")]);
        let ending = crasher.run(&env, &["plugin", "add", component], &mut probe);
        crasher.check(&ending, || {
            let temps = check_home(&env);
            let rows = env.strings("SELECT sha256 FROM plugins");
            assert!(rows.is_empty() || rows == [sha.as_str()], "{rows:?}");
            if ending.finished() {
                assert_eq!(rows, [sha.as_str()]);
            }
            if !rows.is_empty() {
                assert!(home.join(format!("plugins/{sha}.wasm")).exists());
                let kept = env.count("SELECT count(*) FROM plugin_components");
                assert_eq!(kept, 1, "the row's component bytes");
            }
            // The next commands: the add again, a type naming the module,
            // and two handler calls — the first may compile, the second
            // loads what the compile cache holds.
            env.run(&["plugin", "add", component]).ok();
            env.run(&["resource", "type", "add", PACKAGE_TYPE]).ok();
            env.write("pkg/pyproject.toml", "[project]\nname = \"acme\"\n");
            let pkg = env.path("pkg");
            env.add("myteam/python-package", "local/pkg", &pkg, &[])
                .ok();
            env.run(&["resource", "inspect", "local/pkg"]).ok();
            // The next write into the store and the cache removed what
            // the kill left there.
            assert_eq!(check_home(&env), 0, "temp files after the next commands");
            temps
        });
    }
    crasher.report();
}

/// The checkpoints of sandbox `id` by number, from `sandbox show`.
fn checkpoints(env: &Env, id: &str) -> Vec<i64> {
    let shown = env.run(&["sandbox", "show", id, "-o", "json"]).json();
    shown["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["number"].as_i64().unwrap())
        .collect()
}

/// A probe that fires once a checkpoint's `.tmp` directory appears.
fn tmp_probe(dir: PathBuf) -> Box<Probe<'static>> {
    Box::new(move || {
        std::fs::read_dir(&dir).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        })
    })
}

fn tmp_left(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".tmp"))
        .collect()
}

#[test]
fn a_killed_checkpoint_leaves_the_earlier_checkpoints_usable() {
    const FILES: u64 = 600;
    let env = Env::new();
    let original = env.mkdir("original");
    for i in 0..FILES {
        std::fs::write(original.join(format!("f{i}")), format!("{i}\n")).unwrap();
    }
    env.add("fs-directory", "local/sb", &original, &[]).ok();
    let made = env
        .run(&["sandbox", "create", "local/sb", "-o", "json"])
        .json();
    let id = made["sandbox_id"].as_str().unwrap().to_owned();
    let workdir = PathBuf::from(made["workdir"].as_str().unwrap());
    let snapshots = PathBuf::from(made["area"].as_str().unwrap()).join("checkpoints");

    // What each recorded checkpoint holds.
    let mut states = BTreeMap::new();
    let mut crasher = Crasher::new("checkpoint");
    let mut run = 0;
    while crasher.more() {
        // A third of the files rewritten, one file added, one removed.
        run += 1;
        for _ in 0..FILES / 3 {
            let f = crasher.rng().below(FILES);
            std::fs::write(workdir.join(format!("f{f}")), format!("run {run}\n")).unwrap();
        }
        std::fs::write(workdir.join(format!("new-{run}")), "new\n").unwrap();
        let _ = std::fs::remove_file(workdir.join(format!("new-{}", run - 1)));
        let expected = tree(&workdir);
        let before = checkpoints(&env, &id);
        let mut probe = tmp_probe(snapshots.clone());
        let ending = crasher.run(&env, &["sandbox", "checkpoint", &id], &mut probe);
        crasher.check(&ending, || {
            let temps = check_home(&env);
            let now = checkpoints(&env, &id);
            assert!(
                now.len() == before.len() || now.len() == before.len() + 1,
                "{before:?} → {now:?}"
            );
            if ending.finished() {
                assert_eq!(now.len(), before.len() + 1);
            }
            if now.len() > before.len() {
                states.insert(*now.last().unwrap(), expected.clone());
            }
            // The log and the registry agree: one event per checkpoint row.
            assert_eq!(
                events_of(&env, "sandbox.checkpointed"),
                now.len() as i64,
                "checkpoint events for {now:?}"
            );
            // Back to the latest checkpoint: exactly what it recorded.
            env.run(&["sandbox", "rollback", &id]).ok();
            let latest = now.last().expect("the first run is never killed");
            assert!(tree(&workdir) == states[latest], "rolled back to #{latest}");
            temps
        });
    }
    crasher.report();

    // Every recorded checkpoint still rolls back to what it holds, and a
    // checkpoint after them leaves no half one behind.
    for (number, state) in &states {
        env.run(&["sandbox", "rollback", &id, &number.to_string()])
            .ok();
        assert!(tree(&workdir) == *state, "rolled back to #{number}");
    }
    env.run(&["sandbox", "checkpoint", &id]).ok();
    assert_eq!(tmp_left(&snapshots), Vec::<String>::new());
}

/// Names at `dir`'s root that are an apply's staging directory.
fn staging_left(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(".agents-apply-"))
        .collect()
}

/// A `copy_on_write` apply killed anywhere — staging its copies, at its
/// commit point, renaming them into the original — is finished or undone
/// by the next command (here `destroy`, which does not apply anything of
/// its own): the original is then exactly as before or exactly the
/// working copy, never half, and nothing of ours is left inside it.
#[test]
fn a_killed_apply_leaves_the_original_before_or_after_never_half() {
    const FILES: u64 = 1500;
    let env = Env::new();
    let mut crasher = Crasher::new("apply");
    let mut run = 0;
    let (mut was_before, mut was_after) = (0, 0);
    while crasher.more() {
        run += 1;
        let original = env.mkdir(&format!("original-{run}"));
        for i in 0..FILES {
            std::fs::write(original.join(format!("f{i}")), format!("{i}\n")).unwrap();
        }
        let name = format!("local/apply-{run}");
        env.add("fs-directory", &name, &original, &[]).ok();
        let made = env.run(&["sandbox", "create", &name, "-o", "json"]).json();
        let id = made["sandbox_id"].as_str().unwrap().to_owned();
        let workdir = PathBuf::from(made["workdir"].as_str().unwrap());
        for i in 0..FILES / 2 {
            std::fs::write(workdir.join(format!("f{i}")), format!("changed {i}\n")).unwrap();
        }
        for i in 0..100 {
            std::fs::remove_file(workdir.join(format!("f{}", FILES - 1 - i))).unwrap();
            std::fs::write(workdir.join(format!("new-{i}")), "new\n").unwrap();
        }
        let before = tree(&original);
        let after = tree(&workdir);
        let mut probe = new_file_probe(vec![original.clone()]);
        let ending = crasher.run(&env, &["sandbox", "apply", &id], &mut probe);
        crasher.check(&ending, || {
            let temps = check_home(&env) + staging_left(&original).len();
            if ending.finished() {
                assert!(tree(&original) == after, "a finished apply");
            }
            env.run(&["sandbox", "destroy", &id]).ok();
            let now = tree(&original);
            if now == before {
                was_before += 1;
            } else {
                assert!(now == after, "the original is half applied");
                was_after += 1;
            }
            assert_eq!(staging_left(&original), Vec::<String>::new());
            temps
        });
    }
    eprintln!("apply crash: original as before {was_before}, as after {was_after}");
    crasher.report();
}
