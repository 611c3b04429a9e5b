//! A sandbox's paths come from the home and its resource, not from its
//! row: on a shared registry any teammate may change a row, so one whose
//! area, working copy or original disagrees is refused, never acted on
//! (run under `AGENTS_TEST_BACKEND=postgres` too, on the real server).

use super::{create, project, sandbox, tree};
use crate::common::Env;
use std::os::unix::fs::PermissionsExt;

/// A directory the tampered row points at, which must survive.
fn canary(env: &Env) -> std::path::PathBuf {
    let dir = env.mkdir("precious");
    env.write("precious/thesis.tex", "years of work\n");
    env.write("precious/data/results.csv", "1,2,3\n");
    dir
}

fn set(env: &Env, id: &str, column: &str, value: &str) {
    env.sql(&format!(
        "UPDATE sandboxes SET {column} = '{value}' WHERE sandbox_id = '{id}'"
    ));
}

#[test]
fn a_row_whose_area_names_another_directory_is_refused_and_that_directory_survives() {
    let env = Env::new();
    let original = project(&env);
    env.add("fs-directory", "local/p", &original, &[]).ok();
    let sb = create(&env, "local/p", &[]);
    sandbox(&env, "checkpoint", &sb.id, &[]).ok();
    let area = sb.workdir.parent().unwrap().to_owned();
    let precious = canary(&env);
    let before = tree(&precious);
    set(&env, &sb.id, "area", precious.to_str().unwrap());
    let named = precious.display().to_string();
    let refusal = [
        "area",
        named.as_str(),
        "changed outside agents",
        "UPDATE sandboxes SET area",
    ];
    sandbox(&env, "destroy", &sb.id, &[]).refused(&refusal);
    env.run(&["resource", "remove", "--force", "local/p"])
        .refused(&refusal);
    for verb in ["checkpoint", "diff", "apply", "rollback"] {
        sandbox(&env, verb, &sb.id, &[]).refused(&["area"]);
    }
    assert_eq!(tree(&precious), before, "nothing of it was removed");
    assert!(sb.workdir.exists());
    // Put back as the refusal says, and the sandbox is destroyed.
    set(&env, &sb.id, "area", area.to_str().unwrap());
    sandbox(&env, "destroy", &sb.id, &[]).ok();
    assert!(!area.exists());
    assert_eq!(tree(&precious), before);
}

#[test]
fn a_row_whose_working_copy_or_original_names_another_directory_is_refused() {
    let env = Env::new();
    let original = project(&env);
    env.add("fs-directory", "local/p", &original, &[]).ok();
    let sb = create(&env, "local/p", &[]);
    std::fs::write(sb.workdir.join("README.md"), "# changed\n").unwrap();
    let precious = canary(&env);
    let before = tree(&precious);
    let (workdir, original_text) = (sb.workdir.to_str().unwrap(), original.to_str().unwrap());

    set(&env, &sb.id, "workdir", precious.to_str().unwrap());
    sandbox(&env, "diff", &sb.id, &[]).refused(&["workdir", "changed outside agents"]);
    sandbox(&env, "destroy", &sb.id, &[]).refused(&["workdir"]);
    set(&env, &sb.id, "workdir", workdir);

    // The apply would have gone into the directory the row names.
    set(&env, &sb.id, "original", precious.to_str().unwrap());
    sandbox(&env, "apply", &sb.id, &[]).refused(&["original", "resource's location"]);
    assert_eq!(tree(&precious), before);
    set(&env, &sb.id, "original", original_text);
    sandbox(&env, "apply", &sb.id, &[]).ok();
    assert_eq!(
        std::fs::read_to_string(original.join("README.md")).unwrap(),
        "# changed\n"
    );
    sandbox(&env, "destroy", &sb.id, &[]).ok();
    assert_eq!(tree(&precious), before);
}

/// Whoever may write `sandboxes/` could swap an area for a link to
/// something of yours; so it must be private, like the plugin store.
#[test]
fn a_sandboxes_directory_others_may_write_or_own_is_refused() {
    let env = Env::new();
    let original = project(&env);
    env.add("fs-directory", "local/p", &original, &[]).ok();
    let sandboxes = env.home.path().join("sandboxes");
    std::fs::create_dir_all(&sandboxes).unwrap();
    std::fs::set_permissions(&sandboxes, std::fs::Permissions::from_mode(0o777)).unwrap();
    env.run(&["sandbox", "create", "local/p"]).refused(&[
        "sandboxes",
        "writable by its group and everyone",
        "chmod go-w",
    ]);
    std::fs::set_permissions(&sandboxes, std::fs::Permissions::from_mode(0o700)).unwrap();
    if rustix::process::geteuid().is_root() {
        std::os::unix::fs::chown(&sandboxes, Some(4321), None).unwrap();
        env.run(&["sandbox", "create", "local/p"])
            .refused(&["owned by uid 4321"]);
        std::os::unix::fs::chown(&sandboxes, Some(0), None).unwrap();
    }
    create(&env, "local/p", &[]);
}
