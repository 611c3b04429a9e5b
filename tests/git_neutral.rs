//! Hostile repositories through the real binary: registration
//! (`resource add git-checkout`), `resource refresh` and `resource
//! inspect` run git in them, and git must run no program their
//! configuration names — directly, through `include.path` or
//! `includeIf` — nor a `git` they ship on a relative `PATH` entry. Each
//! hostile program appends to a canary file; the canary must never
//! appear.

use crate::common::{Env, Run, git, skipped};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// A shell command that appends `what` to `canary` and passes its input
/// through (as a filter would).
fn canary_program(canary: &Path, what: &str) -> String {
    format!("sh -c 'echo {what} >> {}; cat'", canary.display())
}

/// An executable script at `path` that appends `what` to `canary`.
fn canary_script(path: &Path, canary: &Path, what: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        path,
        format!("#!/bin/sh\necho {what} >> {}\ncat\n", canary.display()),
    )
    .unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Give `file` an old mtime: its size unchanged, git must read (and
/// clean-filter) it again to know whether it changed.
fn make_stale(file: &Path) {
    let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
    std::fs::File::options()
        .write(true)
        .open(file)
        .unwrap()
        .set_modified(old)
        .unwrap();
}

/// A checkout at `<scratch>/repo` whose committed `.gitattributes` gives
/// every file the filter and diff driver `x`, with a stash (the stash
/// listing is part of registration) and `a.txt` stale.
fn checkout(env: &Env) -> PathBuf {
    let repo = env.mkdir("repo");
    git(&repo, &["init", "-q"]);
    std::fs::write(repo.join("a.txt"), "a\n").unwrap();
    std::fs::write(repo.join(".gitattributes"), "* filter=x diff=x\n").unwrap();
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-qm", "one"]);
    std::fs::write(repo.join("a.txt"), "b\n").unwrap();
    git(&repo, &["stash", "-q"]);
    make_stale(&repo.join("a.txt"));
    repo
}

/// Register `repo` as `local/repo`, refresh it, inspect it and one of its
/// files (`a.txt` stale before each), then sandbox it, change the
/// sandbox's `a.txt`, checkpoint, diff and destroy it: every run works,
/// and after none has the canary appeared.
#[track_caller]
fn nothing_ran(env: &Env, repo: &Path, canary: &Path) {
    let ran = |run: &Run| {
        assert!(
            !canary.exists(),
            "a program the repository names ran: {}\nafter {run:?}",
            std::fs::read_to_string(canary).unwrap_or_default()
        );
    };
    let path = repo.to_str().unwrap();
    for args in [
        &[
            "resource",
            "add",
            "git-checkout",
            "local/repo",
            "--path",
            path,
        ][..],
        &["resource", "refresh", "local/repo"],
        &["resource", "inspect", "local/repo"],
        &["resource", "inspect", "--file", "a.txt", "local/repo"],
    ] {
        make_stale(&repo.join("a.txt"));
        let run = env.run(args);
        run.ok();
        ran(&run);
    }
    let create = env.run(&["sandbox", "create", "local/repo", "-o", "json"]);
    ran(&create);
    let made = create.json();
    let id = made["sandbox_id"].as_str().unwrap();
    let workdir = PathBuf::from(made["workdir"].as_str().unwrap());
    std::fs::write(workdir.join("a.txt"), "c\n").unwrap();
    for verb in ["checkpoint", "diff", "destroy"] {
        let run = env.run(&["sandbox", verb, id]);
        run.ok();
        ran(&run);
    }
}

/// `git config KEY VALUE` in `repo` for each pair.
fn configure(repo: &Path, pairs: &[(&str, &str)]) {
    for (key, value) in pairs {
        git(repo, &["config", key, value]);
    }
}

#[test]
fn a_clean_filter_the_repository_names_never_runs() {
    let env = Env::new();
    let repo = checkout(&env);
    let canary = env.path("canary");
    let (clean, smudge) = (
        canary_program(&canary, "clean"),
        canary_program(&canary, "smudge"),
    );
    configure(
        &repo,
        &[("filter.x.clean", &clean), ("filter.x.smudge", &smudge)],
    );
    nothing_ran(&env, &repo, &canary);
}

#[test]
fn a_long_running_filter_process_never_runs() {
    let env = Env::new();
    let repo = checkout(&env);
    let canary = env.path("canary");
    let process = canary_program(&canary, "process");
    configure(
        &repo,
        &[
            ("filter.x.process", &process),
            ("filter.x.required", "true"),
        ],
    );
    nothing_ran(&env, &repo, &canary);
}

#[test]
fn a_filter_named_through_include_or_include_if_never_runs() {
    // `include.path` naming a file with a clean filter, then an
    // `includeIf "gitdir:…"` naming one with a filter process.
    for (key, driver) in [("include.path", "clean"), ("includeIf", "process")] {
        let env = Env::new();
        let repo = checkout(&env);
        let canary = env.path("canary");
        // Quoted: `;` would start a comment.
        let included = env.write(
            "included.cfg",
            &format!(
                "[filter \"x\"]\n\t{driver} = \"{}\"\n",
                canary_program(&canary, key)
            ),
        );
        let key = match key {
            "includeIf" => format!("includeIf.gitdir:{}/.git.path", repo.display()),
            plain => plain.to_owned(),
        };
        configure(&repo, &[(&key, included.to_str().unwrap())]);
        nothing_ran(&env, &repo, &canary);
    }
}

#[test]
fn a_signed_stash_with_show_signature_runs_no_gpg_program() {
    let env = Env::new();
    let repo = checkout(&env);
    let canary = env.path("canary");
    // The stash commit again, with a (fake) signature header, on top of
    // the stash's reflog.
    let commit = git(&repo, &["cat-file", "commit", "refs/stash"]);
    let signed: String = commit
        .lines()
        .flat_map(|line| {
            let mut out = vec![format!("{line}\n")];
            if line.starts_with("committer ") {
                out.push(
                    "gpgsig -----BEGIN PGP SIGNATURE-----\n \n AAAA\n -----END PGP SIGNATURE-----\n"
                        .into(),
                );
            }
            out
        })
        .collect();
    let file = env.write("signed.commit", &signed);
    let id = git(
        &repo,
        &["hash-object", "-t", "commit", "-w", file.to_str().unwrap()],
    );
    git(
        &repo,
        &[
            "update-ref",
            "-m",
            "On main: signed",
            "refs/stash",
            id.trim(),
        ],
    );
    let gpg = env.path("gpg.sh");
    canary_script(&gpg, &canary, "gpg");
    let gpg = gpg.to_str().unwrap();
    configure(
        &repo,
        &[
            ("log.showSignature", "true"),
            ("gpg.program", gpg),
            ("gpg.openpgp.program", gpg),
        ],
    );
    // The oracle: git itself runs it for this stash listing.
    git(
        &repo,
        &["reflog", "show", "--format=%H", "refs/stash", "--"],
    );
    assert!(canary.exists(), "the signed stash does not make git verify");
    std::fs::remove_file(&canary).unwrap();

    nothing_ran(&env, &repo, &canary);
    let stashes = env.run(&["resource", "list", "-o", "json"]).json();
    let count = stashes
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["resource_type_name"] == "git-stash")
        .count();
    assert_eq!(count, 2, "both stashes are still listed");
}

