//! The registry's own files and where it is: which text names a server
//! and which a SQLite file (a connection string or a mistyped URL never
//! becomes a file named after it), passwords masked in every message, and
//! a home and registry file nobody else may read or swap.

use crate::common::Env;

/// The test server as a libpq connection string, with a password the
/// server does not ask for (it trusts loopback connections).
fn conninfo(url: &str) -> String {
    use std::str::FromStr;
    let config = postgres::Config::from_str(url).unwrap();
    let host = match &config.get_hosts()[0] {
        postgres::config::Host::Tcp(h) => h.clone(),
        postgres::config::Host::Unix(p) => p.display().to_string(),
    };
    let options = config.get_options().unwrap_or_default();
    format!(
        "host={host} port={} user={} password=S3cretPW dbname={} options='{options}'",
        config.get_ports()[0],
        config.get_user().unwrap(),
        config.get_dbname().unwrap(),
    )
}

fn scratch_files(env: &Env) -> Vec<String> {
    std::fs::read_dir(env.scratch.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn a_libpq_connection_string_reaches_the_server_and_its_password_is_never_shown() {
    let env = Env::new();
    let Some(schema) = &env.postgres else {
        return; // needs the suite's PostgreSQL server
    };
    let conninfo = conninfo(&schema.url);
    let info = env.run(&["--registry", &conninfo, "registry", "info", "-o", "json"]);
    let shown = info.json();
    assert_eq!(shown["backend"], "postgres", "{shown}");
    assert!(
        shown["location"].as_str().unwrap().contains("password=***"),
        "{shown}"
    );
    assert!(!info.stdout.contains("S3cretPW") && !info.stderr.contains("S3cretPW"));
    let table = env.run(&["--registry", &conninfo, "registry", "info"]);
    assert!(!table.ok().contains("S3cretPW"), "{}", table.stdout);
    // The same registry as the test's own URL names.
    env.write("t.yaml", "name: acme/thing\nresource_kind: physical\n");
    env.run(&["--registry", &conninfo, "resource", "type", "add", "t.yaml"])
        .ok();
    assert_eq!(
        env.count("SELECT count(*) FROM resource_types WHERE name = 'acme/thing'"),
        1
    );
    assert!(scratch_files(&env).iter().all(|f| !f.contains("host=")));
}

#[test]
fn a_connection_string_is_never_taken_for_a_sqlite_file() {
    let env = Env::new();
    let conninfo = "host=/nonexistent-socket-dir user=rt password=S3cretPW dbname=rt";
    let refused = env.run(&["--registry", conninfo, "registry", "info"]);
    let stderr = refused.refused(&["cannot open the registry at", "password=***"]);
    assert!(!stderr.contains("S3cretPW"), "{stderr}");
    assert!(!refused.stdout.contains("S3cretPW"));
    assert_eq!(
        scratch_files(&env),
        Vec::<String>::new(),
        "no file was made"
    );
    // Text that starts like a connection string but is none is refused,
    // masked, and names the way to a file with `=` in its name.
    let typo = env.run(&[
        "--registry",
        "host=h password=S3cretPW colour=blue",
        "resource",
        "list",
    ]);
    let stderr = typo.usage(&["connection string", "sqlite:NAME"]);
    assert!(!stderr.contains("S3cretPW"), "{stderr}");
    assert_eq!(scratch_files(&env), Vec::<String>::new());
}

#[test]
fn a_mistyped_postgres_url_is_refused_with_its_password_masked() {
    let env = Env::new();
    for typo in [
        "postgres:/rt:PW@localhost/db",
        "postgresql:rt:PW@localhost/db",
    ] {
        let refused = env.run(&["--registry", typo, "registry", "info"]);
        let stderr = refused.usage(&["starts with postgres://", "rt:***@localhost"]);
        assert!(!stderr.contains(":PW@"), "{stderr}");
    }
    assert_eq!(scratch_files(&env), Vec::<String>::new());
}

fn mode(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).unwrap().mode() & 0o7777
}

/// `agents ARGS…` (no `--home` of the test's) under `umask MASK`.
fn with_umask(env: &Env, mask: &str, args: &[&str]) -> crate::common::Run {
    let output = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("umask {mask}; exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_agents"))
        .args(args)
        .env_remove("AGENTS_HOME")
        .env_remove("AGENTS_REGISTRY")
        .current_dir(env.scratch.path())
        .output()
        .unwrap();
    crate::common::Run::from(output)
}

