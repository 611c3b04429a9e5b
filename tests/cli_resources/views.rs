//! How `list`, `show` and `tree` read for people: natural order, filters,
//! limits and the terminal-only footer (`graph` is `cli_graph`).

use crate::common::Env;
use serde_json::Value;

/// `local/d`: files `f1`, `f2`, `f10`, `notes.txt` and `sub/x.txt`,
/// registered as a directory (two levels discovered).
fn tree(env: &Env) {
    for f in ["f10", "f2", "f1", "notes.txt", "sub/x.txt"] {
        env.write(&format!("d/{f}"), "x\n");
    }
    env.add("fs-directory", "local/d", &env.path("d"), &[]).ok();
}

/// `resource list ARGS` as printed, ids and the scratch directory
/// replaced by `<id>` and `<dir>` so it can be compared whole.
fn listed(env: &Env, args: &[&str]) -> String {
    let mut argv = vec!["resource", "list"];
    argv.extend_from_slice(args);
    let text = env.run(&argv).ok().to_owned();
    let mut json_args = argv.clone();
    json_args.extend(["-o", "json"]);
    let mut text = text;
    for r in env.run(&json_args).json().as_array().unwrap() {
        text = text.replace(r["resource_id"].as_str().unwrap(), "<id>");
    }
    let dir = std::fs::canonicalize(env.path("d")).unwrap();
    // Columns as cells: their widths follow the scratch path's length.
    text.replace(dir.to_str().unwrap(), "<dir>")
        .lines()
        .map(|l| {
            l.split("  ")
                .filter(|c| !c.is_empty())
                .map(str::trim)
                .collect::<Vec<_>>()
                .join(" | ")
                + "\n"
        })
        .collect()
}

fn names(list: &Value) -> Vec<&str> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect()
}

#[test]
fn list_sorts_names_naturally_and_keeps_registration_order_on_request() {
    let env = Env::new();
    tree(&env);
    assert_eq!(
        listed(&env, &[]),
        "NAME | TYPE | LOCATION | ID\n\
         local/d | fs-directory | <dir> | <id>\n\
         local/d/f1 | fs-file | <dir>/f1 | <id>\n\
         local/d/f2 | fs-file | <dir>/f2 | <id>\n\
         local/d/f10 | fs-file | <dir>/f10 | <id>\n\
         local/d/notes.txt | fs-file | <dir>/notes.txt | <id>\n\
         local/d/sub | fs-directory | <dir>/sub | <id>\n\
         local/d/sub/x.txt | fs-file | <dir>/sub/x.txt | <id>\n"
    );
    let json = env.run(&["resource", "list", "-o", "json"]).json();
    assert_eq!(
        names(&json)[1..4],
        ["local/d/f1", "local/d/f2", "local/d/f10"]
    );
    // Registration order: the ids' order, whatever the names.
    let registered = env
        .run(&["resource", "list", "--sort", "registered", "-o", "json"])
        .json();
    let ids: Vec<&str> = registered
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["resource_id"].as_str().unwrap())
        .collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted);
    assert_eq!(names(&registered)[0], "local/d");
}

#[test]
fn list_filters_by_name_glob_by_ancestor_and_limits() {
    let env = Env::new();
    tree(&env);
    let by_glob = env
        .run(&["resource", "list", "--name", "local/d/f*", "-o", "json"])
        .json();
    assert_eq!(names(&by_glob), ["local/d/f1", "local/d/f2", "local/d/f10"]);
    // `*` spans `/`.
    let txt = env
        .run(&["resource", "list", "--name", "*.txt", "-o", "json"])
        .json();
    assert_eq!(names(&txt), ["local/d/notes.txt", "local/d/sub/x.txt"]);
    let under = env
        .run(&["resource", "list", "--under", "local/d/sub", "-o", "json"])
        .json();
    assert_eq!(names(&under), ["local/d/sub/x.txt"]);
    let combined = env
        .run(&[
            "resource", "list", "--under", "local/d", "--type", "fs-file", "--limit", "2", "-o",
            "json",
        ])
        .json();
    assert_eq!(names(&combined), ["local/d/f1", "local/d/f2"]);
    let none = env
        .run(&["resource", "list", "--name", "nothing*", "-o", "json"])
        .json();
    assert_eq!(none, serde_json::json!([]));
    env.run(&["resource", "list", "--under", "local/nothing"])
        .refused(&["local/nothing"]);
    env.run(&["resource", "list", "--limit", "0"]).usage(&["0"]);
}

