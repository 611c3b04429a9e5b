//! Shared helpers for integration tests: a temp home, the real `agents`
//! binary, and real git repositories.
#![allow(dead_code)]

mod containers;
mod repos;

pub use containers::{docker_compose, real_cli_on_stand_in_engine, stand_ins, tool_log};
pub use repos::{commit_all, git, git_repo, rich_repo};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The `XDG_CACHE_HOME` every `agents` run of the tests gets (a test may
/// override it through [`Env::vars`]): under the target dir, so the
/// built-in components compile once for all test homes and runs, never
/// into the user's own cache.
pub const SHARED_CACHE: &str = concat!(env!("CARGO_TARGET_TMPDIR"), "/xdg-cache");

/// A temporary home plus a scratch directory for files the test makes.
pub struct Env {
    pub home: tempfile::TempDir,
    pub scratch: tempfile::TempDir,
    /// Environment variables every `agents` run of this test gets.
    pub vars: Vec<(String, String)>,
    /// The PostgreSQL schema this test's registry lives in, when the suite
    /// runs against PostgreSQL (see [`backend`]).
    pub postgres: Option<resource_host::testing::TestSchema>,
}

/// Which backend this run of the suite registers in: `postgres` when
/// `AGENTS_TEST_BACKEND=postgres` (and `AGENTS_TEST_POSTGRES` names the
/// server; `.ci/run` runs the suite both ways), else `sqlite`.
pub fn backend() -> &'static str {
    match std::env::var("AGENTS_TEST_BACKEND").as_deref() {
        Ok("postgres") => "postgres",
        Ok("sqlite") | Err(_) => "sqlite",
        Ok(other) => panic!("AGENTS_TEST_BACKEND={other}: expected sqlite or postgres"),
    }
}

/// Say that a test did not run, and why, where the person running the
/// tests sees it: straight to the terminal, since the test harness
/// captures `eprintln!` of a passing test.
pub fn skipped(test: &str, why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "\n*** SKIPPED {test}: {why} ***");
}

/// A mount made for the test (a tmpfs, a bind mount), lazily unmounted
/// when dropped.
pub struct Mounted(PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.0)
            .status();
    }
}

/// Mount a tmpfs of `size` on `dir`, private (mode 0700, as the host
/// requires of its home and sandboxes directory), when this process may.
pub fn tmpfs(dir: &Path, size: &str) -> Option<Mounted> {
    let mounted = std::process::Command::new("mount")
        .args([
            "-t",
            "tmpfs",
            "-o",
            &format!("size={size},mode=0700"),
            "tmpfs",
        ])
        .arg(dir)
        .output();
    mounted
        .is_ok_and(|o| o.status.success())
        .then(|| Mounted(dir.to_owned()))
}

/// Bind-mount `dir` on `on` (made if missing), when this process may (root).
pub fn bind(dir: &Path, on: &Path) -> Option<Mounted> {
    std::fs::create_dir_all(on).unwrap();
    let mounted = std::process::Command::new("mount")
        .arg("--bind")
        .arg(dir)
        .arg(on)
        .output();
    mounted
        .is_ok_and(|o| o.status.success())
        .then(|| Mounted(on.to_owned()))
}

/// Files and directories below `dir`, recursively (what a recursive
/// discovery of `dir` registers below it).
pub fn entries(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            1 + if path.is_dir() { entries(&path) } else { 0 }
        })
        .sum()
}

/// What one `agents` run did.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(output: Output) -> Self {
        Self {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }
}

impl Run {
    /// Assert success and return stdout.
    #[track_caller]
    pub fn ok(&self) -> &str {
        assert_eq!(
            self.code, 0,
            "expected success\nstdout: {}\nstderr: {}",
            self.stdout, self.stderr
        );
        &self.stdout
    }

    /// Assert a refusal (exit 1, `agents: error:`) whose message holds every
    /// one of `parts`; return stderr.
    #[track_caller]
    pub fn refused(&self, parts: &[&str]) -> &str {
        self.failed(1, parts)
    }

    /// Assert a usage error (exit 2, `agents: error:`) whose message holds
    /// every one of `parts`; return stderr.
    #[track_caller]
    pub fn usage(&self, parts: &[&str]) -> &str {
        self.failed(2, parts)
    }

    #[track_caller]
    fn failed(&self, code: i32, parts: &[&str]) -> &str {
        assert_eq!(
            self.code, code,
            "expected exit {code}\nstdout: {}\nstderr: {}",
            self.stdout, self.stderr
        );
        assert!(
            self.stderr.starts_with("agents: error: "),
            "stderr: {}",
            self.stderr
        );
        for part in parts {
            assert!(
                self.stderr.contains(part),
                "{part:?} not in stderr: {}",
                self.stderr
            );
        }
        &self.stderr
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(self.ok()).unwrap_or_else(|e| panic!("bad json {e}: {}", self.stdout))
    }
}

