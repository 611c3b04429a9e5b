use super::*;
use std::collections::BTreeMap;

#[test]
fn a_configuration_is_read_with_comments_and_its_paths_resolved() {
    let bench = Bench::new(&[]);
    let req = bench.config(
        r#"{
        // JSON with comments, as the CLI reads it.
        "name": "api // still the name",
        "build": { "dockerfile": "Dockerfile", "args": { "V": "1", }, }, /* built */
        "containerEnv": { "A": "1" },
        "remoteEnv": { "PATH": "${containerEnv:PATH}:/x", "GONE": null },
        "postCreateCommand": { "deps": "npm ci", "hooks": ["git", "config", "x"] },
        "workspaceFolder": "/w",
        "runArgs": ["--init"],
        "forwardPorts": [3000,],
    }"#,
    );
    bench.file(".devcontainer/Dockerfile", "FROM alpine\n");
    let config = checked(&req).config;
    let dir = bench.workspace().join(".devcontainer");
    assert_eq!(config.name.as_deref(), Some("api // still the name"));
    assert_eq!(
        config.build,
        Some(BuildConfig {
            dockerfile: dir.join("Dockerfile"),
            context: dir.clone(),
            args: BTreeMap::from([("V".into(), "1".into())]),
            other_keys: vec![],
        })
    );
    assert_eq!(config.remote_env["GONE"], None);
    assert_eq!(
        config.post_create_command,
        Some(LifecycleCommand::Each(BTreeMap::from([
            ("deps".into(), LifecycleCommand::Shell("npm ci".into())),
            (
                "hooks".into(),
                LifecycleCommand::Exec(vec!["git".into(), "config".into(), "x".into()])
            ),
        ])))
    );
    assert!(config.override_command, "true unless said otherwise");
    assert_eq!(config.other_keys, ["forwardPorts"]);
    assert_eq!(config.run_args, ["--init"]);
}

#[test]
fn the_older_dockerfile_spelling_is_read_and_empty_commands_are_none() {
    let bench = Bench::new(&[]);
    let req = bench
        .config(r#"{"dockerFile": "../Dockerfile", "context": "..", "postCreateCommand": " "}"#);
    bench.file("Dockerfile", "FROM alpine\n");
    let config = checked(&req).config;
    let build = config.build.unwrap();
    // `..` resolved: the paths checked are the paths the engine gets.
    assert_eq!(
        (build.dockerfile, build.context),
        (bench.workspace().join("Dockerfile"), bench.workspace())
    );
    assert_eq!(config.post_create_command, None);
}

#[test]
fn a_value_of_the_wrong_type_is_refused_with_its_key() {
    let bench = Bench::new(&[]);
    for (text, needle) in [
        (r#"{"image": 5}"#, "\"image\" must be a string"),
        (
            r#"{"containerEnv": {"A": 1}}"#,
            "\"containerEnv\".\"A\" must be a string",
        ),
        (
            r#"{"runArgs": "--init"}"#,
            "\"runArgs\" must be an array of strings",
        ),
        (
            r#"{"overrideCommand": "no"}"#,
            "\"overrideCommand\" must be true or false",
        ),
        (
            r#"{"postCreateCommand": {"a": {"b": "c"}}}"#,
            "postCreateCommand.a must be",
        ),
        (
            r#"{"build": {"context": ".."}}"#,
            "neither an \"image\" nor a \"build\" with a \"dockerfile\"",
        ),
        ("[1, 2]", "must be a JSON object"),
        ("{\n  \"image\": \n}", "line 3"),
    ] {
        let req = bench.config(text);
        let err = Checked::load(&req).unwrap_err();
        assert!(
            matches!(&err, DevcontainerError::Config { path, .. } if *path == req.config),
            "{err:?}"
        );
        assert!(err.to_string().contains(needle), "{text}: {err}");
    }
}

#[test]
fn the_config_hash_follows_the_configuration_and_its_dockerfile() {
    let bench = Bench::new(&[]);
    let image = bench.config(r#"{"image": "alpine"}"#);
    let text = std::fs::read(&image.config).unwrap();
    // Without a Dockerfile: the file's own digest (detection's config-digest).
    assert_eq!(config_hash(&image), crate::digest::sha256_hex(&text));

    let dockerfile = bench.file(".devcontainer/Dockerfile", "FROM alpine:3.19\n");
    let req = bench.config(r#"{"build": {"dockerfile": "Dockerfile"}}"#);
    let first = config_hash(&req);
    assert!(crate::digest::is_sha256_hex(&first));
    assert_eq!(config_hash(&req), first, "stable");
    std::fs::write(&dockerfile, "FROM alpine:3.20\n").unwrap();
    let second = config_hash(&req);
    assert_ne!(second, first, "the Dockerfile changed");
    bench.config(r#"{"build": {"dockerfile": "Dockerfile"}, "runArgs": []}"#);
    assert_ne!(config_hash(&req), second, "the configuration changed");

    std::fs::remove_file(&dockerfile).unwrap();
    let err = Checked::load(&req).unwrap_err();
    assert!(
        err.to_string().contains("build.dockerfile") && err.to_string().contains("does not exist"),
        "{err}"
    );
}
