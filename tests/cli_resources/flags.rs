//! `resource add TYPE`'s flags, as completion scripts and the parser see
//! them.

use crate::common::Env;

#[test]
fn completions_know_the_addable_types_and_their_flags() {
    let env = Env::new();
    let builtin = env.run(&["completions", "bash"]);
    let script = builtin.ok();
    assert!(script.contains("git-checkout"), "{script}");
    assert!(script.contains("--branch"), "{script}");
    assert!(!env.db().exists(), "completions create no registry");
    // With a registry in the home, its custom types complete too.
    env.write(
        "t.yaml",
        "name: acme/thing\nresource_kind: physical\nuser_addable: true\n\
                         cli_args:\n  - {name: colour, type: string}\n",
    );
    env.run(&["resource", "type", "add", "t.yaml"]).ok();
    let custom = env.run(&["completions", "zsh"]);
    assert!(custom.ok().contains("--colour"), "{}", custom.stdout);
}

#[test]
fn add_takes_flags_the_way_every_verb_does() {
    let env = Env::new();
    env.mkdir("d");
    env.write(
        "t.yaml",
        "name: acme/box\nresource_kind: physical\nuser_addable: true\n\
                         cli_args:\n  - {name: path, type: path, required: true}\n\
                         \x20 - {name: sealed, type: boolean}\n\
                         \x20 - {name: size, type: choice, choices: [s, m]}\n",
    );
    env.run(&["resource", "type", "add", "t.yaml"]).ok();
    let shown = env
        .run(&[
            "resource", "add", "acme/box", "--path=d", "--sealed", "--size", "m", "local/b", "-o",
            "json",
        ])
        .json();
    assert_eq!(shown["properties"]["sealed"], true);
    assert_eq!(shown["properties"]["size"], "m");
    assert_eq!(shown["name"], "local/b");
    env.run(&[
        "resource",
        "add",
        "acme/box",
        "--path=d",
        "--sealed=false",
        "local/c",
    ])
    .ok();
    env.run(&[
        "resource", "add", "acme/box", "--path=d", "--size", "xl", "local/d",
    ])
    .usage(&["invalid value 'xl'", "[possible values: s, m]"]);
    let help = env.run(&["resource", "add", "acme/box", "--help"]);
    assert!(help.ok().contains("--size <choice>"), "{}", help.stdout);
}
