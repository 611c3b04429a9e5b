//! `git_worktree` against a hostile agent: it rewrites its `.git` file,
//! makes git directories of its own (with filters, with a
//! `core.worktree` outside), nests repositories, and writes
//! configuration. A canary file appears if any program it names runs; a
//! canary directory outside must stay as it was.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::super::{SandboxError, SandboxPlace, Strategy};
use super::GitWorktree;
use crate::git_env::test_git;

/// A shell command that appends to `canary` and passes its input through
/// (as a filter would).
fn canary_program(canary: &Path) -> String {
    format!("sh -c 'echo ran >> {}; cat'", canary.display())
}

/// A repository with one commit (`a.txt`, `keep/b.txt`) and a sandbox
/// of it in `<tmp>/01SANDBOX`.
fn sandboxed(tmp: &Path) -> (PathBuf, SandboxPlace) {
    let original = tmp.join("orig");
    std::fs::create_dir_all(original.join("keep")).unwrap();
    test_git(&original, &["init", "-q"]);
    std::fs::write(original.join("a.txt"), "a\n").unwrap();
    std::fs::write(original.join("keep/b.txt"), "b\n").unwrap();
    test_git(&original, &["add", "-A"]);
    test_git(&original, &["commit", "-qm", "one"]);
    let area = tmp.join("01SANDBOX");
    std::fs::create_dir(&area).unwrap();
    let place = GitWorktree::default().create(&original, &area).unwrap();
    (original, place)
}

/// A git directory the agent made (outside the working copy, where it
/// may also write), borrowing the real objects, its HEAD at `head`, with
/// `config` set; the sandbox's `.git` file pointed at it.
fn agents_gitdir(tmp: &Path, place: &SandboxPlace, config: &[(&str, &str)]) -> PathBuf {
    let dir = tmp.join("agent.git");
    test_git(tmp, &["init", "-q", "--bare", dir.to_str().unwrap()]);
    let objects = place.original.join(".git/objects");
    std::fs::write(
        dir.join("objects/info/alternates"),
        format!("{}\n", objects.display()),
    )
    .unwrap();
    std::fs::write(dir.join("HEAD"), format!("{}\n", place.base)).unwrap();
    for (key, value) in config {
        test_git(
            tmp,
            &["--git-dir", dir.to_str().unwrap(), "config", key, value],
        );
    }
    std::fs::write(
        place.workdir.join(".git"),
        format!("gitdir: {}\n", dir.display()),
    )
    .unwrap();
    dir
}

/// What `<workdir>/.git` names, and what the host's worktree record is.
fn gitfile_and_admin(place: &SandboxPlace) -> (String, String) {
    let named = std::fs::read_to_string(place.workdir.join(".git")).unwrap();
    let admin = test_git(
        &place.original,
        &["rev-parse", "--path-format=absolute", "--git-common-dir"],
    );
    let admin = Path::new(admin.trim()).join("worktrees/work");
    let admin = std::fs::canonicalize(admin).unwrap();
    (named, format!("gitdir: {}\n", admin.display()))
}

#[test]
fn a_git_directory_of_the_agents_own_with_a_filter_runs_nothing_and_is_not_used() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, place) = sandboxed(tmp.path());
    let canary = tmp.path().join("canary");
    std::fs::write(place.workdir.join(".gitattributes"), "* filter=x\n").unwrap();
    std::fs::write(place.workdir.join("a.txt"), "changed\n").unwrap();
    let program = canary_program(&canary);
    agents_gitdir(
        tmp.path(),
        &place,
        &[
            ("core.bare", "false"),
            ("filter.x.clean", &program),
            ("filter.x.smudge", &program),
        ],
    );
    let git = GitWorktree::default();
    let diff = git.diff(&place).unwrap();
    assert_eq!(diff.modified, ["a.txt"]);
    assert_eq!(diff.added, [".gitattributes"]);
    // The host wrote its `.git` file back.
    let (named, admin) = gitfile_and_admin(&place);
    assert_eq!(named, admin);
    agents_gitdir(tmp.path(), &place, &[]);
    let point = git.checkpoint(&place, "one").unwrap();
    agents_gitdir(tmp.path(), &place, &[]);
    git.apply(&place).unwrap();
    std::fs::write(place.workdir.join("a.txt"), "again\n").unwrap();
    agents_gitdir(tmp.path(), &place, &[]);
    git.rollback(&place, &point).unwrap();
    assert_eq!(
        std::fs::read_to_string(place.workdir.join("a.txt")).unwrap(),
        "changed\n"
    );
    assert!(!canary.exists(), "the agent's filter ran");
}