#[test]
fn a_backslash_in_a_name_glob_matches_a_wildcard_character_itself() {
    let env = Env::new();
    let dir = env.mkdir("w");
    for name in ["notes*", "notes.txt", "why?", "whyx"] {
        env.write(&format!("w/{name}"), "x\n");
    }
    env.add("fs-directory", "local/w", &dir, &[]).ok();
    let list = |glob: &str| -> Vec<String> {
        let listed = env
            .run(&["resource", "list", "--name", glob, "-o", "json"])
            .json();
        names(&listed).into_iter().map(str::to_owned).collect()
    };
    assert_eq!(list(r"local/w/notes\*"), ["local/w/notes*"]);
    assert_eq!(
        list("local/w/notes*"),
        ["local/w/notes*", "local/w/notes.txt"]
    );
    assert_eq!(list(r"local/w/why\?"), ["local/w/why?"]);
    assert_eq!(list("local/w/why?"), ["local/w/why?", "local/w/whyx"]);
}

/// Run `agents ARGS` as `env` runs it, its stdout a pseudo-terminal
/// (util-linux's `script`).
fn on_terminal(env: &Env, args: &[&str]) -> String {
    on_terminal_of(env, 80, args)
}

/// The same on a terminal `cols` wide.
fn on_terminal_of(env: &Env, cols: u16, args: &[&str]) -> String {
    let cmd = env.command();
    let quote = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
    let mut line = format!("stty rows 24 cols {cols}; ");
    line.push_str(&quote(cmd.get_program().to_str().unwrap()));
    for arg in cmd
        .get_args()
        .map(|a| a.to_str().unwrap())
        .chain(args.iter().copied())
    {
        line.push(' ');
        line.push_str(&quote(arg));
    }
    let mut script = std::process::Command::new("script");
    script.args(["-qec", &line, "/dev/null"]);
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => script.env(k, v),
            None => script.env_remove(k),
        };
    }
    let out = script
        .current_dir(cmd.get_current_dir().unwrap())
        .output()
        .expect("script (util-linux) runs a command on a pseudo-terminal");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).replace('\r', "")
}

#[test]
fn the_footer_counts_what_matched_on_a_terminal_only() {
    let env = Env::new();
    tree(&env);
    let shown = on_terminal(&env, &["resource", "list", "--limit", "2"]);
    assert!(shown.ends_with("7 resources (2 shown)\n"), "{shown}");
    assert_eq!(shown.lines().count(), 1 + 2 + 1, "{shown}");
    let piped = env.run(&["resource", "list", "--limit", "2"]);
    assert!(!piped.ok().contains("shown"), "{}", piped.stdout);
    assert_eq!(piped.stdout.lines().count(), 1 + 2);
}

#[test]
fn show_names_parents_and_children_with_their_types() {
    let env = Env::new();
    tree(&env);
    let sub = env
        .run(&["resource", "show", "local/d/sub"])
        .ok()
        .to_owned();
    let line = |key: &str| {
        sub.lines()
            .find(|l| l.starts_with(&format!("{key}:")))
            .unwrap_or_else(|| panic!("{key} in {sub}"))
            .split_once(':')
            .unwrap()
            .1
            .trim()
            .to_owned()
    };
    assert_eq!(line("parents"), "local/d (fs-directory)");
    assert_eq!(line("children"), "local/d/sub/x.txt (fs-file)");
    let root = env.run(&["resource", "show", "local/d"]).ok().to_owned();
    assert!(
        root.contains(
            "children:            local/d/f1 (fs-file), local/d/f2 (fs-file), \
             local/d/f10 (fs-file), local/d/notes.txt (fs-file), local/d/sub (fs-directory)\n"
        ),
        "{root}"
    );
    assert!(root.contains("parents:             -\n"), "{root}");
    // Programs keep the ids.
    let json = env
        .run(&["resource", "show", "local/d/sub", "-o", "json"])
        .json();
    let parent = env
        .run(&["resource", "show", "local/d", "-o", "json"])
        .json();
    assert_eq!(json["parents"], serde_json::json!([parent["resource_id"]]));
}