impl Env {
    pub fn new() -> Self {
        let postgres = (backend() == "postgres").then(|| {
            resource_host::testing::postgres().unwrap_or_else(|| {
                panic!("AGENTS_TEST_BACKEND=postgres needs AGENTS_TEST_POSTGRES (a server URL)")
            })
        });
        let vars = postgres
            .iter()
            .map(|schema| ("AGENTS_REGISTRY".to_owned(), schema.url.clone()))
            .collect();
        Self {
            home: tempfile::tempdir().unwrap(),
            scratch: tempfile::tempdir().unwrap(),
            vars,
            postgres,
        }
    }

    /// Run `sql` on the registry directly (tests that force a state no
    /// command makes, e.g. a crash's leftovers).
    pub fn sql(&self, sql: &str) {
        match &self.postgres {
            Some(schema) => {
                let mut client = postgres::Client::connect(&schema.url, postgres::NoTls).unwrap();
                client.batch_execute(sql).unwrap();
            }
            None => {
                let conn = rusqlite::Connection::open(self.db()).unwrap();
                conn.execute_batch(sql).unwrap();
            }
        }
    }

    /// The first column of every row `sql` answers, as text (`sql` must
    /// select text), on either backend.
    pub fn strings(&self, sql: &str) -> Vec<String> {
        match &self.postgres {
            Some(schema) => {
                let mut client = postgres::Client::connect(&schema.url, postgres::NoTls).unwrap();
                let rows = client.query(sql, &[]).unwrap();
                rows.iter().map(|row| row.get(0)).collect()
            }
            None => {
                let conn = rusqlite::Connection::open(self.db()).unwrap();
                let mut stmt = conn.prepare(sql).unwrap();
                let rows = stmt.query_map([], |row| row.get(0)).unwrap();
                rows.map(Result::unwrap).collect()
            }
        }
    }

    /// The one integer `sql` answers (a `count(*)`), on either backend.
    pub fn count(&self, sql: &str) -> i64 {
        match &self.postgres {
            Some(schema) => {
                let mut client = postgres::Client::connect(&schema.url, postgres::NoTls).unwrap();
                client.query_one(sql, &[]).unwrap().get(0)
            }
            None => {
                let conn = rusqlite::Connection::open(self.db()).unwrap();
                conn.query_row(sql, [], |row| row.get(0)).unwrap()
            }
        }
    }

