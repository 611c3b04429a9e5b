//! A full disk halfway through a sandbox operation.

use super::{create, sandbox, tree};
use crate::common::{Env, skipped, tmpfs};

/// A full disk halfway through: the sandboxes directory on a tiny tmpfs
/// (when this process may mount one). A create that does not fit leaves
/// no row and no files; a checkpoint that does not fit leaves no
/// checkpoint, and the earlier one still rolls back.
#[test]
fn a_full_disk_leaves_a_usable_sandbox_or_nothing() {
    let env = Env::new();
    let sandboxes = env.home.path().join("sandboxes");
    std::fs::create_dir_all(&sandboxes).unwrap();
    let Some(_tmpfs) = tmpfs(&sandboxes, "768k") else {
        skipped(
            "a_full_disk_leaves_a_usable_sandbox_or_nothing",
            "cannot mount a tmpfs here (needs root)",
        );
        return;
    };

    let big = env.mkdir("big");
    std::fs::write(big.join("a.bin"), vec![7u8; 1024 * 1024]).unwrap();
    env.add("fs-directory", "local/big", &big, &[]).ok();
    env.run(&["sandbox", "create", "local/big"])
        .refused(&["create failed", "No space left"]);
    assert_eq!(
        env.run(&["sandbox", "list", "-o", "json"]).json(),
        serde_json::json!([])
    );
    let left: Vec<_> = std::fs::read_dir(&sandboxes).unwrap().collect();
    assert!(left.is_empty(), "left behind: {left:?}");

    let small = env.mkdir("small");
    std::fs::write(small.join("a.txt"), "small\n").unwrap();
    env.add("fs-directory", "local/small", &small, &[]).ok();
    let sb = create(&env, "local/small", &[]);
    sandbox(&env, "checkpoint", &sb.id, &[]).ok();
    let first = tree(&sb.workdir);
    std::fs::write(sb.workdir.join("grown.bin"), vec![1u8; 500 * 1024]).unwrap();
    sandbox(&env, "checkpoint", &sb.id, &[]).refused(&["checkpoint failed", "No space left"]);
    let shown = sandbox(&env, "show", &sb.id, &["-o", "json"]).json();
    assert_eq!(shown["checkpoints"].as_array().unwrap().len(), 1, "{shown}");
    sandbox(&env, "rollback", &sb.id, &[]).ok();
    assert_eq!(tree(&sb.workdir), first);
    sandbox(&env, "destroy", &sb.id, &[]).ok();
}
