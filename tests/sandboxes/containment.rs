//! What a sandboxed agent cannot do to the host through its working copy:
//! make the host remove or rewrite what it mounted there, or have the host
//! hand its files privileges, or blow a sparse file up into real blocks.

use super::{create, project, sandbox, tree};
use crate::common::{Env, bind, skipped};
use std::os::unix::fs::{FileExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o7777
}

/// A bind mount of a directory from outside inside the working copy:
/// rollback, destroy and `resource remove --force` refuse it up front,
/// naming the mount point; nothing on it is removed or has its mode
/// changed, the sandbox stays usable, and once it is unmounted destroy
/// works.
#[test]
fn a_mount_inside_a_sandbox_is_refused_by_rollback_and_destroy_and_left_untouched() {
    for strategy in ["copy_on_write", "overlay"] {
        let env = Env::new();
        let original = project(&env);
        env.add("fs-directory", "local/project", &original, &[])
            .ok();
        let outside = env.mkdir("outside");
        env.write("outside/keep.txt", "not the sandbox's\n");
        env.write("outside/inner/deep.txt", "not the sandbox's either\n");
        std::fs::set_permissions(
            outside.join("inner"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        let before = tree(&outside);
        let sb = create(&env, "local/project", &["--strategy", strategy]);
        sandbox(&env, "checkpoint", &sb.id, &[]).ok();
        let point = sb.workdir.join("mnt");
        let Some(bound) = bind(&outside, &point) else {
            skipped(
                "a_mount_inside_a_sandbox_is_refused_by_rollback_and_destroy_and_left_untouched",
                "cannot bind-mount here (needs root)",
            );
            return;
        };
        let named = point.display().to_string();
        let refusal = ["mounted inside the sandbox", named.as_str(), "umount"];
        sandbox(&env, "rollback", &sb.id, &[]).refused(&refusal);
        sandbox(&env, "destroy", &sb.id, &[]).refused(&refusal);
        env.run(&["resource", "remove", "--force", "local/project"])
            .refused(&refusal);
        assert_eq!(
            tree(&outside),
            before,
            "{strategy}: what is mounted is untouched"
        );
        assert_eq!(
            mode(&outside.join("inner")),
            0o755,
            "{strategy}: and not chmodded"
        );
        let shown = sandbox(&env, "show", &sb.id, &["-o", "json"]).json();
        assert_eq!(
            shown["state"], "active",
            "{strategy}: refused before anything changed"
        );
        drop(bound);
        sandbox(&env, "destroy", &sb.id, &[]).ok();
        assert!(!sb.workdir.exists(), "{strategy}");
        assert_eq!(tree(&outside), before, "{strategy}");
    }
}

/// The area of a sandbox, from `sandbox show`.
fn area(env: &Env, id: &str) -> PathBuf {
    let shown = sandbox(env, "show", id, &["-o", "json"]).json();
    PathBuf::from(shown["area"].as_str().unwrap())
}

/// setuid and setgid bits (and sticky on a file) an agent sets in its
/// working copy never reach the original, nor a snapshot, nor a rolled
/// back file — the kernel overlay's `nosuid` mount included.
#[test]
fn apply_and_checkpoints_carry_content_not_setuid_or_setgid_bits() {
    for strategy in ["copy_on_write", "overlay"] {
        let env = Env::new();
        let original = project(&env);
        env.add("fs-directory", "local/project", &original, &[])
            .ok();
        let sb = create(&env, "local/project", &["--strategy", strategy]);
        let work = &sb.workdir;
        let set = |rel: &str, bits: u32| {
            std::fs::set_permissions(work.join(rel), std::fs::Permissions::from_mode(bits))
                .unwrap();
        };
        std::fs::write(work.join("run.sh"), "#!/bin/sh\necho changed\n").unwrap();
        set("run.sh", 0o4755);
        std::fs::write(work.join("group-tool"), "#!/bin/sh\n").unwrap();
        set("group-tool", 0o2755);
        std::fs::write(work.join("sticky.txt"), "sticky\n").unwrap();
        set("sticky.txt", 0o1644);
        std::fs::create_dir(work.join("shared")).unwrap();
        set("shared", 0o2775);
        sandbox(&env, "checkpoint", &sb.id, &[]).ok();
        if strategy == "copy_on_write" {
            let snapshot = area(&env, &sb.id).join("checkpoints/1/tree");
            assert_eq!(mode(&snapshot.join("run.sh")), 0o755);
            assert_eq!(mode(&snapshot.join("group-tool")), 0o755);
            // The agent sets it again; rollback brings back the snapshot's.
            set("run.sh", 0o6755);
            sandbox(&env, "rollback", &sb.id, &[]).ok();
            assert_eq!(mode(&work.join("run.sh")), 0o755);
        }
        sandbox(&env, "apply", &sb.id, &[]).ok();
        assert_eq!(
            std::fs::read_to_string(original.join("run.sh")).unwrap(),
            "#!/bin/sh\necho changed\n",
            "{strategy}: the content is applied"
        );
        for (rel, want) in [
            ("run.sh", 0o755),
            ("group-tool", 0o755),
            ("sticky.txt", 0o644),
            ("shared", 0o775),
        ] {
            assert_eq!(mode(&original.join(rel)), want, "{strategy}: {rel}");
        }
        sandbox(&env, "destroy", &sb.id, &[]).ok();
    }
}

/// A 4 GiB sparse file with a few bytes of data stays a few blocks in a
/// checkpoint and in the original after apply.
#[test]
fn a_sparse_file_keeps_its_holes_in_checkpoints_and_at_apply() {
    let env = Env::new();
    let original = project(&env);
    env.add("fs-directory", "local/project", &original, &[])
        .ok();
    let sb = create(&env, "local/project", &[]);
    let size = 4u64 << 30;
    let image = std::fs::File::create(sb.workdir.join("disk.img")).unwrap();
    image.set_len(size).unwrap();
    image.write_all_at(b"head", 0).unwrap();
    image.write_all_at(b"tail", size - 4).unwrap();
    drop(image);
    let small = |path: &Path| {
        let meta = std::fs::metadata(path).unwrap();
        assert_eq!(meta.len(), size, "{}", path.display());
        assert!(
            meta.blocks() * 512 < 1 << 20,
            "{} takes {} blocks",
            path.display(),
            meta.blocks()
        );
    };
    sandbox(&env, "checkpoint", &sb.id, &[]).ok();
    small(&area(&env, &sb.id).join("checkpoints/1/tree/disk.img"));
    sandbox(&env, "apply", &sb.id, &[]).ok();
    small(&original.join("disk.img"));
    let applied = std::fs::File::open(original.join("disk.img")).unwrap();
    let mut tail = [0u8; 4];
    applied.read_exact_at(&mut tail, size - 4).unwrap();
    assert_eq!(&tail, b"tail");
    sandbox(&env, "destroy", &sb.id, &[]).ok();
}
