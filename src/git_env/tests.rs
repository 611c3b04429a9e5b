//! The key-neutralising logic on listings written by hand, then against
//! the real `git` on hostile repositories made here (a canary file
//! appears if a program the configuration names runs).

use super::*;
use std::ffi::OsString;
use std::path::Path;

/// A hermetic `git` command, as the host makes one (on the standard
/// `PATH`).
fn git() -> std::process::Command {
    let tools = GitTools::default();
    let found = tools.find().unwrap();
    let mut cmd = std::process::Command::new(found.path);
    cmd.env_clear().envs(found.hermetic());
    cmd
}

#[test]
fn git_is_found_only_on_the_path_handed_in_never_the_process_s() {
    // The test process's own PATH has a git; a PATH handed in without
    // one finds none, and says where it looked.
    let empty = tempfile::tempdir().unwrap();
    let tools = GitTools::on_path(empty.path().as_os_str());
    let why = tools.find().unwrap_err();
    assert!(why.contains(&empty.path().display().to_string()), "{why}");
    // The PATH handed to git is what was handed in, absolute entries only.
    let path = format!("{}:relative:", empty.path().display());
    let tools = GitTools::with_program("/nowhere/git", OsStr::new(&path));
    let found = tools.find().unwrap();
    assert_eq!(found.path, Path::new("/nowhere/git"));
    let handed: Vec<_> = found
        .hermetic()
        .into_iter()
        .filter(|(k, _)| k == "PATH")
        .collect();
    assert_eq!(
        handed,
        [("PATH".into(), empty.path().as_os_str().to_owned())]
    );
}

/// The `key=value` arguments of `neutral`, as text.
fn overrides(neutral: &Neutral) -> Vec<String> {
    let args = neutral.args();
    assert!(args.chunks(2).all(|pair| pair[0] == "-c"), "{args:?}");
    args.chunks(2)
        .map(|pair| pair[1].to_string_lossy().into_owned())
        .collect()
}

