//! Real git repositories for tests, made with the git CLI as a test
//! author (no user or system configuration).

use std::path::Path;
use std::process::Command;

/// Run `git ARGS` in `dir` as a test author; panic with git's words if it
/// fails; answer its stdout.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args([
            "-c",
            "protocol.file.allow=always",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A repository with everything the git handlers discover: branches
/// (`main` checked out, `feature/x`, `fix-ü`), light and annotated tags,
/// two remotes (one with a push URL), a stash, a submodule, a symlink,
/// hard links, and file names with spaces and non-ASCII characters.
/// `dir` is the work tree; the submodule's own repository is made next to
/// it (`<dir>-lib`).
pub fn rich_repo(dir: &Path) {
    let lib = dir.with_file_name(format!(
        "{}-lib",
        dir.file_name().unwrap().to_str().unwrap()
    ));
    std::fs::create_dir_all(&lib).unwrap();
    git(&lib, &["init", "-q"]);
    std::fs::write(lib.join("lib.txt"), "lib\n").unwrap();
    git(&lib, &["add", "-A"]);
    git(&lib, &["commit", "-q", "-m", "lib"]);

    std::fs::create_dir_all(dir.join("src")).unwrap();
    git(dir, &["init", "-q"]);
    std::fs::write(dir.join("README.md"), "# api\n").unwrap();
    std::fs::write(dir.join("src/main.py"), "print('hi')\n").unwrap();
    std::fs::write(dir.join("with space.txt"), "spaced\n").unwrap();
    std::fs::write(dir.join("naïve-ü.txt"), "unicode\n").unwrap();
    std::fs::write(dir.join("shared.txt"), "one inode\n").unwrap();
    std::fs::hard_link(dir.join("shared.txt"), dir.join("shared-link.txt")).unwrap();
    std::os::unix::fs::symlink("src/main.py", dir.join("main-link")).unwrap();
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "first: the files"]);
    git(dir, &["tag", "v0.1"]);
    git(
        dir,
        &[
            "submodule",
            "add",
            "-q",
            lib.to_str().unwrap(),
            "vendor/lib",
        ],
    );
    git(dir, &["commit", "-q", "-m", "second: a submodule"]);
    git(dir, &["tag", "-a", "v1.0", "-m", "release one"]);
    git(dir, &["branch", "feature/x"]);
    git(dir, &["branch", "fix-ü"]);
    git(
        dir,
        &["remote", "add", "origin", "https://example.com/api.git"],
    );
    git(
        dir,
        &["remote", "add", "upstream", "https://example.com/up.git"],
    );
    git(
        dir,
        &[
            "remote",
            "set-url",
            "--push",
            "upstream",
            "ssh://git@example.com/up.git",
        ],
    );
    std::fs::write(dir.join("README.md"), "# api, changed\n").unwrap();
    git(dir, &["stash", "push", "-q", "-m", "a stashed change"]);
}

/// Make `dir` (with whatever files it holds) a git repository whose one
/// commit on `main` holds them all.
pub fn commit_all(dir: &Path) {
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["add", "-A"]);
    git(
        dir,
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "commit",
            "-qm",
            "init",
        ],
    );
}

/// Make a real git repository at `dir` with one commit on `main`.
pub fn git_repo(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    git(dir, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join("README.md"), "# api\n").unwrap();
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/main.py"), "print('hi')\n").unwrap();
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "init"]);
}
