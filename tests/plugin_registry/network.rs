//! The registry's side of the wire: credentials from a docker config
//! file, never printed or stored; a registry that goes down mid-pull, or
//! is not there, is a one-line refusal (a cutting proxy in front of the
//! test registry plays the one going down).

use super::{example, new_publisher, plugin_modules, push, registry, repo, run};
use crate::common::Env;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};

#[test]
fn credentials_come_from_a_docker_config_file_and_are_never_printed() {
    let Some(reg) = registry("docker config auth") else {
        return;
    };
    let (publisher, _) = new_publisher();
    let reference = format!("{}/team/p:0.1.0", reg.auth);
    let file = example();
    run(&publisher, &["plugin", "push", &file, &reference], &[]).refused(&[
        "refused access",
        "(401)",
        "docker login",
    ]);
    let user = std::env::var("AGENTS_TEST_REGISTRY_USER").unwrap();
    let password = std::env::var("AGENTS_TEST_REGISTRY_PASSWORD").unwrap();
    let auth = base64(&format!("{user}:{password}"));
    let config = publisher.write(
        "docker/config.json",
        &format!(r#"{{"auths": {{"{}": {{"auth": "{auth}"}}}}}}"#, reg.auth),
    );
    let docker = [("DOCKER_CONFIG", config.parent().unwrap().to_str().unwrap())];
    let pushed = run(
        &publisher,
        &["plugin", "push", &file, &reference, "-v"],
        &docker,
    );
    pushed.ok();
    let installed = run(
        &publisher,
        &["plugin", "install", &reference, "--allow-unsigned", "-vv"],
        &docker,
    );
    installed.ok();
    for out in [&pushed, &installed] {
        assert!(!out.stdout.contains(&password) && !out.stderr.contains(&password));
    }
    assert!(!publisher.snapshot().contains(&password), "never stored");
}

#[test]
fn a_registry_going_down_mid_pull_is_a_one_line_refusal_and_nothing_is_added() {
    let Some(reg) = registry("registry down mid-pull") else {
        return;
    };
    let (publisher, _) = new_publisher();
    let path = repo(&reg, "p");
    push(&publisher, &example(), &path, &[]);
    let proxy = CuttingProxy::start(&reg.open);
    let through = path.replacen(&reg.open, &proxy.address, 1);
    let home = Env::new();
    let out = run(
        &home,
        &[
            "plugin",
            "install",
            &format!("{through}:0.1.0"),
            "--allow-unsigned",
        ],
        &[],
    );
    let err = out.refused(&[&proxy.address]);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(plugin_modules(&home).is_empty());

    let down = Env::new();
    run(
        &down,
        &["plugin", "install", "127.0.0.1:9/p/q:1", "--allow-unsigned"],
        &[],
    )
    .refused(&["cannot reach registry 127.0.0.1:9", "connection refused"]);
}

fn base64(text: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(text)
}

/// A loopback proxy in front of the registry that passes everything but
/// a blob, of which it sends half and then hangs up: a registry that
/// goes down mid-pull. One request per connection (`Connection: close`).
struct CuttingProxy {
    address: String,
}

impl CuttingProxy {
    fn start(upstream: &str) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let upstream = upstream.to_owned();
        std::thread::spawn(move || {
            // Bounded: an install makes a handful of requests.
            for stream in listener.incoming().take(32).flatten() {
                let _ = serve_one(stream, &upstream);
            }
        });
        Self { address }
    }
}

fn read_head(stream: &mut TcpStream) -> std::io::Result<Vec<u8>> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if stream.read(&mut byte)? == 0 {
            break;
        }
        head.push(byte[0]);
    }
    Ok(head)
}

fn serve_one(mut client: TcpStream, upstream: &str) -> std::io::Result<()> {
    let head = String::from_utf8_lossy(&read_head(&mut client)?).into_owned();
    let is_blob = head
        .lines()
        .next()
        .is_some_and(|l| l.contains("/blobs/sha256:"));
    let request: String = head
        .lines()
        .filter(|l| !l.to_ascii_lowercase().starts_with("connection:") && !l.is_empty())
        .map(|l| format!("{l}\r\n"))
        .collect::<String>()
        + "Connection: close\r\n\r\n";
    let mut server = TcpStream::connect(upstream)?;
    server.write_all(request.as_bytes())?;
    let mut response = Vec::new();
    server.read_to_end(&mut response)?;
    let split = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map_or(response.len(), |i| i + 4);
    let (head, body) = response.split_at(split);
    client.write_all(head)?;
    if is_blob && body.len() > 1000 {
        client.write_all(&body[..body.len() / 2])?;
    } else {
        client.write_all(body)?;
    }
    Ok(())
}