#[test]
fn show_lists_forty_children_and_counts_the_rest() {
    let env = Env::new();
    for i in 0..45 {
        env.write(&format!("many/f{i}"), "x\n");
    }
    env.add("fs-directory", "local/many", &env.path("many"), &[])
        .ok();
    let shown = env.run(&["resource", "show", "local/many"]).ok().to_owned();
    let children = shown.lines().find(|l| l.starts_with("children:")).unwrap();
    assert!(
        children
            .contains("local/many/f0 (fs-file), local/many/f1 (fs-file), local/many/f2 (fs-file)"),
        "{children}"
    );
    assert!(
        children.contains("local/many/f39 (fs-file), … 5 more (-o json lists all)"),
        "{children}"
    );
    assert!(!children.contains("f40"), "{children}");
}

#[test]
fn tree_lines_name_each_resource_below_its_parent() {
    let env = Env::new();
    tree(&env);
    let sub = env.mkdir("elsewhere");
    env.add("fs-directory", "local/other", &sub, &[]).ok();
    env.run(&["resource", "link-child", "local/d/sub", "local/other"])
        .ok();
    let dir = std::fs::canonicalize(env.path("d")).unwrap();
    let other = std::fs::canonicalize(&sub).unwrap();
    let d = dir.to_str().unwrap();
    let o = other.to_str().unwrap();
    let text = env.run(&["resource", "tree", "local/d"]).ok().to_owned();
    assert_eq!(
        text,
        format!(
            "local/d (fs-directory)  {d}\n\
             ├── f1 (fs-file)\n\
             ├── f2 (fs-file)\n\
             ├── f10 (fs-file)\n\
             ├── notes.txt (fs-file)\n\
             └── sub (fs-directory)\n\
             \u{20}   ├── x.txt (fs-file)\n\
             \u{20}   └── local/other (fs-directory)  {o}\n"
        )
    );
    let all = env
        .run(&["resource", "tree", "--locations", "--depth", "1", "local/d"])
        .ok()
        .to_owned();
    assert!(
        all.contains(&format!("├── f10 (fs-file)  {d}/f10\n")),
        "{all}"
    );
    let full = env
        .run(&[
            "resource",
            "tree",
            "--full-names",
            "--depth",
            "1",
            "local/d",
        ])
        .ok()
        .to_owned();
    assert!(
        full.contains(&format!("├── local/d/f10 (fs-file)  {d}/f10\n")),
        "{full}"
    );
}

#[test]
fn on_a_terminal_tree_lines_are_cut_to_its_width() {
    let env = Env::new();
    tree(&env);
    let text = on_terminal_of(&env, 30, &["resource", "tree", "--full-names", "local/d"]);
    assert!(text.lines().count() >= 7, "{text}");
    for line in text.lines() {
        assert!(line.chars().count() <= 30, "{line:?} is wider than 30");
    }
    assert!(text.contains("├── local/d/f10 (fs-file)  /t…\n"), "{text}");
}

#[test]
fn which_lists_the_resources_at_a_path_and_above_it_nearest_first() {
    let env = Env::new();
    let repo = env.path("repo");
    crate::common::git_repo(&repo);
    env.add("git-checkout", "local/repo", &repo, &[]).ok();
    let names_of = |args: &[&str]| -> Vec<String> {
        let mut argv = vec!["resource", "which"];
        argv.extend_from_slice(args);
        argv.extend(["-o", "json"]);
        names(&env.run(&argv).json())
            .into_iter()
            .map(str::to_owned)
            .collect()
    };
    // A file: itself, its directory, then the work tree before the
    // checkout (both at the root: the deeper first).
    let file = repo.join("src/main.py");
    env.run(&["resource", "discover", "local/repo/worktree/src"])
        .ok();
    assert_eq!(
        names_of(&[file.to_str().unwrap()]),
        [
            "local/repo/worktree/src/main.py",
            "local/repo/worktree/src",
            "local/repo/worktree",
            "local/repo"
        ]
    );
    // Relative to the working directory (the scratch directory), through
    // `..` too; a path nothing is at lists what is above it.
    assert_eq!(
        names_of(&["repo/src/../README.md"])[0],
        "local/repo/worktree/README.md"
    );
    env.write("repo/new.txt", "x\n");
    assert_eq!(
        names_of(&["./repo/new.txt"]),
        ["local/repo/worktree", "local/repo"]
    );
    let outside = env.run(&["resource", "which", "."]).ok().to_owned();
    assert!(
        outside.starts_with("no resource is located at "),
        "{outside}"
    );
    env.run(&["resource", "which", "repo/missing"]).refused(&[
        "cannot resolve path \"repo/missing\"",
        "give an existing file",
    ]);
}
