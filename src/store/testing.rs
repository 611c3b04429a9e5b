//! PostgreSQL for tests: a fresh schema per test on the server
//! `$AGENTS_TEST_POSTGRES` names (`.ci/run` starts one), dropped when the
//! test ends. Without the variable the PostgreSQL half of a test is
//! skipped — loudly, on the terminal, not in captured output. Built for
//! the crate's own tests and with the `test-support` feature only.

use std::io::Write;
use std::sync::Once;

/// The variable naming the test server (a `postgres://` URL whose user
/// may create schemas).
pub const SERVER_VAR: &str = "AGENTS_TEST_POSTGRES";

/// One private schema on the test server.
#[derive(Debug)]
pub struct TestSchema {
    /// A registry URL whose connections work in the schema.
    pub url: String,
    server: String,
    schema: String,
}

/// A fresh schema, or `None` (and a SKIPPED line) when no server is named.
pub fn postgres() -> Option<TestSchema> {
    let Some(server) = std::env::var(SERVER_VAR).ok().filter(|v| !v.is_empty()) else {
        static SAID: Once = Once::new();
        SAID.call_once(|| {
            // Straight to the terminal: the test harness captures `eprintln!`.
            let _ = writeln!(
                std::io::stderr(),
                "\n*** PostgreSQL tests SKIPPED: no server (set {SERVER_VAR}=postgres://…; \
                 .ci/run starts one) ***"
            );
        });
        return None;
    };
    let schema = format!("t_{}", ulid::Ulid::generate().to_string().to_lowercase());
    let mut admin = postgres::Client::connect(&server, postgres::NoTls)
        .unwrap_or_else(|e| panic!("{SERVER_VAR}={server} does not answer: {e}"));
    admin
        .batch_execute(&format!("CREATE SCHEMA {schema}"))
        .expect("create a test schema");
    let separator = if server.contains('?') { '&' } else { '?' };
    let url = format!("{server}{separator}options=-csearch_path%3D{schema}");
    Some(TestSchema {
        url,
        server,
        schema,
    })
}

impl Drop for TestSchema {
    fn drop(&mut self) {
        if let Ok(mut admin) = postgres::Client::connect(&self.server, postgres::NoTls) {
            let _ = admin.batch_execute(&format!("DROP SCHEMA {} CASCADE", self.schema));
        }
    }
}
