//! What a user hits in ordinary use: each test is one of the
//! small wrongs found by using the release binary as a new user would.

use crate::common::{Env, git, git_repo};

/// The target of one log line (`agents: debug: [target] …`).
fn log_target(line: &str) -> Option<&str> {
    let rest = line.split_once(": [")?.1;
    rest.split_once(']').map(|(target, _)| target)
}

#[test]
fn very_verbose_shows_the_hosts_own_lines_and_the_compilers_only_at_the_most_verbose_level() {
    let env = Env::new();
    let dir = env.mkdir("small");
    env.write("small/a.txt", "a");
    // A fresh home compiles the built-in components: Cranelift logs every
    // pass at debug level.
    let path = dir.display().to_string();
    let run = env.run(&[
        "-vv",
        "resource",
        "add",
        "fs-directory",
        "local/small",
        "--path",
        &path,
    ]);
    run.ok();
    let foreign: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| {
            let first = log_target(l).map(|t| t.split("::").next().unwrap_or(t));
            !matches!(
                first,
                Some("resource_host" | "agents" | "plugin" | "sandbox")
            )
        })
        .collect();
    assert!(
        foreign.is_empty(),
        "-vv printed other crates' lines: {:?}",
        &foreign[..foreign.len().min(5)]
    );
    assert!(
        run.stderr.lines().count() < 200,
        "-vv printed {} lines",
        run.stderr.lines().count()
    );

    let env = Env::new();
    let run = env.run(&[
        "-vvv",
        "resource",
        "add",
        "fs-directory",
        "local/small",
        "--path",
        &path,
    ]);
    run.ok();
    assert!(
        run.stderr.lines().any(|l| log_target(l)
            .is_some_and(|t| t.starts_with("cranelift") || t.starts_with("wasmtime"))),
        "-vvv shows the compiler's lines"
    );
}

/// Every resource's name, content hash and `updated_at`, by name.
fn hashes_and_times(env: &Env) -> Vec<(String, String, String)> {
    let list = env.run(&["resource", "list", "-o", "json"]).json();
    let mut rows: Vec<_> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap_or_default().to_owned(),
                r["content_hash"].to_string(),
                r["updated_at"].to_string(),
            )
        })
        .collect();
    rows.sort();
    rows
}

#[test]
fn rediscovering_an_unchanged_checkout_rewrites_nothing() {
    let env = Env::new();
    let repo = env.path("api");
    git_repo(&repo);
    env.add("git-checkout", "local/api", &repo, &[]).ok();
    let before = hashes_and_times(&env);
    assert!(
        before
            .iter()
            .any(|(n, h, _)| n == "local/api/git" && h != "null"),
        "the repository has a hash: {before:?}"
    );
    let out = env.run(&["resource", "discover", "local/api"]);
    assert!(out.ok().contains("0 updated"), "{}", out.stdout);
    assert_eq!(hashes_and_times(&env), before);
    // Nor does the next refresh find anything changed.
    let refresh = env.run(&["resource", "refresh", "-o", "json"]).json();
    assert_eq!(
        refresh["changed"].as_array().map(Vec::len),
        Some(0),
        "{refresh}"
    );
    assert_eq!(hashes_and_times(&env), before);
}

#[test]
fn inspect_shows_how_far_a_branch_is_from_its_upstream() {
    let env = Env::new();
    let origin = env.path("origin.git");
    std::fs::create_dir_all(&origin).unwrap();
    git(&origin, &["init", "-q", "--bare"]);
    let repo = env.path("up");
    git_repo(&repo);
    git(
        &repo,
        &["remote", "add", "origin", origin.to_str().unwrap()],
    );
    git(&repo, &["push", "-q", "origin", "main"]);
    git(&repo, &["branch", "-q", "--set-upstream-to", "origin/main"]);
    std::fs::write(repo.join("next.txt"), "next\n").unwrap();
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "one ahead"]);
    env.add("git-checkout", "local/up", &repo, &[]).ok();

    let text = env.run(&["resource", "inspect", "local/up"]);
    assert!(
        text.ok()
            .contains("upstream origin/main: ahead 1, behind 0"),
        "{}",
        text.stdout
    );
    let json = env
        .run(&["resource", "inspect", "local/up", "-o", "json"])
        .json();
    assert_eq!(json["fields"]["upstream"], "origin/main", "{json}");
    assert_eq!(json["fields"]["ahead"], "1");
    assert_eq!(json["fields"]["behind"], "0");
}

