//! Plugins through a real OCI registry: Debian's
//! `docker-registry` (CNCF Distribution 2.8) started by
//! `scripts/test-registry.sh start`, named by `AGENTS_TEST_REGISTRY`
//! (open), `AGENTS_TEST_REGISTRY_AUTH` (htpasswd basic auth) and
//! `AGENTS_TEST_REGISTRY_STORAGE`. Without them each test says SKIPPED
//! and passes, unless `CI` is set (then it fails).
//!
//! Every test pushes to its own repository (`t<n>/…`), so they run side
//! by side on one registry.

use crate::common::{self, Env, Run, wasm};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The registries, or `None` after saying SKIPPED.
struct Registry {
    open: String,
    auth: String,
    storage: PathBuf,
}

fn registry(test: &str) -> Option<Registry> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    match (
        var("AGENTS_TEST_REGISTRY"),
        var("AGENTS_TEST_REGISTRY_AUTH"),
        var("AGENTS_TEST_REGISTRY_STORAGE"),
    ) {
        (Some(open), Some(auth), Some(storage)) => Some(Registry {
            open,
            auth,
            storage: storage.into(),
        }),
        _ => {
            assert!(
                std::env::var_os("CI").is_none(),
                "{test} needs a registry: eval \"$(scripts/test-registry.sh start)\""
            );
            common::skipped(
                test,
                "no test registry; eval \"$(scripts/test-registry.sh start)\" runs them",
            );
            None
        }
    }
}