/// The real `git`, by its absolute path.
fn real_git() -> PathBuf {
    std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .filter(|d| d.is_absolute())
        .map(|d| d.join("git"))
        .find(|p| p.is_file())
        .unwrap()
}

#[test]
fn a_git_the_repository_ships_is_never_run_through_an_empty_or_relative_path_entry() {
    let env = Env::new();
    let repo = checkout(&env);
    let canary = env.path("canary");
    let shipped = format!(
        "#!/bin/sh\necho shipped >> {}\nexec {} \"$@\"\n",
        canary.display(),
        real_git().display()
    );
    for fake in [repo.join("git"), repo.join("bin/git")] {
        std::fs::create_dir_all(fake.parent().unwrap()).unwrap();
        std::fs::write(&fake, &shipped).unwrap();
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let path = std::env::var("PATH").unwrap();
    for (n, search) in [
        format!(":{path}"),
        format!("bin:{path}"),
        format!(".:{path}"),
    ]
    .iter()
    .enumerate()
    {
        let name = format!("local/repo-{n}");
        let inside = |args: &[&str]| -> Run {
            env.command()
                .args(args)
                .current_dir(&repo)
                .env("PATH", search)
                .output()
                .unwrap()
                .into()
        };
        inside(&["resource", "add", "git-checkout", &name, "--path", "."]).ok();
        inside(&["resource", "refresh", &name]).ok();
        inside(&["resource", "inspect", &name]).ok();
        inside(&["sandbox", "create", &name]).ok();
        assert!(
            !canary.exists(),
            "PATH {search:?}: the repository's git ran: {}",
            std::fs::read_to_string(&canary).unwrap_or_default()
        );
    }
}

#[test]
fn what_git_already_held_stays_held() {
    let env = Env::new();
    let repo = checkout(&env);
    let canary = env.path("canary");
    let program = canary_program(&canary, "config");
    // A submodule from a URL that is a command (an `update = !command`
    // git refuses itself, from `.gitmodules`), dirty, whose own
    // configuration names a filter.
    let lib = env.mkdir("lib");
    git(&lib, &["init", "-q"]);
    std::fs::write(lib.join("l.txt"), "l\n").unwrap();
    std::fs::write(lib.join(".gitattributes"), "* filter=y\n").unwrap();
    git(&lib, &["add", "-A"]);
    git(&lib, &["commit", "-qm", "lib"]);
    git(&repo, &["clone", "-q", lib.to_str().unwrap(), "evil"]);
    std::fs::write(
        repo.join(".gitmodules"),
        format!(
            "[submodule \"evil\"]\n\tpath = evil\n\turl = \"ext::{program}\"\n\tignore = none\n"
        ),
    )
    .unwrap();
    git(&repo, &["add", ".gitmodules", "evil"]);
    git(&repo, &["commit", "-qm", "submodule"]);
    git(&repo.join("evil"), &["config", "filter.y.clean", &program]);
    make_stale(&repo.join("evil/l.txt"));
    // Then the repository's own configuration and hooks (the test's git
    // runs no more commands there).
    let hooks = env.mkdir("hooks");
    for hook in [
        "post-checkout",
        "reference-transaction",
        "pre-auto-gc",
        "post-index-change",
        "fsmonitor-watchman",
    ] {
        canary_script(&hooks.join(hook), &canary, hook);
        canary_script(&repo.join(".git/hooks").join(hook), &canary, hook);
    }
    let (helper, ext) = (format!("!{program}"), format!("ext::{program}"));
    configure(
        &repo,
        &[
            ("core.fsmonitor", program.as_str()),
            ("diff.x.textconv", &program),
            ("diff.x.command", &program),
            ("diff.external", &program),
            ("core.pager", &program),
            ("pager.status", &program),
            ("pager.log", &program),
            ("core.sshCommand", &program),
            ("core.askPass", &program),
            ("credential.helper", &helper),
            ("remote.origin.url", "ssh://example.com/x.git"),
            ("remote.origin.uploadpack", &program),
            ("remote.evil.url", &ext),
            ("core.hooksPath", hooks.to_str().unwrap()),
        ],
    );
    assert!(!canary.exists(), "the test's own git ran them");
    nothing_ran(&env, &repo, &canary);
}

#[test]
fn a_work_tree_moved_elsewhere_by_core_worktree_is_refused() {
    let env = Env::new();
    let repo = checkout(&env);
    let elsewhere = env.mkdir("elsewhere");
    env.write("elsewhere/secret.txt", "not the repository's\n");
    git(
        &repo,
        &["config", "core.worktree", elsewhere.to_str().unwrap()],
    );
    let path = repo.to_str().unwrap();
    env.run(&[
        "resource",
        "add",
        "git-checkout",
        "local/repo",
        "--path",
        path,
    ])
    .refused(&["core.worktree", "which does not hold it"]);
    let listed = env.run(&["resource", "list", "-o", "json"]).json();
    assert_eq!(listed.as_array().unwrap().len(), 0, "{listed}");
}

#[test]
fn a_repository_owned_by_another_user_is_refused_by_git() {
    if !rustix::process::geteuid().is_root() {
        skipped(
            "a_repository_owned_by_another_user_is_refused_by_git",
            "needs root to give the repository to another user",
        );
        return;
    }
    let env = Env::new();
    let repo = checkout(&env);
    let status = std::process::Command::new("chown")
        .args(["-R", "4242:4242"])
        .arg(&repo)
        .status()
        .unwrap();
    assert!(status.success());
    let path = repo.to_str().unwrap();
    env.run(&[
        "resource",
        "add",
        "git-checkout",
        "local/repo",
        "--path",
        path,
    ])
    .refused(&["dubious ownership"]);
}