    pub fn command(&self) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_agents"));
        cmd.arg("--home").arg(self.home.path());
        cmd.env_remove("AGENTS_HOME")
            .env_remove("AGENTS_REGISTRY")
            .env("NO_COLOR", "1")
            // One shared compile cache for every test home (not the
            // user's): the built-in components compile once per engine.
            .env("XDG_CACHE_HOME", SHARED_CACHE);
        cmd.current_dir(self.scratch.path());
        cmd.envs(self.vars.iter().map(|(k, v)| (k, v)));
        cmd
    }

    /// `agents resource add TYPE NAME --path PATH EXTRA…`.
    pub fn add(&self, type_name: &str, name: &str, path: &Path, extra: &[&str]) -> Run {
        let mut args = vec![
            "resource",
            "add",
            type_name,
            name,
            "--path",
            path.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        self.run(&args)
    }

    /// Run `agents --home <temp> ARGS…`.
    pub fn run(&self, args: &[&str]) -> Run {
        Run::from(self.command().args(args).output().unwrap())
    }

    /// Start every one of `commands` (`agents` argument lists) before
    /// waiting for any, so they run at once; answer their runs in order.
    pub fn race(&self, commands: &[Vec<String>]) -> Vec<Run> {
        let children: Vec<_> = commands
            .iter()
            .map(|args| {
                self.command()
                    .args(args)
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        children
            .into_iter()
            .map(|child| Run::from(child.wait_with_output().unwrap()))
            .collect()
    }

    /// A path in the scratch dir.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.scratch.path().join(rel)
    }

    /// Write a file in the scratch dir (parents created); return its path.
    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    pub fn mkdir(&self, rel: &str) -> PathBuf {
        let path = self.path(rel);
        std::fs::create_dir_all(&path).unwrap();
        path
    }

    pub fn db(&self) -> PathBuf {
        self.home.path().join("registry.db")
    }

    /// A byte-level snapshot of the registry's contents (a dump of every
    /// table), for "the database is unchanged" assertions.
    pub fn snapshot(&self) -> String {
        if let Some(schema) = &self.postgres {
            return postgres_snapshot(&schema.url);
        }
        let conn = rusqlite::Connection::open(self.db()).unwrap();
        let mut out = String::new();
        for table in TABLES {
            let mut stmt = conn
                .prepare(&format!("SELECT * FROM {table} ORDER BY 1, 2"))
                .unwrap();
            let n = stmt.column_count();
            let rows = stmt
                .query_map([], |row| {
                    let cells: Vec<String> = (0..n)
                        .map(|i| format!("{:?}", row.get_ref(i).unwrap()))
                        .collect();
                    Ok(cells.join("|"))
                })
                .unwrap();
            for row in rows {
                out.push_str(table);
                out.push(':');
                out.push_str(&row.unwrap());
                out.push('\n');
            }
        }
        out
    }
}

impl Env {
    /// sha256 of the registry file itself after folding the WAL into it:
    /// "byte-for-byte what it was".
    pub fn digest(&self) -> String {
        if let Some(schema) = &self.postgres {
            // No file on a server: the digest of every row instead.
            return resource_host::digest::sha256_hex(postgres_snapshot(&schema.url).as_bytes());
        }
        let conn = rusqlite::Connection::open(self.db()).unwrap();
        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .unwrap();
        drop(conn);
        let bytes = std::fs::read(self.db()).unwrap();
        resource_host::digest::sha256_hex(&bytes)
    }

    /// Both views of "unchanged": every row, and the file's bytes.
    pub fn state(&self) -> (String, String) {
        (self.snapshot(), self.digest())
    }

    /// The names of the files in the home's plugin store, sorted (none
    /// when it does not exist).
    pub fn plugin_files(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.home.path().join("plugins"))
            .map(|dir| {
                dir.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }
}

/// The strings of a JSON array, sorted.
pub fn sorted(list: &serde_json::Value) -> Vec<String> {
    let mut out: Vec<String> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    out.sort();
    out
}

/// A compiled component from `plugins/` (built by build.rs).
pub fn wasm(name: &str) -> PathBuf {
    Path::new(env!("RESOURCE_HOST_WASM_DIR")).join(name)
}

/// The spec's custom type example, verbatim.
pub const PYTHON_PACKAGE_YAML: &str = include_str!("../data/python-package.yaml");

/// A home with the `faulty` fixture plugin added and one type per class
/// (`test/<class in lowercase>`, arguments `path` and `secret`), plus a
/// location `loc/` holding `sub/` and `file.txt`.
pub fn faulty_home(classes: &[&str]) -> Env {
    let env = Env::new();
    env.run(&["plugin", "add", wasm("faulty.wasm").to_str().unwrap()])
        .ok();
    for class in classes {
        let yaml = format!(
            "name: test/{}\nresource_kind: physical\nuser_addable: true\n\
             cli_args:\n  - {{name: path, type: path, required: true}}\n  - {{name: secret, type: string}}\n  - {{name: answer, type: string}}\n\
             child_types: [fs-directory]\nhandler: test.faulty:{class}\n",
            class.to_lowercase()
        );
        let file = env.write(&format!("{class}.yaml"), &yaml);
        env.run(&["resource", "type", "add", file.to_str().unwrap()])
            .ok();
    }
    env.mkdir("loc/sub");
    env.write("loc/file.txt", "hello\n");
    env
}

/// componentize-py, for the Python plugin tests: where `.ci/run` installs
/// it (`<repo>/target/py-venv/bin/componentize-py`), else
/// `$COMPONENTIZE_PY`, else the first on `PATH`.
pub fn componentize_py() -> Option<PathBuf> {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/py-venv/bin/componentize-py");
    if venv.is_file() {
        return Some(venv);
    }
    if let Some(given) = std::env::var_os("COMPONENTIZE_PY").map(PathBuf::from)
        && given.is_file()
    {
        return Some(given);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("componentize-py"))
        .find(|candidate| candidate.is_file())
}

/// The registry's tables, in the order snapshots dump them.
const TABLES: [&str; 9] = [
    "resource_types",
    "resources",
    "resource_links",
    "plugins",
    "registry_meta",
    "environment_settings",
    "sandboxes",
    "container_states",
    "devcontainer_trust",
];

/// [`Env::snapshot`] on PostgreSQL: every row of every table, as text.
fn postgres_snapshot(url: &str) -> String {
    let mut client = postgres::Client::connect(url, postgres::NoTls).unwrap();
    let mut out = String::new();
    for table in TABLES {
        let sql = format!("SELECT t::text FROM {table} t ORDER BY 1");
        for row in client.query(&sql, &[]).unwrap() {
            out.push_str(table);
            out.push(':');
            out.push_str(&row.get::<_, String>(0));
            out.push('\n');
        }
    }
    out
}