/// A repository name of its own for each call.
fn repo(reg: &Registry, name: &str) -> String {
    static N: AtomicUsize = AtomicUsize::new(0);
    format!(
        "{}/t{}-{}/{name}",
        reg.open,
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// `agents ARGS…` in `env` with no docker config or registry variables
/// of the machine's, and `extra` variables.
fn run(env: &Env, args: &[&str], extra: &[(&str, &str)]) -> Run {
    let mut cmd = env.command();
    cmd.env("DOCKER_CONFIG", env.path("no-docker"));
    for k in [
        "AGENTS_REGISTRY_TOKEN",
        "AGENTS_REGISTRY_USERNAME",
        "AGENTS_REGISTRY_PASSWORD",
    ] {
        cmd.env_remove(k);
    }
    cmd.envs(extra.iter().copied());
    Run::from(cmd.args(args).output().unwrap())
}

fn example() -> String {
    wasm("python_package.wasm").display().to_string()
}

/// A publisher's home with key `team`; answers it and the public key.
fn new_publisher() -> (Env, String) {
    let env = Env::new();
    let key = run(&env, &["plugin", "key", "new", "team", "-o", "json"], &[]).json();
    (env, key["public_key"].as_str().unwrap().to_owned())
}

/// A fresh home that trusts `public_key` for `prefix`.
fn trusting(public_key: &str, prefix: &str) -> Env {
    let env = Env::new();
    run(
        &env,
        &["plugin", "key", "trust", public_key, "--for", prefix],
        &[],
    )
    .ok();
    env
}

fn push(env: &Env, file: &str, reference: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["plugin", "push", file, reference, "-o", "json"];
    args.extend_from_slice(extra);
    run(env, &args, &[]).json()
}

/// The faulty fixture (class `Healthy`) carrying `type_yaml`, written
/// into `env`'s scratch as `name`.
fn packed_faulty(env: &Env, name: &str, type_yaml: &str) -> String {
    let types = env.write(&format!("{name}.yaml"), type_yaml);
    let out = env.path(&format!("{name}.wasm"));
    run(
        env,
        &[
            "plugin",
            "pack",
            wasm("faulty.wasm").to_str().unwrap(),
            "--types",
            types.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    )
    .ok();
    out.display().to_string()
}

const HEALTHY_V1: &str = "name: test/healthy\nresource_kind: physical\nuser_addable: true\n\
    cli_args:\n  - {name: path, type: path, required: true}\n\
    child_types: [fs-directory]\nhandler: test.faulty:Healthy\n";

fn python_package(env: &Env) -> PathBuf {
    env.write(
        "pkg/pyproject.toml",
        "[project]\nname = \"acme\"\nversion = \"1.0\"\n",
    );
    env.write("pkg/src/acme/__init__.py", "");
    env.path("pkg")
}

fn plugin_modules(env: &Env) -> Vec<String> {
    run(env, &["plugin", "list", "-o", "json"], &[])
        .json()
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["built_in"] == false)
        .map(|p| p["module"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_pushed_plugin_installs_in_a_fresh_home_with_its_types_and_its_handler_works() {
    let Some(reg) = registry("push then install") else {
        return;
    };
    let (publisher, key) = new_publisher();
    let reference = repo(&reg, "python-package");
    let pushed = push(&publisher, &example(), &reference, &["--sign", "team"]);
    assert_eq!(pushed["reference"], format!("{reference}:0.1.0"));
    assert_eq!(
        pushed["types"],
        serde_json::json!(["myteam/python-package"])
    );

    let prefix = reference.rsplit_once('/').unwrap().0;
    let teammate = trusting(&key, prefix);
    let installed = run(
        &teammate,
        &[
            "plugin",
            "install",
            &format!("{reference}:0.1.0"),
            "-o",
            "json",
        ],
        &[],
    )
    .json();
    assert_eq!(
        installed["types_added"],
        serde_json::json!(["myteam/python-package"])
    );
    // The type came with the plugin: a resource of it registers and
    // discovers through the handler.
    let pkg = python_package(&teammate);
    run(
        &teammate,
        &[
            "resource",
            "add",
            "myteam/python-package",
            "local/pkg",
            "--path",
            pkg.to_str().unwrap(),
        ],
        &[],
    )
    .ok();
    let tree = run(&teammate, &["resource", "tree", "local/pkg"], &[]);
    assert!(tree.ok().contains("acme"), "{}", tree.stdout);

    let shown = run(
        &teammate,
        &["plugin", "show", "myteam.python", "-o", "json"],
        &[],
    )
    .json();
    let provenance = &shown["provenance"];
    assert_eq!(provenance["reference"], format!("{reference}:0.1.0"));
    assert_eq!(provenance["manifest_digest"], pushed["manifest_digest"]);
    assert_eq!(provenance["layer_digest"], pushed["layer_digest"]);
    assert_eq!(provenance["signer"], pushed["signed_by"]);
    assert_eq!(provenance["contract"], "0.2.0");
    let listed = run(&teammate, &["plugin", "list"], &[]);
    assert!(listed.ok().contains(&format!("{reference}:0.1.0")));
}

#[test]
fn a_plugin_installs_by_digest_and_an_export_keeps_its_provenance() {
    let Some(reg) = registry("install by digest") else {
        return;
    };
    let (publisher, key) = new_publisher();
    let reference = repo(&reg, "p");
    let pushed = push(&publisher, &example(), &reference, &["--sign", "team"]);
    let digest = pushed["manifest_digest"].as_str().unwrap();
    let home = trusting(&key, &reg.open);
    let by_digest = format!("{reference}@{digest}");
    let installed = run(&home, &["plugin", "install", &by_digest, "-o", "json"], &[]).json();
    assert_eq!(installed["plugin"]["provenance"]["reference"], by_digest);
    assert_eq!(
        installed["plugin"]["provenance"]["tag"],
        serde_json::Value::Null
    );

    // An export with the components keeps where they came from.
    let doc = home.path("registry.json");
    run(
        &home,
        &[
            "registry",
            "export",
            "--with-plugins",
            "--out",
            doc.to_str().unwrap(),
        ],
        &[],
    )
    .ok();
    let other = Env::new();
    run(&other, &["registry", "import", doc.to_str().unwrap()], &[]).ok();
    let shown = run(
        &other,
        &["plugin", "show", "myteam.python", "-o", "json"],
        &[],
    )
    .json();
    assert_eq!(shown["provenance"], installed["plugin"]["provenance"]);
}

#[test]
fn a_blob_tampered_in_the_registry_storage_is_refused_and_nothing_is_added() {
    let Some(reg) = registry("tampered blob") else {
        return;
    };
    let (publisher, key) = new_publisher();
    let reference = repo(&reg, "p");
    // A component of its own: blobs are shared by every repository of a
    // registry, and other tests push the example.
    let unique = HEALTHY_V1.replace(
        "user_addable: true\n",
        &format!("user_addable: true\ndescription: tampered {reference}\n"),
    );
    let file = packed_faulty(&publisher, "tampered", &unique);
    let pushed = push(
        &publisher,
        &file,
        &format!("{reference}:0.1.0"),
        &["--sign", "team"],
    );
    let hex = pushed["layer_digest"]
        .as_str()
        .unwrap()
        .trim_start_matches("sha256:");
    let data = reg
        .storage
        .join("docker/registry/v2/blobs/sha256")
        .join(&hex[..2])
        .join(hex)
        .join("data");
    let mut bytes = std::fs::read(&data).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0xff;
    std::fs::write(&data, &bytes).unwrap();

    let home = trusting(&key, &reg.open);
    run(
        &home,
        &["plugin", "install", &format!("{reference}:0.1.0")],
        &[],
    )
    .refused(&["changed or damaged on the way"]);
    assert!(plugin_modules(&home).is_empty());
}

#[test]
fn unsigned_wrong_key_and_wrong_prefix_are_refused_and_allow_unsigned_is_recorded() {
    let Some(reg) = registry("signature refusals") else {
        return;
    };
    let (publisher, key) = new_publisher();
    let unsigned = repo(&reg, "unsigned");
    push(&publisher, &example(), &unsigned, &[]);
    let signed = repo(&reg, "signed");
    push(&publisher, &example(), &signed, &["--sign", "team"]);

    let home = trusting(&key, &reg.open);
    run(
        &home,
        &["plugin", "install", &format!("{unsigned}:0.1.0")],
        &[],
    )
    .refused(&["is not signed", "--allow-unsigned"]);

    let (_, other_key) = new_publisher();
    let wrong_key = trusting(&other_key, &reg.open);
    run(
        &wrong_key,
        &["plugin", "install", &format!("{signed}:0.1.0")],
        &[],
    )
    .refused(&["which is not pinned here", "agents plugin key trust"]);

    let elsewhere = format!("{}/somewhere-else", reg.open);
    let wrong_prefix = trusting(&key, &elsewhere);
    run(
        &wrong_prefix,
        &["plugin", "install", &format!("{signed}:0.1.0")],
        &[],
    )
    .refused(&["pinned for", "only, not for"]);
    for env in [&home, &wrong_key, &wrong_prefix] {
        assert!(plugin_modules(env).is_empty());
    }

    let loud = run(
        &home,
        &[
            "plugin",
            "install",
            &format!("{unsigned}:0.1.0"),
            "--allow-unsigned",
        ],
        &[],
    );
    assert!(loud.ok().contains("UNSIGNED"), "{}", loud.stdout);
    assert!(
        loud.stderr.contains("WITHOUT a trusted signature"),
        "{}",
        loud.stderr
    );
    let shown = run(
        &home,
        &["plugin", "show", "myteam.python", "-o", "json"],
        &[],
    )
    .json();
    assert_eq!(shown["provenance"]["unsigned_allowed"], true);
    assert_eq!(shown["provenance"]["signer"], serde_json::Value::Null);
}

#[test]
fn a_locked_install_gets_identical_bytes_and_refuses_a_re_pushed_tag() {
    let Some(reg) = registry("locked install") else {
        return;
    };
    let (publisher, key) = new_publisher();
    let reference = repo(&reg, "faulty");
    let v1 = packed_faulty(&publisher, "v1", HEALTHY_V1);
    push(
        &publisher,
        &v1,
        &format!("{reference}:1.0.0"),
        &["--sign", "team"],
    );
    let first = trusting(&key, &reg.open);
    run(
        &first,
        &["plugin", "install", &format!("{reference}:1.0.0")],
        &[],
    )
    .ok();
    let lock = first.path("plugins.lock");
    run(
        &first,
        &["plugin", "lock", "--out", lock.to_str().unwrap()],
        &[],
    )
    .ok();

    let second = trusting(&key, &reg.open);
    run(
        &second,
        &["plugin", "install", "--locked", lock.to_str().unwrap()],
        &[],
    )
    .ok();
    let sha = |env: &Env| {
        run(env, &["plugin", "show", "test.faulty", "-o", "json"], &[]).json()["sha256"].clone()
    };
    assert_eq!(sha(&first), sha(&second));

    // The tag now points at other bytes: the lock notices, names the plugin.
    let other = packed_faulty(
        &publisher,
        "v1b",
        &HEALTHY_V1.replace(
            "user_addable: true\n",
            "user_addable: true\ndescription: other bytes\n",
        ),
    );
    push(
        &publisher,
        &other,
        &format!("{reference}:1.0.0"),
        &["--sign", "team"],
    );
    let third = trusting(&key, &reg.open);
    run(
        &third,
        &["plugin", "install", "--locked", lock.to_str().unwrap()],
        &[],
    )
    .refused(&[
        "plugin test.faulty differs from the lock file",
        "now resolves to",
    ]);
    assert!(plugin_modules(&third).is_empty());
}

#[test]
fn an_update_that_breaks_a_resource_is_refused_and_one_adding_a_field_is_accepted() {
    let Some(reg) = registry("update") else {
        return;
    };
    let (publisher, key) = new_publisher();
    let reference = repo(&reg, "faulty");
    let v1 = packed_faulty(&publisher, "v1", HEALTHY_V1);
    push(
        &publisher,
        &v1,
        &format!("{reference}:1.0.0"),
        &["--sign", "team"],
    );
    let home = trusting(&key, &reg.open);
    run(
        &home,
        &["plugin", "install", &format!("{reference}:1.0.0")],
        &[],
    )
    .ok();
    home.mkdir("loc");
    run(
        &home,
        &[
            "resource",
            "add",
            "test/healthy",
            "local/a",
            "--path",
            home.path("loc").to_str().unwrap(),
        ],
        &[],
    )
    .ok();

    let breaking = HEALTHY_V1.replace(
        "required: true}\n",
        "required: true}\n  - {name: owner, type: string, required: true}\n",
    );
    let v2 = packed_faulty(&publisher, "v2", &breaking);
    push(
        &publisher,
        &v2,
        &format!("{reference}:2.0.0"),
        &["--sign", "team"],
    );
    let before = run(&home, &["plugin", "show", "test.faulty", "-o", "json"], &[]).json();
    let dry = run(&home, &["plugin", "update", "--dry-run", "-o", "json"], &[]);
    dry.refused(&["local/a", "owner", "--force"]);
    run(&home, &["plugin", "update"], &[]).refused(&["resource local/a has no owner"]);
    let after = run(&home, &["plugin", "show", "test.faulty", "-o", "json"], &[]).json();
    assert_eq!(before["sha256"], after["sha256"], "the old component stays");

    let adding = HEALTHY_V1.replace(
        "required: true}\n",
        "required: true}\n  - {name: notes, type: string}\n",
    );
    let v3 = packed_faulty(&publisher, "v3", &adding);
    push(
        &publisher,
        &v3,
        &format!("{reference}:3.0.0"),
        &["--sign", "team"],
    );
    let dry = run(&home, &["plugin", "update", "--dry-run", "-o", "json"], &[]).json();
    assert_eq!(dry[0]["to_version"], "3.0.0");
    assert_eq!(dry[0]["updated"], false);
    assert_eq!(
        dry[0]["types"],
        serde_json::json!([{"name": "test/healthy", "change": "changed"}])
    );
    let updated = run(&home, &["plugin", "update", "-o", "json"], &[]).json();
    assert_eq!(updated[0]["updated"], true);
    let shown = run(&home, &["plugin", "show", "test.faulty", "-o", "json"], &[]).json();
    assert_eq!(
        shown["provenance"]["reference"],
        format!("{reference}:3.0.0")
    );
}

#[test]
fn a_component_of_a_contract_version_the_host_lacks_is_refused_before_anything_is_added() {
    let Some(reg) = registry("unknown contract") else {
        return;
    };
    let (publisher, key) = new_publisher();
    let reference = repo(&reg, "other-world");
    let file = wasm("other_world.wasm");
    // Published with the layout by hand: `push` itself refuses it.
    run(
        &publisher,
        &[
            "plugin",
            "push",
            file.to_str().unwrap(),
            &format!("{reference}:9.0.0"),
        ],
        &[],
    )
    .refused(&["does not export a handler of a contract this host serves"]);
    let bytes = std::fs::read(&file).unwrap();
    put_artifact(&reg.open, &reference, "9.0.0", &bytes);
    let home = trusting(&key, &reg.open);
    let out = run(
        &home,
        &[
            "plugin",
            "install",
            &format!("{reference}:9.0.0"),
            "--allow-unsigned",
        ],
        &[],
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("does not export a handler of a contract this host serves"),
        "{}",
        out.stderr
    );
    assert!(plugin_modules(&home).is_empty());
}

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

#[test]
fn an_oci_layout_directory_installs_offline() {
    let Some(reg) = registry("oci layout") else {
        return;
    };
    let Some(skopeo) = which("skopeo") else {
        assert!(
            std::env::var_os("CI").is_none(),
            "the oci-layout test needs skopeo"
        );
        common::skipped("oci layout", "skopeo is not installed");
        return;
    };
    let (publisher, _) = new_publisher();
    let path = repo(&reg, "p");
    push(&publisher, &example(), &path, &[]);
    let layout = publisher.path("offline");
    let copied = std::process::Command::new(skopeo)
        .args(["copy", "--src-tls-verify=false", "--quiet"])
        .arg(format!("docker://{path}:0.1.0"))
        .arg(format!("oci:{}:0.1.0", layout.display()))
        .output()
        .unwrap();
    assert!(
        copied.status.success(),
        "{}",
        String::from_utf8_lossy(&copied.stderr)
    );
    let home = Env::new();
    let source = format!("oci-layout:{}:0.1.0", layout.display());
    let installed = run(
        &home,
        &[
            "plugin",
            "install",
            &source,
            "--allow-unsigned",
            "-o",
            "json",
        ],
        &[],
    )
    .json();
    assert_eq!(installed["plugin"]["provenance"]["reference"], source);
    assert_eq!(
        installed["types_added"],
        serde_json::json!(["myteam/python-package"])
    );
}

/// Put `component` at `reference:tag` in the CNCF layout, through the
/// library (so a component `push` refuses can still be published).
fn put_artifact(registry: &str, repository: &str, tag: &str, component: &[u8]) {
    use resource_host::oci::{Client, Reference, RegistryAccess, artifact};
    let world = artifact::ComponentWorld {
        imports: vec![],
        exports: vec!["cleveragents:resource/handler@9.0.0".into()],
    };
    let meta = artifact::PluginMeta {
        module: "test.other-world".into(),
        version: tag.into(),
        ..Default::default()
    };
    let built = artifact::build_artifact(component, world, &meta);
    let reference = Reference::parse(&format!("{repository}:{tag}")).unwrap();
    assert!(reference.registry == registry);
    let client = Client::new(RegistryAccess::default());
    let session = client.session(&reference, true);
    session.put_blob(&built.config).unwrap();
    session.put_blob(component).unwrap();
    session
        .put_manifest(tag, &built.manifest, artifact::MANIFEST_MEDIA_TYPE)
        .unwrap();
}

fn base64(text: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(text)
}

fn which(tool: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(tool))
        .find(|p| p.is_file())
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

/// One `tools/call` of `tool` with `arguments` to `agents mcp
/// --allow-admin` on `env`'s home, by raw JSON-RPC: the call's result.
fn mcp_call(env: &Env, tool: &str, arguments: serde_json::Value) -> serde_json::Value {
    use serde_json::json;
    use std::io::{BufRead, BufReader, Write};
    let mut cmd = env.command();
    cmd.env("DOCKER_CONFIG", env.path("no-docker"))
        .args(["mcp", "--allow-admin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut server = cmd.spawn().unwrap();
    let mut stdin = server.stdin.take().unwrap();
    for line in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "plugin-install-test", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": tool, "arguments": arguments}}),
    ] {
        writeln!(stdin, "{line}").unwrap();
    }
    stdin.flush().unwrap();
    let mut reader = BufReader::new(server.stdout.take().unwrap());
    let mut answer = serde_json::Value::Null;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap() == 0 {
            break;
        }
        let message: serde_json::Value = serde_json::from_str(&line).unwrap();
        if message["id"] == 2 {
            answer = message["result"].clone();
            break;
        }
    }
    drop(stdin);
    let _ = server.wait();
    answer
}

/// An agent runtime behind `agents mcp --allow-admin` installs a signed
/// plugin (its types with it); an unsigned one is refused with the
/// reason, and `allow_unsigned` is not an argument it can give — running
/// unsigned code is a person's decision, at the CLI.
#[test]
fn mcp_installs_a_signed_plugin_and_leaves_unsigned_ones_to_a_person() {
    let Some(reg) = registry("install over MCP") else {
        return;
    };
    let (publisher, key) = new_publisher();
    let signed = repo(&reg, "signed");
    push(&publisher, &example(), &signed, &["--sign", "team"]);
    let unsigned = repo(&reg, "unsigned");
    push(&publisher, &example(), &unsigned, &[]);
    let prefix = signed.rsplit_once('/').unwrap().0;
    let env = trusting(&key, prefix);

    let installed = mcp_call(
        &env,
        "plugin_install",
        serde_json::json!({"reference": format!("{signed}:0.1.0")}),
    );
    assert_ne!(installed["isError"], true, "{installed}");
    assert_eq!(
        installed["structuredContent"]["types_added"],
        serde_json::json!(["myteam/python-package"]),
        "{installed}"
    );
    assert!(plugin_modules(&env).contains(&"myteam.python".to_owned()));

    let other = trusting(&key, prefix);
    let refused = mcp_call(
        &other,
        "plugin_install",
        serde_json::json!({"reference": format!("{unsigned}:0.1.0")}),
    );
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(refused.to_string().contains("not signed"), "{refused}");
    let refused = mcp_call(
        &other,
        "plugin_install",
        serde_json::json!({"reference": format!("{unsigned}:0.1.0"), "allow_unsigned": true}),
    );
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(refused.to_string().contains("allow_unsigned"), "{refused}");
    assert!(!plugin_modules(&other).contains(&"myteam.python".to_owned()));
}
