//! Built-in handler figures, each against its baseline measured
//! in the same run. Run: `cargo bench --bench builtin` (set `BENCH_FILES`
//! for a smaller tree, e.g. `BENCH_FILES=2000`).
//!
//! 1. Registering a `git-checkout` of a repository with 1,301 refs (1,000
//!    branches, 100 light and 100 annotated tags, 100 remote-tracking
//!    branches, a stash; packed, as in a clone) through the library — the
//!    git component's calls, the host's git reads, two levels of discovery,
//!    every row written — vs `git for-each-ref` + `git remote -v` +
//!    `git stash list` run on it.
//! 2. `discover --recursive` of a tree of 10,000 files (100 directories of
//!    100) through the fs component vs a native Rust walk that reads the
//!    same facts (lstat, sha256 of every file, a hash per directory) and
//!    inserts the same rows (resources and links, one transaction) into a
//!    registry file of the same schema.
//! 3. A warm call of a built-in class: `FsDirectoryHandler.validate` (one
//!    lstat through WASI and one through the host) vs the native
//!    `symlink_metadata` with the same properties.
//!
//! 4. `refresh` of a registry holding the 10,000-file tree (discovered
//!    recursively) and a checkout of the 1,302-ref repository: nothing
//!    changed (a hash check per explored resource, nothing written), and
//!    one file changed (its directory rediscovered, one row written) —
//!    against the registration and recursive discovery that wrote them.
//!
//! `BENCH_ONLY=refs|tree|call|refresh` runs one part (for a profiler).
//!
//! Runs are interleaved (ours, baseline, ours, …) so that drift in the
//! machine's speed touches both alike. Figures, not asserts.

mod support;
use resource_host::home::Home;
use resource_host::model::{ModuleName, ResourceKey};
use resource_host::plugin::{ComponentSource, Grant, Limits, PluginRuntime, builtin_component};
use resource_host::registry::{Depth, NewResource, Registry, RemoveOptions, ResourceFilter};
use std::hint::black_box;
use std::io::Write;
use std::ops::ControlFlow;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::median;

#[path = "builtin/native.rs"]
mod native;

use native::native_walk_and_insert;

const RUNS: usize = 7;
const CALLS: usize = 2_000;

fn main() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let tmp = std::fs::canonicalize(tmp.path()).expect("canonical temp dir");
    println!("# built-in handler benchmarks\n");
    let only = std::env::var("BENCH_ONLY").ok();
    let run = |part: &str| only.as_deref().is_none_or(|o| o == part);
    if run("refs") {
        refs(&tmp);
    }
    if run("tree") {
        tree(&tmp);
    }
    if run("call") {
        warm_call(&tmp);
    }
    if run("refresh") {
        refresh(&tmp);
    }
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn ratio(a: Duration, b: Duration) -> String {
    format!("{:.2}×", a.as_secs_f64() / b.as_secs_f64())
}

// ---------------------------------------------------------------------
// 1. A repository with many refs

fn git(dir: &Path, args: &[&str], stdin: Option<&str>) -> String {
    let mut child = Command::new("git")
        .args(["-c", "init.defaultBranch=main"])
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "b")
        .env("GIT_AUTHOR_EMAIL", "b@example.com")
        .env("GIT_COMMITTER_NAME", "b")
        .env("GIT_COMMITTER_EMAIL", "b@example.com")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run git");
    if let Some(text) = stdin {
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(text.as_bytes())
            .expect("write stdin");
    }
    drop(child.stdin.take());
    let out = child.wait_with_output().expect("git output");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