#[test]
fn inspecting_a_file_that_is_not_there_is_refused_as_not_found() {
    let env = Env::new();
    let repo = env.path("api");
    git_repo(&repo);
    env.add("git-checkout", "local/api", &repo, &[]).ok();
    env.run(&["resource", "inspect", "local/api", "--file", "no/such.py"])
        .refused(&["not found", "no/such.py", "neither on disk nor tracked"]);
    // A tracked file deleted from the disk is still there to inspect.
    std::fs::remove_file(repo.join("README.md")).unwrap();
    let gone = env.run(&["resource", "inspect", "local/api", "--file", "README.md"]);
    assert!(
        gone.ok().contains("deleted (not staged)"),
        "{}",
        gone.stdout
    );

    let dir = env.mkdir("plain");
    env.write("plain/a.txt", "a");
    env.add("fs-directory", "local/plain", &dir, &[]).ok();
    env.run(&["resource", "inspect", "local/plain", "--file", "b.txt"])
        .refused(&["not found", "b.txt"]);
}

#[test]
fn rollback_takes_a_checkpoint_by_the_reference_checkpoint_answered() {
    let env = Env::new();
    let repo = env.path("api");
    git_repo(&repo);
    env.add("git-checkout", "local/api", &repo, &[]).ok();
    let made = env
        .run(&["sandbox", "create", "local/api", "-o", "json"])
        .json();
    let id = made["sandbox_id"].as_str().unwrap();
    let workdir = std::path::PathBuf::from(made["workdir"].as_str().unwrap());
    std::fs::write(workdir.join("README.md"), "first\n").unwrap();
    let first = env.run(&["sandbox", "checkpoint", id, "-o", "json"]).json();
    let reference = first["reference"].as_str().unwrap().to_owned();
    std::fs::write(workdir.join("README.md"), "second\n").unwrap();
    env.run(&["sandbox", "checkpoint", id]).ok();

    env.run(&["sandbox", "rollback", id, &reference]).ok();
    assert_eq!(
        std::fs::read_to_string(workdir.join("README.md")).unwrap(),
        "first\n"
    );
    // An abbreviated commit id, as git shows one, names it too; a prefix
    // too short to be an abbreviation does not.
    std::fs::write(workdir.join("README.md"), "third\n").unwrap();
    env.run(&["sandbox", "rollback", id, &reference[..8]]).ok();
    assert_eq!(
        std::fs::read_to_string(workdir.join("README.md")).unwrap(),
        "first\n"
    );
    let short = &reference[..4];
    // (Unless those four happen to read as a checkpoint's number.)
    if !matches!(short.parse::<i64>(), Ok(1 | 2)) {
        env.run(&["sandbox", "rollback", id, short])
            .refused(&["no checkpoint", "#1", "#2"]);
    }
    env.run(&["sandbox", "destroy", id]).ok();
}

