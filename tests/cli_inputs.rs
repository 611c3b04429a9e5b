//! The CLI's own inputs: the files its verbs read (type files, plugin
//! components, registry documents, `--config`) and write (`registry
//! export --out`), and the global limits it takes (`--handler-memory`,
//! `--handler-timeout`). A FIFO, a device or anything but a regular file
//! is refused without blocking and without being read or replaced; a
//! limit out of range is a usage error (exit 2) naming the range.

use crate::common::Env;

#[test]
fn handler_limits_out_of_range_are_usage_errors_naming_the_range() {
    let env = Env::new();
    env.run(&["--handler-memory", "99999999999", "resource", "list"])
        .usage(&["--handler-memory", "16..=4096"]);
    env.run(&["--handler-memory", "1", "resource", "list"])
        .usage(&["16..=4096"]);
    for bad in ["1e30", "0", "-1", "NaN", "inf", "86401"] {
        let flag = format!("--handler-timeout={bad}");
        env.run(&[&flag, "resource", "list"])
            .usage(&["--handler-timeout", "from 0.005 to 86400"]);
    }
    let run = crate::common::Run::from(
        env.command()
            .env("AGENTS_HANDLER_MEMORY", "99999999999")
            .args(["resource", "list"])
            .output()
            .unwrap(),
    );
    run.usage(&["16..=4096"]);
    env.run(&[
        "--handler-memory",
        "4096",
        "--handler-timeout",
        "0.5",
        "resource",
        "list",
    ])
    .ok();
}
