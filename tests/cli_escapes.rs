//! Text a type file, a plugin or an imported document chose reaches the
//! terminal escaped — `resource type show`/`explain`, `resource add TYPE
//! --help`, `plugin show` — and a completion script offers none of it to
//! the shell to run.

use crate::common::{Env, wasm};

/// A type whose description, argument description and choices hold
/// terminal escapes and shell syntax.
const EVIL_TYPE: &str = "name: acme/evil\nresource_kind: physical\nuser_addable: true\n\
    description: \"desc \\e[2J\\e]0;pwned\\a\"\n\
    cli_args:\n  - {name: mode, type: choice, choices: [\"ok\", \"$(touch PWNED)\", \"a'b\", \
    \"\\e[31mred\"], description: \"pick \\e[31m one\", default: \"ok\"}\n";

fn assert_no_escapes(what: &str, text: &str) {
    assert!(
        !text
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t'),
        "{what} printed a control character: {text:?}"
    );
}

#[test]
fn a_types_texts_are_escaped_in_show_explain_and_add_help() {
    let env = Env::new();
    let file = env.write("evil.yaml", EVIL_TYPE);
    env.run(&["resource", "type", "add", file.to_str().unwrap()])
        .ok();
    for args in [
        vec!["resource", "type", "show", "acme/evil"],
        vec!["resource", "type", "explain", "acme/evil"],
        vec!["resource", "add", "acme/evil", "--help"],
    ] {
        let out = env.run(&args);
        let text = out.ok();
        assert_no_escapes(&args.join(" "), text);
        assert!(text.contains("\\u{1b}"), "shown escaped: {text}");
    }
    // A choice that is no plain word is still accepted when typed.
    env.run(&[
        "resource",
        "add",
        "acme/evil",
        "local/e",
        "--mode",
        "$(touch PWNED)",
    ])
    .ok();
}

#[test]
fn a_completion_script_never_runs_or_offers_a_types_shell_syntax() {
    let env = Env::new();
    let file = env.write("evil.yaml", EVIL_TYPE);
    env.run(&["resource", "type", "add", file.to_str().unwrap()])
        .ok();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = env.run(&["completions", shell]);
        assert_no_escapes(&format!("completions {shell}"), script.ok());
        assert!(!script.stdout.contains("touch PWNED"), "{shell}");
    }
    let script = env.run(&["completions", "bash"]).stdout;
    let path = env.write("agents.bash", &script);
    // Complete `agents resource add acme/evil --mode <TAB>` in a real bash.
    let offered = std::process::Command::new("bash")
        .arg("-c")
        .arg(
            "source \"$0\"; COMP_WORDS=(agents resource add acme/evil --mode ''); COMP_CWORD=5; \
             _agents agents '' --mode; printf '%s\\n' \"${COMPREPLY[@]}\"",
        )
        .arg(&path)
        .current_dir(env.scratch.path())
        .output()
        .unwrap();
    let words = String::from_utf8_lossy(&offered.stdout);
    assert_eq!(words.trim(), "ok", "{offered:?}");
    assert!(
        !env.path("PWNED").exists(),
        "the completion ran the type's text"
    );
}

#[test]
fn an_imported_plugins_class_descriptions_are_escaped_by_plugin_show() {
    let from = Env::new();
    from.run(&["plugin", "add", wasm("faulty.wasm").to_str().unwrap()])
        .ok();
    let mut doc = from.run(&["registry", "export", "--with-plugins"]).json();
    let module = doc["plugins"][0]["module"].as_str().unwrap().to_owned();
    doc["plugins"][0]["classes"][0]["description"] = "clear \u{1b}[2J\u{1b}]0;title\u{7}".into();
    let to = Env::new();
    let file = to.write("doc.json", &doc.to_string());
    to.run(&["registry", "import", file.to_str().unwrap()]).ok();
    let shown = to.run(&["plugin", "show", &module]);
    let text = shown.ok();
    assert_no_escapes("plugin show", text);
    assert!(text.contains("clear \\u{1b}[2J"), "{text}");
}