#[test]
fn directories_holding_absolute_symlinks_register_each_link_with_its_target() {
    let env = Env::new();
    let dir = env.mkdir("config");
    env.write("config/app.yaml", "a: 1\n");
    std::os::unix::fs::symlink("/etc/hostname", dir.join("host")).unwrap();
    std::os::unix::fs::symlink("/nonexistent/dangling", dir.join("gone")).unwrap();
    env.add("fs-directory", "local/config-dir", &dir, &[]).ok();
    for (name, target) in [("host", "/etc/hostname"), ("gone", "/nonexistent/dangling")] {
        let link = env
            .run(&[
                "resource",
                "show",
                &format!("local/config-dir/{name}"),
                "-o",
                "json",
            ])
            .json();
        assert_eq!(link["resource_type_name"], "fs-symlink", "{link}");
        assert_eq!(link["properties"]["target"], target, "{link}");
    }
    // The same inside a checkout, through its worktree directory.
    let repo = env.path("api");
    git_repo(&repo);
    std::os::unix::fs::symlink("/etc/hostname", repo.join("host-link")).unwrap();
    env.add("git-checkout", "local/api", &repo, &[]).ok();
    let link = env
        .run(&[
            "resource",
            "show",
            "local/api/worktree/host-link",
            "-o",
            "json",
        ])
        .json();
    assert_eq!(link["properties"]["target"], "/etc/hostname", "{link}");
}

#[test]
fn messages_say_what_they_mean_once() {
    let env = Env::new();
    let repo = env.path("api");
    git_repo(&repo);
    env.add("git-checkout", "local/api", &repo, &[]).ok();
    // `inherit`: an article that fits, and a resource above it that
    // isolates (the repository's strategy is `none`, so the checkout).
    env.run(&["sandbox", "create", "local/api/git/branch/main"])
        .refused(&[
            "cannot create an inherit sandbox of local/api/git/branch/main",
            "create a sandbox of local/api",
        ]);
    let refused = env.run(&["sandbox", "create", "local/api/git/branch/main"]);
    assert!(
        !refused.stderr.contains("local/api/git or"),
        "{}",
        refused.stderr
    );
    // `none` warns once.
    let none = env.run(&["sandbox", "create", "local/api", "--strategy", "none"]);
    none.ok();
    assert_eq!(
        none.stderr.matches("own risk").count(),
        1,
        "{}",
        none.stderr
    );
    // A missing path is said once.
    let missing = env.run(&[
        "resource",
        "add",
        "fs-directory",
        "local/x",
        "--path",
        "/nonexistent/x",
    ]);
    let text = missing.refused(&["--path /nonexistent/x: No such file or directory"]);
    assert_eq!(
        text.to_lowercase().matches("no such file").count(),
        1,
        "{text}"
    );
    // Counts agree with their nouns.
    let inspected = env.run(&["resource", "inspect", "local/api/git"]);
    assert!(
        inspected
            .ok()
            .contains("1 branch, 0 tags, 0 remote branches, 0 remotes, 0 stashes, 0 submodules"),
        "{}",
        inspected.stdout
    );
    // A virtual parent type is an identity, not a place.
    let fs_file = env.run(&["resource", "type", "show", "fs-file"]);
    assert!(
        fs_file
            .ok()
            .contains("fs-directory, file (virtual identity)"),
        "{}",
        fs_file.stdout
    );
    // Depth 0 is refused by tree as by discover; a name outside ASCII is
    // a usage error for add as for every NAME_OR_ID.
    env.run(&["resource", "tree", "local/api", "--depth", "0"])
        .usage(&["--depth"]);
    env.run(&["resource", "discover", "local/api", "--depth", "0"])
        .usage(&["--depth"]);
    let dir = env.mkdir("d");
    let path = dir.display().to_string();
    // Letters of any script are a name; a space in a chosen name is not.
    env.run(&[
        "resource",
        "add",
        "fs-directory",
        "local/my repo",
        "--path",
        &path,
    ])
    .usage(&["letters and digits (any script)"]);
}

