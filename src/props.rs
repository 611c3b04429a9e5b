//! How many cases a property test runs: the one home of that rule, so
//! every property (`proptests` modules) is bounded the same way.
//!
//! Each property names its own count, sized so that it takes a few
//! seconds in a debug build and `cargo test` stays quick. A long run on
//! purpose sets proptest's own `PROPTEST_CASES`, which then overrides
//! every count at once:
//!
//! ```text
//! PROPTEST_CASES=50000 cargo test --lib proptests
//! ```
//!
//! No failure file is written into the source tree: a failure prints its
//! minimal case, which becomes an ordinary, named regression test next to
//! the code it broke.

use proptest::test_runner::Config;

/// The configuration of a property that runs `cases` cases by default.
pub(crate) fn cases(cases: u32) -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(cases);
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}