/// Every entry below `dir` with its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.push((path.clone(), Vec::new()));
            out.extend(snapshot(&path));
        } else {
            out.push((path.clone(), std::fs::read(&path).unwrap()));
        }
    }
    out.sort();
    out
}

#[test]
fn a_fake_git_directory_whose_work_tree_is_outside_writes_nothing_there() {
    let tmp = tempfile::tempdir().unwrap();
    let (original, place) = sandboxed(tmp.path());
    let git = GitWorktree::default();
    std::fs::write(place.workdir.join("a.txt"), "checkpointed\n").unwrap();
    let point = git.checkpoint(&place, "one").unwrap();
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(outside.join("deep")).unwrap();
    std::fs::write(outside.join("precious.txt"), "mine\n").unwrap();
    std::fs::write(outside.join("a.txt"), "not the sandbox's\n").unwrap();
    std::fs::write(outside.join("deep/x"), "x\n").unwrap();
    let before = snapshot(&outside);
    let fake = agents_gitdir(
        tmp.path(),
        &place,
        &[
            ("core.bare", "false"),
            ("core.worktree", outside.to_str().unwrap()),
        ],
    );
    std::fs::write(place.workdir.join("a.txt"), "later\n").unwrap();
    std::fs::write(place.workdir.join("new.txt"), "new\n").unwrap();

    git.rollback(&place, &point).unwrap();
    assert_eq!(snapshot(&outside), before, "rollback wrote outside");
    assert_eq!(
        std::fs::read_to_string(place.workdir.join("a.txt")).unwrap(),
        "checkpointed\n"
    );
    assert!(!place.workdir.join("new.txt").exists());

    // Broken again, destroy still removes all the host made.
    agents_gitdir(
        tmp.path(),
        &place,
        &[("core.worktree", outside.to_str().unwrap())],
    );
    git.destroy(&place).unwrap();
    assert_eq!(snapshot(&outside), before, "destroy touched outside");
    assert!(!place.area.exists());
    let worktrees = test_git(&original, &["worktree", "list", "--porcelain"]);
    assert_eq!(worktrees.matches("worktree ").count(), 1, "{worktrees}");
    assert_eq!(test_git(&original, &["for-each-ref", "refs/agents"]), "");
    assert!(
        fake.exists(),
        "the agent's own directory is not the host's to remove"
    );
}

#[test]
fn a_nested_repository_is_recorded_by_its_head_and_git_never_runs_in_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (original, place) = sandboxed(tmp.path());
    let canary = tmp.path().join("canary");
    let sub = place.workdir.join("sub");
    std::fs::create_dir(&sub).unwrap();
    test_git(&sub, &["init", "-q"]);
    std::fs::write(sub.join("s.txt"), "s\n").unwrap();
    std::fs::write(sub.join(".gitattributes"), "* filter=y\n").unwrap();
    test_git(&sub, &["add", "-A"]);
    test_git(&sub, &["commit", "-qm", "nested"]);
    // The agent stages it through its worktree (a gitlink whose commit is
    // its HEAD: `git add -A` would ask `git status` inside it).
    test_git(&place.workdir, &["add", "sub"]);
    test_git(
        &sub,
        &["config", "filter.y.clean", &canary_program(&canary)],
    );
    let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
    let file = std::fs::File::options()
        .write(true)
        .open(sub.join("s.txt"))
        .unwrap();
    file.set_modified(old).unwrap();
    let head = test_git(&sub, &["rev-parse", "HEAD"]);

    let git = GitWorktree::default();
    let diff = git.diff(&place).unwrap();
    assert_eq!(diff.added, ["sub"]);
    let point = git.checkpoint(&place, "nested").unwrap();
    let entry = test_git(&original, &["ls-tree", &point.0, "sub"]);
    assert_eq!(entry, format!("160000 commit {}\tsub\n", head.trim()));
    git.apply(&place).unwrap();
    git.rollback(&place, &point).unwrap();
    assert!(!canary.exists(), "git ran inside the nested repository");
}