/// A listing as `git config --list --null --name-only --show-origin`
/// writes it: origin, key, each NUL-terminated.
fn listing(entries: &[(&str, &str)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (origin, key) in entries {
        out.extend_from_slice(origin.as_bytes());
        out.push(0);
        out.extend_from_slice(key.as_bytes());
        out.push(0);
    }
    out
}

#[test]
fn the_fixed_keys_are_overridden_before_anything_is_known() {
    let fixed = overrides(&Neutral::fixed());
    for key in [
        "core.fsmonitor=false",
        "core.hooksPath=/dev/null",
        "log.showSignature=false",
        "gpg.program=",
        "gpg.ssh.program=",
        "diff.external=",
        "core.pager=cat",
        "credential.helper=",
        "submodule.recurse=false",
        "protocol.allow=never",
    ] {
        assert!(fixed.iter().any(|o| o == key), "{key} not in {fixed:?}");
    }
    assert!(
        !fixed.iter().any(|o| o.contains('*')),
        "a pattern is never an argument: {fixed:?}"
    );
}

#[test]
fn every_program_a_listing_names_is_overridden_and_nothing_else() {
    let out = listing(&[
        ("file:.git/config", "core.bare"),
        ("file:.git/config", "remote.origin.url"),
        ("file:.git/config", "filter.lfs.clean"),
        ("file:.git/config", "filter.lfs.required"),
        ("file:/elsewhere/inc.cfg", "filter.a.b.process"),
        ("file:.git/config", "diff.Pic.textconv"),
        ("file:.git/config", "diff.pic.command"),
        ("file:.git/config", "merge.ours.driver"),
        ("file:.git/config", "pager.log"),
        ("file:.git/config", "credential.https://example.com.helper"),
        ("file:.git/config", "gpg.custom.program"),
        ("file:.git/config", "hook.lint.command"),
        ("file:.git/config", "filter.x.clean"),
        ("file:.git/config", "filter.x.clean"),
        ("file:.git/config", "filter.y.other"),
        ("file:.git/config", "pager.log.extra"),
    ]);
    let neutral = Neutral::from_listing(&out, Path::new("/repo"), None).unwrap();
    let all = overrides(&neutral);
    let listed = &all[overrides(&Neutral::fixed()).len()..];
    assert_eq!(
        listed,
        [
            "filter.lfs.clean=",
            "filter.lfs.required=false",
            "filter.a.b.process=",
            "diff.Pic.textconv=",
            "diff.pic.command=",
            "merge.ours.driver=",
            "pager.log=false",
            "credential.https://example.com.helper=",
            "gpg.custom.program=",
            "hook.lint.enabled=false",
            "filter.x.clean=",
        ],
        "a subsection is kept byte for byte, a key named twice once"
    );
}

#[test]
fn section_and_name_match_without_case_as_git_reads_them() {
    let out = listing(&[("file:c", "FILTER.X.Clean"), ("file:c", "Pager.Log")]);
    let all = overrides(&Neutral::from_listing(&out, Path::new("/"), None).unwrap());
    assert!(all.iter().any(|o| o == "filter.X.clean="), "{all:?}");
    assert!(all.iter().any(|o| o == "pager.Log=false"), "{all:?}");
}

#[test]
fn our_own_command_line_keys_are_not_listed_again() {
    let out = listing(&[("command line:", "pager.log")]);
    let neutral = Neutral::from_listing(&out, Path::new("/"), None).unwrap();
    assert_eq!(neutral, Neutral::fixed());
}

#[test]
fn a_driver_whose_name_holds_an_equals_sign_is_refused() {
    let out = listing(&[("file:c", "filter.a=b.clean")]);
    let err = Neutral::from_listing(&out, Path::new("/"), None).unwrap_err();
    assert!(
        matches!(&err, NeutralError::Unoverridable { key } if key == "filter.a=b.clean"),
        "{err:?}"
    );
    assert!(err.to_string().contains("cannot override"), "{err}");
    // A key naming no program may hold one.
    let out = listing(&[("file:c", "branch.a=b.remote")]);
    Neutral::from_listing(&out, Path::new("/"), None).unwrap();
}

#[test]
fn a_repository_naming_too_many_programs_is_refused() {
    let keys: Vec<(String, String)> = (0..=MAX_OVERRIDES)
        .map(|n| ("file:c".to_owned(), format!("filter.f{n}.clean")))
        .collect();
    let entries: Vec<(&str, &str)> = keys.iter().map(|(o, k)| (&**o, &**k)).collect();
    let err = Neutral::from_listing(&listing(&entries), Path::new("/"), None).unwrap_err();
    assert_eq!(
        err,
        NeutralError::TooMany {
            count: MAX_OVERRIDES + 1
        }
    );
}

#[test]
fn a_listing_cut_halfway_is_refused() {
    let err = Neutral::from_listing(b"file:c\0", Path::new("/"), None).unwrap_err();
    assert!(matches!(err, NeutralError::Listing(_)), "{err:?}");
}

#[test]
fn configuration_from_inside_the_sandbox_is_refused_by_name_or_by_real_path() {
    let tmp = tempfile::tempdir().unwrap();
    let area = tmp.path().join("area");
    std::fs::create_dir_all(area.join("work")).unwrap();
    std::fs::write(area.join("work/evil.cfg"), "").unwrap();
    let outside = tmp.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::os::unix::fs::symlink(area.join("work/evil.cfg"), outside.join("link.cfg")).unwrap();
    let area = std::fs::canonicalize(&area).unwrap();
    let outside = std::fs::canonicalize(&outside).unwrap();
    let check = |origin: String, cwd: &Path| {
        let out = listing(&[(&origin, "user.name")]);
        Neutral::from_listing(&out, cwd, Some(&area))
    };
    let named = check(format!("file:{}/work/evil.cfg", area.display()), &outside);
    assert!(
        matches!(named, Err(NeutralError::Writable { .. })),
        "{named:?}"
    );
    let relative = check("file:work/evil.cfg".to_owned(), &area);
    assert!(matches!(relative, Err(NeutralError::Writable { .. })));
    let linked = check(format!("file:{}/link.cfg", outside.display()), &outside);
    let err = linked.unwrap_err();
    assert!(
        err.to_string()
            .contains("which the sandboxed agent can write"),
        "{err}"
    );
    check(format!("file:{}/other.cfg", outside.display()), &outside).unwrap();
    // Without a sandbox, nothing is refused for where it is.
    let out = listing(&[("file:work/evil.cfg", "user.name")]);
    Neutral::from_listing(&out, &area, None).unwrap();
}

#[test]
fn every_program_git_documents_is_overridden_or_held_otherwise() {
    let out = git().args(["help", "--config"]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let commandish = |key: &str| {
        let last = key.rsplit('.').next().unwrap_or_default();
        key.starts_with("pager.")
            || [
                "command",
                "cmd",
                "program",
                "helper",
                "textconv",
                "driver",
                "process",
                "clean",
                "smudge",
                "editor",
                "pager",
                "askpass",
                "sshcommand",
                "gitproxy",
                "uploadpack",
                "receivepack",
                "hookspath",
                "fsmonitor",
                "packobjectshook",
                "recentobjectshook",
                "alternaterefscommand",
                "browser",
                "external",
                "defaultkeycommand",
                "tocmd",
                "cccmd",
                "headercmd",
                "vcs",
                "proxy",
            ]
            .contains(&last)
    };
    let known: Vec<String> = RULES
        .iter()
        .map(|r| r.key)
        .chain(HELD.iter().map(|(k, _)| *k))
        .map(str::to_lowercase)
        .collect();
    let text = String::from_utf8(out.stdout).unwrap();
    let mut missing = Vec::new();
    for key in text.lines().map(str::trim).filter(|k| !k.is_empty()) {
        // `filter.<driver>.clean` is the pattern `filter.*.clean`.
        let mut pattern = String::new();
        let mut inside = false;
        for c in key.chars() {
            match c {
                '<' => {
                    inside = true;
                    pattern.push('*');
                }
                '>' => inside = false,
                _ if !inside => pattern.push(c.to_ascii_lowercase()),
                _ => {}
            }
        }
        if commandish(&pattern) && !known.contains(&pattern) {
            missing.push(key.to_owned());
        }
    }
    assert!(
        missing.is_empty(),
        "command-bearing keys in neither RULES nor HELD: {missing:?}"
    );
}

#[test]
fn path_keeps_only_its_absolute_entries() {
    let kept = absolute_path(&OsString::from(":/usr/bin:.:bin::/bin:~/x:"));
    assert_eq!(kept, "/usr/bin:/bin");
    assert_eq!(absolute_path(&OsString::from("")), "");
}

#[test]
fn a_git_reachable_only_through_a_relative_entry_is_never_found() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let bin = tmp.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let git = bin.join("git");
    std::fs::write(&git, "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(&git, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(find_git(bin.as_os_str()), Some(git.clone()));
    // The same directory named relative to where we are.
    let cwd = std::env::current_dir().unwrap();
    let up = "../".repeat(cwd.components().count() - 1);
    let relative = format!("{up}{}", bin.display().to_string().trim_start_matches('/'));
    assert!(Path::new(&relative).join("git").is_file(), "{relative}");
    assert_eq!(find_git(&OsString::from(&relative)), None);
    assert_eq!(find_git(&OsString::from("")), None);
}

/// Give `repo/a.txt` an old mtime: git must hash it again to know it is
/// unchanged (its size is the same).
fn touch_old(repo: &Path) {
    let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
    let file = std::fs::File::options()
        .write(true)
        .open(repo.join("a.txt"))
        .unwrap();
    file.set_modified(old).unwrap();
}

/// A repository whose `.gitattributes` gives every path the filter and
/// diff driver `x`, its configuration set by `setup`, and a tracked file
/// git must hash again.
fn hostile_repo(tmp: &Path, setup: &[&[&str]]) -> std::path::PathBuf {
    let repo = tmp.join("repo");
    std::fs::create_dir(&repo).unwrap();
    test_git(&repo, &["init", "-q"]);
    std::fs::write(repo.join("a.txt"), "a\n").unwrap();
    std::fs::write(repo.join(".gitattributes"), "* filter=x diff=x\n").unwrap();
    test_git(&repo, &["add", "-A"]);
    test_git(&repo, &["commit", "-qm", "one"]);
    for args in setup {
        test_git(&repo, args);
    }
    touch_old(&repo);
    repo
}

/// `git ARGS` in `repo`, hermetic and neutralised after listing its
/// configuration.
fn neutral_git(repo: &Path, args: &[&str]) -> std::process::Output {
    let run = |neutral: &Neutral, args: &[&str]| {
        git()
            .args(neutral.args())
            .args(args)
            .current_dir(repo)
            .output()
            .unwrap()
    };
    let listed = run(&Neutral::fixed(), LIST_CONFIG);
    assert!(listed.status.success(), "{listed:?}");
    let neutral = Neutral::from_listing(&listed.stdout, repo, None).unwrap();
    run(&neutral, args)
}

#[test]
fn real_git_runs_no_filter_or_diff_driver_the_repository_names_directly_or_by_include() {
    let tmp = tempfile::tempdir().unwrap();
    let canary = tmp.path().join("canary");
    let program = format!("sh -c 'echo ran >> {}; cat'", canary.display());
    let included = tmp.path().join("included.cfg");
    std::fs::write(
        &included,
        // Quoted: `;` would start a comment.
        format!(
            "[filter \"x\"]\n\tprocess = \"{program}\"\n[diff \"x\"]\n\ttextconv = \"{program}\"\n"
        ),
    )
    .unwrap();
    let repo = hostile_repo(
        tmp.path(),
        &[
            &["config", "filter.x.clean", &program],
            &["config", "filter.x.smudge", &program],
            &["config", "include.path", included.to_str().unwrap()],
            &["config", "diff.external", &program],
        ],
    );
    let status = neutral_git(&repo, &["status", "--porcelain"]);
    assert!(status.status.success(), "{status:?}");
    assert_eq!(status.stdout, b"", "unchanged content, no filter");
    std::fs::remove_file(repo.join("a.txt")).unwrap();
    let checkout = neutral_git(&repo, &["checkout", "--", "a.txt"]);
    assert!(checkout.status.success(), "{checkout:?}");
    // A diff driver set empty is nothing to run: the diff fails instead.
    std::fs::write(repo.join("a.txt"), "b\n").unwrap();
    let diff = neutral_git(&repo, &["diff"]);
    assert!(!diff.status.success(), "{diff:?}");
    assert!(!canary.exists(), "a program ran");
    // The oracle: the same git without the overrides runs it.
    std::fs::write(repo.join("a.txt"), "a\n").unwrap();
    touch_old(&repo);
    git()
        .args(["status", "--porcelain"])
        .current_dir(&repo)
        .output()
        .unwrap();
    assert!(canary.exists(), "the test's hostile configuration is inert");
}
