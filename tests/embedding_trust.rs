//! Trust from the library, as an agent runtime embeds it: activation
//! (`enter_environment`) refuses an untrusted configuration with a typed
//! error; trust is a separate call that takes a `Consent`, made only
//! from the summary the person saw; a change, another person, or no
//! person at all means no trust.

use crate::common::stand_ins;
use resource_host::home::Home;
use resource_host::registry::EnvironmentsError;
use resource_host::registry::{
    Consent, ContainerTools, NewResource, Options, Person, Registry, RegistryError, ToolRequest,
    TrustState,
};
use std::path::Path;

fn open(home: &Path, bin: &Path, person: Option<Person>) -> Registry {
    let system = std::env::var_os("PATH").unwrap_or_default();
    let mut search = bin.as_os_str().to_owned();
    search.push(":");
    search.push(system);
    let options = Options {
        container_tools: ContainerTools {
            search_path: Some(search),
            env: Vec::new(),
        },
        person,
        ..Options::default()
    };
    Registry::open_with(&Home::new(home), options).unwrap()
}

fn alice() -> Person {
    Person {
        user: "alice".into(),
        uid: 1000,
    }
}

#[test]
fn an_embedder_activates_only_what_its_person_trusted() {
    let mut env = crate::common::Env::new();
    let bin = stand_ins(&mut env, &["docker"]);
    let dir = env.write(
        "ws/.devcontainer/devcontainer.json",
        r#"{"image": "debian:12", "runArgs": ["--privileged"]}"#,
    );
    let ws = dir.parent().unwrap().parent().unwrap().to_path_buf();
    let home = env.path("home");
    let mut registry = open(&home, &bin, Some(alice()));
    registry
        .register_resource(
            NewResource {
                type_name: "fs-directory".into(),
                name: Some("local/ws".into()),
                args: vec![("path".into(), ws.display().to_string())],
                ..NewResource::default()
            },
            Default::default(),
        )
        .unwrap();
    let key = "local/ws".parse().unwrap();
    let dc = "local/ws-devcontainer".parse().unwrap();

    let err = registry
        .enter_environment(&key, None, &ToolRequest::None)
        .unwrap_err();
    let RegistryError::Environments(EnvironmentsError::NotTrusted {
        resource, state, ..
    }) = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!(resource, "local/ws-devcontainer");
    assert_eq!(**state, TrustState::Untrusted);
    assert!(err.to_string().contains("agents resource trust"), "{err}");
    assert_eq!(crate::common::tool_log(&bin), "", "no tool ran");
    // Routing answers, but a tool that requires a container is refused it.
    let route = registry
        .resolve_environment(&key, None, &ToolRequest::None)
        .unwrap();
    assert!(!route.trust.unwrap().trusted);
    let err = registry
        .resolve_environment(&key, None, &ToolRequest::RequiredContainer)
        .unwrap_err();
    assert!(
        matches!(&err, RegistryError::Environments(EnvironmentsError::NotTrusted { operation, .. })
            if operation.contains("requires a container")),
        "{err:?}"
    );

    // The person reads the summary and agrees to exactly it.
    let summary = registry.trust_summary(&dc).unwrap();
    let host: Vec<_> = summary.devcontainers[0].summary.reaching_host().collect();
    assert!(host[0].text.contains("privileged"), "{host:?}");
    let records = registry.trust(Consent::to(summary)).unwrap();
    assert_eq!(records[0].by, "alice (uid 1000)");
    let (route, started) = registry
        .enter_environment(&key, None, &ToolRequest::None)
        .unwrap();
    assert!(route.trust.unwrap().trusted);
    assert_eq!(started.unwrap().container_id.as_deref(), Some("0123abcd"));

    // A summary shown before a change cannot be agreed to after it.
    let stale = registry.trust_summary(&dc).unwrap();
    std::fs::write(&dir, r#"{"image": "debian:13"}"#).unwrap();
    let err = registry.trust(Consent::to(stale)).unwrap_err();
    assert!(
        err.to_string().contains("changed since it was shown"),
        "{err}"
    );
    let err = registry
        .enter_environment(&key, None, &ToolRequest::None)
        .unwrap_err();
    let RegistryError::Environments(EnvironmentsError::NotTrusted { state, .. }) = &err else {
        panic!("{err:?}")
    };
    let TrustState::Changed { changed, .. } = &**state else {
        panic!("{state:?}")
    };
    assert_eq!(
        changed,
        &[".devcontainer/devcontainer.json (configuration) changed"]
    );
    drop(registry);

    // Another person's decision is not yours; no person, no trust.
    let bob = Person {
        user: "bob".into(),
        uid: 1001,
    };
    let registry = open(&home, &bin, Some(bob));
    let summary = registry.trust_summary(&dc).unwrap();
    assert_eq!(summary.devcontainers[0].trust, TrustState::Untrusted);
    drop(registry);
    let mut registry = open(&home, &bin, None);
    let err = registry.start_container(&dc).unwrap_err();
    assert!(err.to_string().contains("no person"), "{err}");
    let summary = registry.trust_summary(&dc).unwrap();
    assert!(registry.trust(Consent::to(summary)).is_err());
}
