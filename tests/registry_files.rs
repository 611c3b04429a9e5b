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
