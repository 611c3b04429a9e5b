//! What an install refuses before anything is added: bytes changed in
//! the registry's storage, a signature missing, by a key not pinned or
//! pinned for another prefix (and `--allow-unsigned`, recorded), a
//! component of a contract version the host lacks.

use super::{
    HEALTHY_V1, example, new_publisher, packed_faulty, plugin_modules, push, registry, repo, run,
    trusting,
};
use crate::common::wasm;

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