#[test]
fn a_directory_in_place_of_the_git_file_is_refused_and_destroy_still_works() {
    let tmp = tempfile::tempdir().unwrap();
    let (original, place) = sandboxed(tmp.path());
    let git = GitWorktree::default();
    git.checkpoint(&place, "one").unwrap();
    let gitfile = place.workdir.join(".git");
    std::fs::remove_file(&gitfile).unwrap();
    std::fs::create_dir_all(gitfile.join("objects")).unwrap();
    std::fs::set_permissions(&gitfile, std::fs::Permissions::from_mode(0o500)).unwrap();
    let err = git.checkpoint(&place, "two").unwrap_err();
    assert!(matches!(err, SandboxError::Unsuitable(_)), "{err}");
    assert!(
        err.to_string()
            .contains("is a directory, not the .git file the host wrote"),
        "{err}"
    );
    git.destroy(&place).unwrap();
    assert!(!place.area.exists());
    let worktrees = test_git(&original, &["worktree", "list", "--porcelain"]);
    assert_eq!(worktrees.matches("worktree ").count(), 1, "{worktrees}");
    assert_eq!(test_git(&original, &["for-each-ref", "refs/agents"]), "");
}

#[test]
fn a_git_file_rewritten_removed_or_made_a_symlink_is_written_back_without_following() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, place) = sandboxed(tmp.path());
    let git = GitWorktree::default();
    let gitfile = place.workdir.join(".git");
    let (_, admin) = gitfile_and_admin(&place);

    std::fs::write(&gitfile, "gitdir: /nonexistent\n").unwrap();
    git.diff(&place).unwrap();
    assert_eq!(std::fs::read_to_string(&gitfile).unwrap(), admin);

    std::fs::remove_file(&gitfile).unwrap();
    git.checkpoint(&place, "one").unwrap();
    assert_eq!(std::fs::read_to_string(&gitfile).unwrap(), admin);

    let outside = tmp.path().join("outside.txt");
    std::fs::write(&outside, "mine\n").unwrap();
    std::fs::remove_file(&gitfile).unwrap();
    std::os::unix::fs::symlink(&outside, &gitfile).unwrap();
    git.diff(&place).unwrap();
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "mine\n");
    assert!(std::fs::symlink_metadata(&gitfile).unwrap().is_file());
    assert_eq!(std::fs::read_to_string(&gitfile).unwrap(), admin);
}

#[test]
fn configuration_the_original_includes_from_inside_the_sandbox_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (original, place) = sandboxed(tmp.path());
    let canary = tmp.path().join("canary");
    let evil = place.workdir.join("evil.cfg");
    std::fs::write(
        &evil,
        format!(
            "[filter \"x\"]\n\tclean = \"{}\"\n",
            canary_program(&canary)
        ),
    )
    .unwrap();
    std::fs::write(place.workdir.join(".gitattributes"), "* filter=x\n").unwrap();
    test_git(
        &original,
        &["config", "include.path", evil.to_str().unwrap()],
    );
    let err = GitWorktree::default()
        .checkpoint(&place, "one")
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("which the sandboxed agent can write"),
        "{err}"
    );
    assert!(!canary.exists());
    // The user takes the include out: it works again, running nothing.
    test_git(&original, &["config", "--unset", "include.path"]);
    GitWorktree::default().checkpoint(&place, "one").unwrap();
    assert!(!canary.exists());
}

#[test]
fn the_originals_smudge_filter_runs_neither_at_create_nor_at_rollback() {
    let tmp = tempfile::tempdir().unwrap();
    let original = tmp.path().join("orig");
    std::fs::create_dir(&original).unwrap();
    test_git(&original, &["init", "-q"]);
    std::fs::write(original.join("a.txt"), "a\n").unwrap();
    std::fs::write(original.join(".gitattributes"), "* filter=x\n").unwrap();
    test_git(&original, &["add", "-A"]);
    test_git(&original, &["commit", "-qm", "one"]);
    let canary = tmp.path().join("canary");
    let program = canary_program(&canary);
    test_git(&original, &["config", "filter.x.smudge", &program]);
    test_git(&original, &["config", "filter.x.clean", &program]);
    let area = tmp.path().join("01SANDBOX");
    std::fs::create_dir(&area).unwrap();
    let git = GitWorktree::default();
    let place = git.create(&original, &area).unwrap();
    assert_eq!(
        std::fs::read_to_string(place.workdir.join("a.txt")).unwrap(),
        "a\n"
    );
    let point = git.checkpoint(&place, "one").unwrap();
    std::fs::remove_file(place.workdir.join("a.txt")).unwrap();
    git.rollback(&place, &point).unwrap();
    git.destroy(&place).unwrap();
    assert!(!canary.exists(), "a filter of the original ran");
}

