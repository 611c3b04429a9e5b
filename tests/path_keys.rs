//! A path finds its resource: wherever the CLI takes
//! NAME_OR_ID, a path — absolute, or `./…`, `../…`, `~/…` — names the
//! resource located there; of several at one location the deepest in the
//! DAG, or the one `--type` chooses; the library's
//! `ResourceKey::Location` is the same lookup.

use crate::common::{Env, git_repo};
use resource_host::home::Home;
use resource_host::model::{ResourceKey, TypeName};
use resource_host::registry::{NewResource, Registry};

fn id_of(env: &Env, key: &str, extra: &[&str]) -> String {
    let mut argv = vec!["resource", "show", key, "-o", "json"];
    argv.extend_from_slice(extra);
    env.run(&argv).json()["resource_id"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn notes(env: &Env) {
    for f in ["test_10.py", "my notes.txt", "café.txt"] {
        env.write(&format!("notes/{f}"), "x\n");
    }
    env.add("fs-directory", "local/notes", &env.path("notes"), &[])
        .ok();
}

#[test]
fn show_takes_an_absolute_or_a_relative_path_for_the_resource_there() {
    let env = Env::new();
    notes(&env);
    for file in ["test_10.py", "my notes.txt", "café.txt"] {
        let by_name = id_of(&env, &format!("local/notes/{file}"), &[]);
        let abs = std::fs::canonicalize(env.path("notes")).unwrap().join(file);
        assert_eq!(id_of(&env, abs.to_str().unwrap(), &[]), by_name, "{file}");
        // The working directory is the scratch directory.
        assert_eq!(
            id_of(&env, &format!("./notes/{file}"), &[]),
            by_name,
            "{file}"
        );
        let up = format!(
            "../{}/notes/{file}",
            env.path("").file_name().unwrap().to_str().unwrap()
        );
        assert_eq!(id_of(&env, &up, &[]), by_name, "{file}");
    }
    assert_eq!(id_of(&env, "./notes", &[]), id_of(&env, "local/notes", &[]));
    // Other verbs take paths the same way.
    let tree = env.run(&["resource", "tree", "./notes"]).ok().to_owned();
    assert!(tree.contains("my notes.txt"), "{tree}");
    env.run(&["resource", "discover", "./notes"]).ok();
}

#[test]
fn of_a_checkout_and_its_worktree_at_one_place_the_deepest_wins_unless_type_chooses() {
    let env = Env::new();
    git_repo(&env.path("repo"));
    env.add(
        "git-checkout",
        "local/r",
        &env.path("repo"),
        &["--branch", "main"],
    )
    .ok();
    let worktree = id_of(&env, "local/r/worktree", &[]);
    let checkout = id_of(&env, "local/r", &[]);
    assert_eq!(id_of(&env, "./repo", &[]), worktree);
    assert_eq!(id_of(&env, "./repo", &["--type", "git-checkout"]), checkout);
    assert_eq!(id_of(&env, "./repo", &["--type", "fs-directory"]), worktree);
    env.run(&["resource", "show", "./repo", "--type", "git-tag"])
        .refused(&[
            "no resource of type git-tag is located at",
            "agents resource which",
        ]);
    env.run(&["resource", "show", "local/r", "--type", "git-checkout"])
        .usage(&["--type chooses among the resources at a path"]);
}

#[test]
fn a_path_nothing_is_at_is_refused_with_the_way_to_find_what_is_near() {
    let env = Env::new();
    notes(&env);
    std::fs::create_dir_all(env.path("elsewhere")).unwrap();
    env.run(&["resource", "show", "./elsewhere"])
        .refused(&["no resource is located at", "agents resource which"]);
    env.run(&["resource", "show", "./does-not-exist"])
        .usage(&["cannot resolve path"]);
}

#[test]
fn the_library_finds_a_resource_by_its_location() {
    let dir = tempfile::tempdir().unwrap();
    let mut registry = Registry::open(&Home::new(dir.path().join("home"))).unwrap();
    let repo = dir.path().join("repo");
    git_repo(&repo);
    registry
        .register_resource(
            NewResource {
                type_name: "git-checkout".into(),
                name: Some("local/r".into()),
                args: vec![
                    ("path".into(), repo.display().to_string()),
                    ("branch".into(), "main".into()),
                ],
                ..NewResource::default()
            },
            Default::default(),
        )
        .unwrap();
    let place = std::fs::canonicalize(&repo).unwrap();
    let found = registry.show_resource(&ResourceKey::at(&place)).unwrap();
    assert_eq!(found.name.unwrap().as_str(), "local/r/worktree");
    let key = ResourceKey::at(&place)
        .of_type(TypeName::parse("git-checkout").unwrap())
        .unwrap();
    assert_eq!(
        registry.show_resource(&key).unwrap().name.unwrap().as_str(),
        "local/r"
    );
    let parsed: ResourceKey = place.to_str().unwrap().parse().unwrap();
    assert_eq!(parsed, ResourceKey::at(&place));
}