fn many_refs_repo(dir: &Path) {
    std::fs::create_dir_all(dir.join("src")).expect("repo dir");
    git(dir, &["init", "-q"], None);
    for i in 0..3 {
        std::fs::write(dir.join("src/lib.rs"), format!("// {i}\n")).expect("file");
        std::fs::write(dir.join("README.md"), format!("# {i}\n")).expect("file");
        git(dir, &["add", "-A"], None);
        git(dir, &["commit", "-q", "-m", &format!("commit {i}")], None);
    }
    let head = git(dir, &["rev-parse", "HEAD"], None);
    let head = head.trim();
    let mut batch = String::new();
    for i in 0..1000 {
        batch.push_str(&format!("create refs/heads/topic/b{i:04} {head}\n"));
    }
    for i in 0..100 {
        batch.push_str(&format!("create refs/tags/light-{i:03} {head}\n"));
        batch.push_str(&format!("create refs/remotes/origin/r{i:03} {head}\n"));
    }
    git(dir, &["update-ref", "--stdin"], Some(&batch));
    // Annotated tags need tag objects: `git mktag` makes one per line.
    let mut batch = String::new();
    for i in 0..100 {
        let tag = format!(
            "object {head}\ntype commit\ntag rel-{i:03}\ntagger b <b@example.com> 1700000000 +0000\n\nrelease {i}\n"
        );
        let id = git(dir, &["mktag"], Some(&tag));
        batch.push_str(&format!("create refs/tags/rel-{i:03} {}\n", id.trim()));
    }
    git(dir, &["update-ref", "--stdin"], Some(&batch));
    git(
        dir,
        &["remote", "add", "origin", "https://example.com/api.git"],
        None,
    );
    git(
        dir,
        &["remote", "add", "upstream", "https://example.com/up.git"],
        None,
    );
    std::fs::write(dir.join("README.md"), "# changed\n").expect("file");
    git(dir, &["stash", "-q"], None);
    git(dir, &["pack-refs", "--all"], None);
}

fn refs(tmp: &Path) {
    let repo = tmp.join("many-refs");
    many_refs_repo(&repo);
    let count = git(&repo, &["for-each-ref"], None).lines().count();
    let home = Home::new(tmp.join("refs-home"));
    let mut registry = Registry::open(&home).expect("open");
    let path = repo.to_str().expect("utf-8").to_owned();
    let register = |registry: &mut Registry, i: usize| {
        let start = Instant::now();
        let r = registry
            .register_resource(
                NewResource {
                    type_name: "git-checkout".into(),
                    name: Some(format!("local/repo{i}")),
                    args: vec![("path".into(), path.clone())],
                    ..NewResource::default()
                },
                Default::default(),
            )
            .expect("register");
        let took = start.elapsed();
        black_box(r);
        took
    };
    // Warm: the first registration compiles the components. Each timed
    // registration is removed again (untimed), so that every run registers
    // the repository into the same registry — not beside copies of itself,
    // which would be measuring the equivalences between them.
    register(&mut registry, 999);
    let rows = registry
        .list_resources(&ResourceFilter::default())
        .expect("list")
        .len();
    let cli = || {
        let start = Instant::now();
        for args in [
            &["for-each-ref"][..],
            &["remote", "-v"][..],
            &["stash", "list"][..],
        ] {
            black_box(git(&repo, args, None));
        }
        start.elapsed()
    };
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    registry
        .remove_resource(
            &ResourceKey::parse("local/repo999").expect("key"),
            RemoveOptions::default(),
        )
        .expect("remove");
    for i in 0..RUNS {
        ours.push(register(&mut registry, i));
        let key = ResourceKey::parse(&format!("local/repo{i}")).expect("key");
        registry
            .remove_resource(&key, RemoveOptions::default())
            .expect("remove");
        theirs.push(cli());
    }
    let (ours, theirs) = (median(ours), median(theirs));
    println!(
        "## 1. register a git-checkout with {count} refs ({rows} resources written), median of {RUNS}\n"
    );
    println!("| path | time |\n|---|---|");
    println!(
        "| `Registry::register_resource` (git component, two levels) | {} |",
        ms(ours)
    );
    println!(
        "| `git for-each-ref` + `git remote -v` + `git stash list` | {} |",
        ms(theirs)
    );
    println!("\nratio: {} (goal ≤ 3×)\n", ratio(ours, theirs));
}

// ---------------------------------------------------------------------
// 2. A tree of 10,000 files

/// `files` files, 100 to a directory, ten directories to a parent:
/// `root/a0/b0/file-000.txt` … — three levels, so that registering `root`
/// (two levels) leaves the files to `discover --recursive`.
fn make_tree(root: &Path, files: usize) {
    let dirs = files.div_ceil(100);
    for d in 0..dirs {
        let dir = root.join(format!("a{}/b{}", d / 10, d % 10));
        std::fs::create_dir_all(&dir).expect("dir");
        for f in 0..100.min(files - d * 100) {
            std::fs::write(
                dir.join(format!("file-{f:03}.txt")),
                format!("file {d}/{f}\n").repeat(20),
            )
            .expect("file");
        }
    }
}

