use super::*;

fn split(args: &[&str]) -> Result<Vec<String>, String> {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    run_args(&args).map(|opts| opts.iter().map(RunOption::shown).collect())
}

#[test]
fn options_are_split_as_dockers_flag_parser_splits_them() {
    assert_eq!(
        split(&[
            "--privileged",
            "-v",
            "/:/host",
            "--pid=host",
            "--net",
            "host",
            "-it",
            "-eA=1",
            "--user",
            "--privileged",
        ])
        .unwrap(),
        [
            "--privileged",
            "--volume=/:/host",
            "--pid=host",
            "--network=host",
            "--interactive",
            "--tty",
            "--env=A=1",
            // A value is the next word whatever it looks like.
            "--user=--privileged",
        ]
    );
}

#[test]
fn a_word_docker_would_read_as_the_image_is_refused() {
    let err = split(&["--init", "alpine", "sh"]).unwrap_err();
    assert!(err.contains("\"alpine\"") && err.contains("image"), "{err}");
    assert!(split(&["--"]).is_err());
    assert!(split(&["--cap-add"]).unwrap_err().contains("needs a value"));
    // An unknown option followed by a bare word: which is it?
    let err = split(&["--future-flag", "x"]).unwrap_err();
    assert!(err.contains("--name=value"), "{err}");
    assert_eq!(split(&["--future-flag=x"]).unwrap(), ["--future-flag=x"]);
    assert!(split(&["-Z"]).unwrap_err().contains("-Z"));
}

#[test]
fn what_an_option_grants_names_the_host_access() {
    let outside = |src: &str| {
        if src.starts_with("/repo") {
            Source::Inside
        } else if src.starts_with('/') {
            Source::Outside
        } else {
            Source::Volume
        }
    };
    let grants = |args: &[&str]| -> Vec<(String, bool)> {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        run_args(&args)
            .unwrap()
            .iter()
            .map(|o| grant(o, &outside))
            .collect()
    };
    let got = grants(&[
        "--privileged",
        "--cap-add=ALL",
        "--pid=host",
        "--network=host",
        "-v",
        "/:/host",
        "-v",
        "/repo/data:/data",
        "-v",
        "cache:/cache",
        "--security-opt",
        "seccomp=unconfined",
        "--device=/dev/kvm",
        "-e",
        "AWS_SECRET_ACCESS_KEY",
        "--network=none",
        "--init",
    ]);
    let host: Vec<bool> = got.iter().map(|(_, h)| *h).collect();
    assert_eq!(
        host,
        [
            true, true, true, true, true, false, false, true, true, true, false, false
        ],
        "{got:#?}"
    );
    assert!(got[0].0.contains("root on the host"));
    assert!(got[4].0.contains("whole filesystem"), "{}", got[4].0);
    assert!(got[9].0.contains("AWS_SECRET_ACCESS_KEY"));
}

#[test]
fn a_mount_specification_is_read_in_every_spelling() {
    assert_eq!(
        mount_spec("type=bind,src=/root/.ssh,dst=/home/x/.ssh,readonly"),
        MountSpec {
            kind: Some("bind".into()),
            source: Some("/root/.ssh".into()),
            target: Some("/home/x/.ssh".into()),
            readonly: true,
        }
    );
    assert_eq!(
        mount_spec("\"source=/a,b\",target=/t").source.as_deref(),
        Some("/a,b")
    );
}

#[test]
fn build_options_refuse_a_word_that_would_become_the_context() {
    let words = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(build_options(&words(&["--network=host", "--add-host", "x:1.2.3.4"])).is_ok());
    assert!(build_options(&words(&["/"])).is_err());
    assert!(build_options(&words(&["--pull=always", "/"])).is_err());
}
