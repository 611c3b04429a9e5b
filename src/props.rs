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
//! The random generator starts from a fixed seed, so `cargo test` (and
//! CI) runs the same cases every time and cannot turn red by chance. To
//! explore other cases, give proptest's own `PROPTEST_RNG_SEED`:
//!
//! ```text
//! PROPTEST_RNG_SEED=$RANDOM PROPTEST_CASES=50000 cargo test --lib proptests
//! ```
//!
//! No failure file is written into the source tree: a failure prints its
//! minimal case, which becomes an ordinary, named regression test next to
//! the code it broke.

use proptest::test_runner::{Config, RngSeed};

/// The seed every property starts from unless `PROPTEST_RNG_SEED` names
/// another.
const SEED: u64 = 0x6167_656e_7473_0015;

/// The configuration of a property that runs `cases` cases by default.
pub(crate) fn cases(cases: u32) -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(cases);
    // `Config::default()` has already read `PROPTEST_RNG_SEED` when given.
    let defaults = Config::default();
    let rng_seed = match std::env::var_os("PROPTEST_RNG_SEED") {
        Some(_) => defaults.rng_seed,
        None => RngSeed::Fixed(SEED),
    };
    Config {
        cases,
        rng_seed,
        failure_persistence: None,
        ..defaults
    }
}