#[test]
fn a_new_home_is_private_and_its_registry_file_and_log_are_0600_whatever_the_umask() {
    if crate::common::backend() != "sqlite" {
        return; // the registry file is the server's
    }
    for mask in ["000", "022"] {
        let env = Env::new();
        let home = env.path("new/home");
        let home_arg = home.to_str().unwrap();
        with_umask(&env, mask, &["--home", home_arg, "resource", "list"]).ok();
        assert_eq!(mode(&home), 0o700, "umask {mask}");
        assert_eq!(mode(&env.path("new")), 0o700, "umask {mask}");
        for file in ["registry.db", "registry.db-wal", "registry.db-shm"] {
            assert_eq!(mode(&home.join(file)), 0o600, "{file}, umask {mask}");
        }
    }
}

#[test]
fn a_registry_file_readable_by_others_is_made_private_with_a_warning() {
    use std::os::unix::fs::PermissionsExt;
    if crate::common::backend() != "sqlite" {
        return;
    }
    let env = Env::new();
    env.run(&["resource", "list"]).ok();
    let files = ["registry.db", "registry.db-wal", "registry.db-shm"];
    for file in files {
        let path = env.home.path().join(file);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let run = env.run(&["resource", "list"]);
    run.ok();
    assert!(
        run.stderr.contains(
            "registry.db was readable by other users (mode 0644); it is private now (0600)"
        ),
        "{}",
        run.stderr
    );
    for file in files {
        assert_eq!(mode(&env.home.path().join(file)), 0o600, "{file}");
    }
    assert_eq!(env.run(&["resource", "list"]).stderr, "", "said once");
}

#[test]
fn a_registry_file_or_home_others_could_write_or_own_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    env.run(&["resource", "list"]).ok();
    let home = env.home.path();
    let chmod = |path: &std::path::Path, m| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(m)).unwrap()
    };
    chmod(home, 0o777);
    env.run(&["resource", "list"]).refused(&[
        "refusing to use",
        "as the home: it is writable by its group and everyone (mode 0777)",
        "chmod go-w",
    ]);
    chmod(home, 0o700);
    if crate::common::backend() == "sqlite" {
        for file in ["registry.db", "registry.db-wal"] {
            let path = home.join(file);
            chmod(&path, 0o620);
            env.run(&["resource", "list"]).refused(&[
                "refusing to open the registry file",
                file,
                "writable by its group (mode 0620)",
            ]);
            chmod(&path, 0o600);
        }
    }
    // Owned by another user (root may hand a file away; elsewhere this
    // half cannot be made).
    let other = 4242;
    let owned = |path: &std::path::Path| std::os::unix::fs::chown(path, Some(other), None).is_ok();
    if !owned(home) {
        crate::common::skipped(
            "a_registry_file_or_home_others_could_write_or_own_is_refused (another owner)",
            "cannot chown here (needs root)",
        );
        return;
    }
    env.run(&["resource", "list"])
        .refused(&["as the home: it is owned by uid 4242"]);
    let me = rustix::process::geteuid().as_raw();
    std::os::unix::fs::chown(home, Some(me), None).unwrap();
    if crate::common::backend() == "sqlite" {
        assert!(owned(&home.join("registry.db")));
        env.run(&["resource", "list"]).refused(&[
            "refusing to open the registry file",
            "it is owned by uid 4242",
        ]);
    }
}
