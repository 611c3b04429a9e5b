//! `agents registry import` holds a document to registration's rules: a
//! location must be absolute and canonical (a relative one would be read
//! against whatever directory a later command runs in), timestamps real,
//! text bounded and free of NUL bytes, nesting and aliases bounded; every
//! refusal names the item and leaves the target home as it was.

use crate::common::Env;
use serde_json::Value;

/// A document of one registered directory (and what it holds).
fn exported() -> Value {
    let from = Env::new();
    let dir = from.mkdir("dir");
    from.write("dir/file.txt", "x");
    from.add("fs-directory", "local/dir", &dir, &[]).ok();
    from.run(&["registry", "export"]).json()
}

/// Import `doc` into `to`: the run.
fn import(to: &Env, doc: &str) -> crate::common::Run {
    let file = to.write("doc.yaml", doc);
    to.run(&["registry", "import", file.to_str().unwrap()])
}

#[test]
fn an_imported_location_or_timestamp_registration_would_refuse_is_refused_and_nothing_is_written() {
    let doc = exported();
    let to = Env::new();
    to.run(&["resource", "list"]).ok();
    let before = to.state();
    let edits: Vec<(&str, Value, &[&str])> = vec![
        (
            "location",
            "relative/path".into(),
            &["its location \"relative/path\"", "not an absolute path"],
        ),
        ("location", "../../../etc".into(), &["not an absolute path"]),
        ("location", "/tmp/../etc".into(), &["holds `..`"]),
        ("location", "/tmp/a\0b".into(), &["NUL byte"]),
        (
            "created_at",
            "not a time".into(),
            &["created_at \"not a time\" is not a UTC timestamp"],
        ),
        (
            "description",
            "d".repeat(200 * 1024).into(),
            &["description is 204800 bytes, more than the 65536 allowed"],
        ),
    ];
    for (field, value, parts) in edits {
        let mut edited = doc.clone();
        edited["resources"][0][field] = value;
        let run = import(&to, &edited.to_string());
        let stderr = run.refused(&[&["resources[0]"][..], parts].concat());
        assert!(
            stderr.len() < 2000,
            "a refusal quotes, it does not print whole: {stderr}"
        );
    }
    assert_eq!(to.state(), before, "nothing was imported");
    // The document as exported imports.
    import(&to, &doc.to_string()).ok();
}

#[test]
fn a_deeply_nested_document_is_refused_at_its_bound() {
    let to = Env::new();
    let deep = format!(
        "format: agents-registry\nversion: 1\nx: {}1{}\n",
        "{a: ".repeat(40_000),
        "}".repeat(40_000)
    );
    import(&to, &deep).refused(&["the YAML is refused", "nests deeper than 64 levels"]);
    let json = format!(
        "{{\"format\": \"agents-registry\", \"x\": {}{}}}",
        "[".repeat(65),
        "]".repeat(65)
    );
    import(&to, &json).refused(&["the JSON is refused", "deeper than 64"]);
}

#[test]
fn a_description_registration_would_refuse_is_refused_there_too() {
    let env = Env::new();
    let dir = env.mkdir("dir");
    let long = "d".repeat(resource_host::model::DESCRIPTION_MAX + 1);
    env.add("fs-directory", "local/dir", &dir, &["--description", &long])
        .refused(&["--description is refused", "more than the 65536"]);
}