#[test]
fn gitmodules_the_agent_writes_name_nothing_that_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, place) = sandboxed(tmp.path());
    let canary = tmp.path().join("canary");
    let program = canary_program(&canary);
    std::fs::write(
        place.workdir.join(".gitmodules"),
        format!(
            "[submodule \"keep\"]\n\tpath = keep\n\turl = \"ext::{program}\"\n\tignore = none\n"
        ),
    )
    .unwrap();
    let git = GitWorktree::default();
    git.diff(&place).unwrap();
    let point = git.checkpoint(&place, "one").unwrap();
    git.apply(&place).unwrap();
    git.rollback(&place, &point).unwrap();
    git.destroy(&place).unwrap();
    assert!(!canary.exists());
}

#[test]
fn a_fifo_the_agent_names_gitattributes_ends_in_a_refusal_not_a_hang() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, place) = sandboxed(tmp.path());
    let fifo = place.workdir.join(".gitattributes");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    std::fs::write(place.workdir.join("a.txt"), "changed\n").unwrap();
    let strategy = GitWorktree::default().with_deadline(std::time::Duration::from_secs(2));
    // git opens the FIFO to read attributes and would wait for a writer
    // for ever; the deadline ends it and the operation is refused.
    let refused = strategy.checkpoint(&place, "").unwrap_err();
    assert!(
        refused.to_string().contains("did not finish within 2 s"),
        "{refused}"
    );
    std::fs::remove_file(&fifo).unwrap();
    let first = strategy.checkpoint(&place, "").unwrap();
    // The same for a rollback, which writes the sandbox's own index: the
    // lock the killed git left is not in the next one's way.
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    std::fs::write(place.workdir.join("a.txt"), "again\n").unwrap();
    let refused = strategy.rollback(&place, &first).unwrap_err();
    assert!(
        refused.to_string().contains("did not finish within 2 s"),
        "{refused}"
    );
    std::fs::remove_file(&fifo).unwrap();
    strategy.rollback(&place, &first).unwrap();
    assert_eq!(
        std::fs::read_to_string(place.workdir.join("a.txt")).unwrap(),
        "changed\n"
    );
}

/// `submodule.<name>.update = !command` in the repository's own
/// configuration (which git refuses to take from `.gitmodules`) and in the
/// `.gitmodules` the agent writes: diff works as checkpoint and apply do,
/// so a person can review before applying, and the command never runs.
#[test]
fn a_submodule_update_command_in_the_configuration_neither_runs_nor_stops_diff() {
    let tmp = tempfile::tempdir().unwrap();
    let original = tmp.path().join("orig");
    let sub = tmp.path().join("sub");
    for dir in [&original, &sub] {
        std::fs::create_dir_all(dir).unwrap();
        test_git(dir, &["init", "-q"]);
        std::fs::write(dir.join("a.txt"), "a\n").unwrap();
        test_git(dir, &["add", "-A"]);
        test_git(dir, &["commit", "-qm", "one"]);
    }
    let head = test_git(&sub, &["rev-parse", "HEAD"]);
    let gitlink = format!("160000,{},s", head.trim());
    test_git(
        &original,
        &["update-index", "--add", "--cacheinfo", &gitlink],
    );
    std::fs::write(
        original.join(".gitmodules"),
        "[submodule \"s\"]\n\tpath = s\n\turl = ../sub\n",
    )
    .unwrap();
    test_git(&original, &["add", ".gitmodules"]);
    test_git(&original, &["commit", "-qm", "sub"]);
    let canary = tmp.path().join("canary");
    let command = format!("!{}", canary_program(&canary));
    test_git(&original, &["config", "submodule.s.update", &command]);
    test_git(
        &original,
        &["config", "submodule.s.url", sub.to_str().unwrap()],
    );
    let area = tmp.path().join("01SANDBOX");
    std::fs::create_dir(&area).unwrap();
    let git = GitWorktree::default();
    let place = git.create(&original, &area).unwrap();
    std::fs::write(
        place.workdir.join(".gitmodules"),
        format!("[submodule \"s\"]\n\tpath = s\n\turl = ../sub\n\tupdate = {command}\n"),
    )
    .unwrap();
    std::fs::write(place.workdir.join("b.txt"), "b\n").unwrap();
    let diff = git.diff(&place).unwrap();
    assert_eq!(diff.added, ["b.txt"]);
    assert_eq!(diff.modified, [".gitmodules"]);
    let point = git.checkpoint(&place, "one").unwrap();
    git.rollback(&place, &point).unwrap();
    git.apply(&place).unwrap();
    git.destroy(&place).unwrap();
    assert!(!canary.exists(), "the update command ran");
}