fn tree(tmp: &Path) {
    let files: usize = std::env::var("BENCH_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let root = tmp.join("tree");
    make_tree(&root, files);
    let path = root.to_str().expect("utf-8").to_owned();
    let (mut ours, mut theirs, mut again) = (Vec::new(), Vec::new(), Vec::new());
    let mut rows = (0, 0);
    // One registry (its components compiled once); each run registers the
    // tree afresh and removes it after (untimed).
    let home = Home::new(tmp.join("tree-home"));
    let mut registry = Registry::open(&home).expect("open");
    let key = ResourceKey::parse("local/tree").expect("key");
    for i in 0..RUNS {
        // Ours: the directory registered (two levels: the `a*`
        // directories visited, the `b*` ones found), then the timed
        // `discover --recursive`, which finds the files.
        registry
            .register_resource(
                NewResource {
                    type_name: "fs-directory".into(),
                    name: Some("local/tree".into()),
                    args: vec![("path".into(), path.clone())],
                    ..NewResource::default()
                },
                Default::default(),
            )
            .expect("register");
        let start = Instant::now();
        let report = registry
            .discover(
                &key,
                resource_host::registry::DiscoverOptions {
                    depth: Depth::All,
                    progress: Some(&mut |_| ControlFlow::Continue(())),
                },
            )
            .expect("discover");
        ours.push(start.elapsed());
        rows.0 = registry
            .list_resources(&ResourceFilter::default())
            .expect("list")
            .len();
        black_box(report);
        // Again, nothing changed: everything read, nothing written.
        let start = Instant::now();
        let report = registry
            .discover(
                &key,
                resource_host::registry::DiscoverOptions {
                    depth: Depth::All,
                    progress: Some(&mut |_| ControlFlow::Continue(())),
                },
            )
            .expect("rediscover");
        again.push(start.elapsed());
        assert!(report.added.is_empty() && report.removed.is_empty());
        registry
            .remove_resource(&key, RemoveOptions::default())
            .expect("remove");

        // Native: a registry file of the same schema and types, the same
        // walk done with std::fs, the same rows inserted.
        let home = Home::new(tmp.join(format!("native-home-{i}")));
        drop(Registry::open(&home).expect("open"));
        let db = home.database();
        let start = Instant::now();
        rows.1 = native_walk_and_insert(&db, &root);
        theirs.push(start.elapsed());
        std::fs::remove_dir_all(home.root()).ok();
    }
    let (ours, theirs, again) = (median(ours), median(theirs), median(again));
    println!(
        "## 2. discover --recursive, {files} files in {} directories ({} / {} resources), median of {RUNS}\n",
        files.div_ceil(100) + files.div_ceil(1000),
        rows.0,
        rows.1
    );
    println!("| path | time |\n|---|---|");
    println!(
        "| `Registry::discover_with(Depth::All)` (fs component) | {} |",
        ms(ours)
    );
    println!(
        "| native walk (std::fs, sha256) + rusqlite inserts | {} |",
        ms(theirs)
    );
    println!(
        "| the same `discover_with(Depth::All)` again, nothing changed (nothing written) | {} |",
        ms(again)
    );
    println!("\nratio: {} (goal ≤ 1.5×)\n", ratio(ours, theirs));
}

// ---------------------------------------------------------------------
// 3. A warm call of a built-in class

fn warm_call(tmp: &Path) {
    let dir = tmp.join("one-dir");
    std::fs::create_dir_all(&dir).expect("dir");
    let rt = PluginRuntime::new(tmp.join("cache"), Limits::default());
    let module = ModuleName::parse("cleveragents.resource.handlers.fs").expect("module");
    let fs = rt
        .load(ComponentSource::Embedded {
            module: &module,
            bytes: builtin_component(&module).expect("built in"),
        })
        .expect("load");
    let args = vec![("path".to_owned(), dir.display().to_string())];
    let grant = Grant::read_only(&dir);
    let per_call = |f: &mut dyn FnMut()| {
        for _ in 0..20 {
            f();
        }
        let start = Instant::now();
        for _ in 0..CALLS {
            f();
        }
        start.elapsed() / CALLS as u32
    };
    let wasm = per_call(&mut || {
        black_box(
            rt.validate(&fs, "FsDirectoryHandler", &args, &grant)
                .expect("validate"),
        );
    });
    let native = per_call(&mut || {
        let meta = std::fs::symlink_metadata(black_box(&dir)).expect("lstat");
        assert!(meta.is_dir());
        black_box(vec![
            ("size".to_owned(), meta.len().to_string()),
            ("modified".to_owned(), format!("{:?}", meta.modified().ok())),
            ("mode".to_owned(), format!("{:o}", meta.mode() & 0o7777)),
        ]);
    });
    let us = |d: Duration| format!("{:.1} µs", d.as_secs_f64() * 1e6);
    println!("## 3. warm call of a built-in class, mean of {CALLS} (fresh Store each)\n");
    println!("| call | wasm | native | ratio |\n|---|---|---|---|");
    println!(
        "| `FsDirectoryHandler.validate` | {} | {} | {:.0}× |",
        us(wasm),
        us(native),
        wasm.as_secs_f64() / native.as_secs_f64()
    );
}

// ---------------------------------------------------------------------
// 4. Refresh

fn refresh(tmp: &Path) {
    let files: usize = std::env::var("BENCH_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let root = tmp.join("refresh-tree");
    make_tree(&root, files);
    let repo = tmp.join("refresh-repo");
    many_refs_repo(&repo);
    let home = Home::new(tmp.join("refresh-home"));
    let mut registry = Registry::open(&home).expect("open");
    let tree_key = ResourceKey::parse("local/tree").expect("key");
    let start = Instant::now();
    registry
        .register_resource(
            NewResource {
                type_name: "fs-directory".into(),
                name: Some("local/tree".into()),
                args: vec![("path".into(), root.to_str().expect("utf-8").to_owned())],
                ..NewResource::default()
            },
            Default::default(),
        )
        .expect("register tree");
    registry
        .discover(
            &tree_key,
            resource_host::registry::DiscoverOptions {
                depth: Depth::All,
                progress: Some(&mut |_| ControlFlow::Continue(())),
            },
        )
        .expect("discover tree");
    registry
        .register_resource(
            NewResource {
                type_name: "git-checkout".into(),
                name: Some("local/repo".into()),
                args: vec![("path".into(), repo.to_str().expect("utf-8").to_owned())],
                ..NewResource::default()
            },
            Default::default(),
        )
        .expect("register repo");
    let written = start.elapsed();
    let rows = registry
        .list_resources(&ResourceFilter::default())
        .expect("list")
        .len();
    let db = home.database();
    let (mut unchanged, mut one) = (Vec::new(), Vec::new());
    let mut checked = 0;
    let file = root.join("a0/b0/file-000.txt");
    for i in 0..RUNS {
        let before = std::fs::metadata(&db).expect("db").modified().ok();
        let start = Instant::now();
        let report = registry.refresh(&[], Default::default()).expect("refresh");
        unchanged.push(start.elapsed());
        assert!(!report.wrote(), "an unchanged refresh wrote");
        assert_eq!(std::fs::metadata(&db).expect("db").modified().ok(), before);
        checked = report.checked;
        std::fs::write(&file, format!("changed {i}\n")).expect("write");
        let start = Instant::now();
        let report = registry.refresh(&[], Default::default()).expect("refresh");
        one.push(start.elapsed());
        assert_eq!(report.changed.len(), 1, "{report:?}");
    }
    let (unchanged, one) = (median(unchanged), median(one));
    println!(
        "## 4. refresh of a registry of {rows} resources ({files} files, a checkout of 1,302 refs; {checked} explored resources checked), median of {RUNS}\n"
    );
    println!("| what | time |\n|---|---|");
    println!(
        "| writing it: `register_resource` + `discover_with(Depth::All)` of the tree, `register_resource` of the checkout | {} |",
        ms(written)
    );
    println!(
        "| `refresh`, nothing changed (nothing written) | {} |",
        ms(unchanged)
    );
    println!("| `refresh`, one file changed | {} |", ms(one));
    println!(
        "\nunchanged refresh / writing it: {}; per checked resource: {:.0} µs\n",
        ratio(unchanged, written),
        unchanged.as_secs_f64() * 1e6 / checked.max(1) as f64
    );
}