#[test]
fn a_repository_with_more_refs_than_the_old_cap_registers_and_the_cap_names_its_flag() {
    let env = Env::new();
    let repo = env.path("mirror");
    git_repo(&repo);
    let head = git(&repo, &["rev-parse", "HEAD"]).trim().to_owned();
    // 12,000 branches (a mirror's pull-request heads, say): more than the
    // 10,000 children one answer could hold.
    let refs: String = (0..12_000)
        .map(|i| format!("create refs/heads/pr/{i} {head}\n"))
        .collect();
    let mut update = std::process::Command::new("git")
        .args(["update-ref", "--stdin"])
        .current_dir(&repo)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    update
        .stdin
        .take()
        .unwrap()
        .write_all(refs.as_bytes())
        .unwrap();
    assert!(update.wait().unwrap().success());
    git(&repo, &["pack-refs", "--all"]);

    let path = repo.display().to_string();
    env.run(&[
        "--handler-max-children",
        "5000",
        "resource",
        "add",
        "git-checkout",
        "local/m",
        "--path",
        &path,
    ])
    .refused(&[
        "12001 children, more than the 5000 allowed",
        "--handler-max-children",
    ]);
    env.run(&[
        "--handler-timeout",
        "120",
        "resource",
        "add",
        "git-checkout",
        "local/m",
        "--path",
        &path,
    ])
    .ok();
    let git_children = env
        .run(&["resource", "show", "local/m/git", "-o", "json"])
        .json();
    assert_eq!(git_children["children"].as_array().unwrap().len(), 12_001);
}

#[test]
fn a_remote_repository_registers_its_branches_and_tags_from_a_listing() {
    let env = Env::new();
    let origin = env.path("origin.git");
    std::fs::create_dir_all(&origin).unwrap();
    git(&origin, &["init", "-q", "--bare", "-b", "main"]);
    let work = env.path("work");
    git_repo(&work);
    git(&work, &["tag", "-a", "v1", "-m", "one"]);
    let url = format!("file://{}", origin.display());
    git(&work, &["push", "-q", &url, "main", "v1"]);

    env.run(&["resource", "add", "git", "local/rem", "--url", &url])
        .ok();
    let tree = env
        .run(&["resource", "tree", "local/rem", "-o", "json"])
        .json();
    let names: Vec<&str> = tree["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["local/rem/branch/main", "local/rem/tag/v1"],
        "{tree}"
    );
    let head = git(&work, &["rev-parse", "HEAD"]).trim().to_owned();
    let main = env
        .run(&["resource", "show", "local/rem/branch/main", "-o", "json"])
        .json();
    assert_eq!(main["properties"]["head-sha"], head.as_str());
    assert!(main["location"].is_null());
    let inspected = env
        .run(&["resource", "inspect", "local/rem", "-o", "json"])
        .json();
    assert_eq!(inspected["fields"]["remote"], "true", "{inspected}");
    assert_eq!(inspected["fields"]["branches"], "1");

    // The remote moves on: refresh lists it again.
    git(&work, &["push", "-q", &url, "main:refs/heads/next"]);
    let refreshed = env.run(&["resource", "refresh", "-o", "json"]).json();
    assert_eq!(
        refreshed["changed"][0]["added"],
        serde_json::json!(["local/rem/branch/next"]),
        "{refreshed}"
    );
}

#[test]
fn a_remote_url_git_would_run_a_program_for_or_that_holds_a_password_is_refused() {
    let env = Env::new();
    let canary = env.path("CANARY");
    for url in [
        format!("ext::sh -c touch% {}", canary.display()),
        format!("ext::touch {}", canary.display()),
        format!("--upload-pack=touch {}", canary.display()),
    ] {
        env.run(&[
            "resource",
            "add",
            "git",
            "local/bad",
            &format!("--url={url}"),
        ])
        .refused(&["cannot list the remote's refs"]);
    }
    assert!(!canary.exists(), "a transport helper ran");
    let secret = env.run(&[
        "resource",
        "add",
        "git",
        "local/pw",
        "--url",
        "https://alice:S3cret@127.0.0.1:1/x.git",
    ]);
    let text = secret.refused(&["password"]);
    assert!(!text.contains("S3cret"), "{text}");
    // Unreachable: refused with git's own reason, at once (no prompt).
    env.run(&[
        "resource",
        "add",
        "git",
        "local/down",
        "--url",
        "https://127.0.0.1:1/x.git",
    ])
    .refused(&["127.0.0.1"]);
    assert_eq!(
        env.run(&["resource", "list", "-o", "json"]).json(),
        serde_json::json!([])
    );
}
