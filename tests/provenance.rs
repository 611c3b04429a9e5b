//! Provenance decides, not the DAG: an agent — here a
//! library registry opened with the `mcp` face, as `agents mcp` opens one
//! — cannot borrow a person's consent. Its look-alike name is refused; a
//! devcontainer it links below a person's resource is listed apart by the
//! person's `trust` and not trusted unless named, and routing does not
//! choose it; registering `/` and re-parenting a devcontainer below it
//! moves no "inside the repository" check. Who registered and linked what
//! is recorded, shown, and carried through export/import.

use crate::common::{Env, commit_all, stand_ins, tool_log};
use resource_host::home::Home;
use resource_host::model::{Actor, Face};
use resource_host::registry::{NewResource, Options, Registry, RegistryError};
use std::path::Path;

/// The registry `env`'s CLI uses (its home's, or the suite's
/// PostgreSQL schema), opened as an agent behind `agents mcp`.
fn as_agent(env: &Env) -> Registry {
    let options = Options {
        actor: Actor::new(Face::Mcp, "evil-client/6.6.6"),
        registry: env
            .postgres
            .as_ref()
            .map(|schema| resource_host::RegistryLocation::parse(&schema.url).unwrap()),
        ..Options::default()
    };
    Registry::open_with(&Home::new(env.home.path()), options).unwrap()
}

fn dir(name: &str, path: &Path) -> NewResource {
    NewResource {
        type_name: "fs-directory".into(),
        name: Some(name.into()),
        args: vec![("path".into(), path.display().to_string())],
        ..NewResource::default()
    }
}

/// The person's checkout `local/api` with a benign devcontainer, and the
/// agent's directory `evil/` with a privileged one.
fn two_devcontainers(env: &Env) -> std::path::PathBuf {
    let repo = env.mkdir("api");
    env.write(
        "api/.devcontainer/devcontainer.json",
        r#"{"image": "debian:12"}"#,
    );
    commit_all(&repo);
    env.add("git-checkout", "local/api", &repo, &[]).ok();
    env.write(
        "evil/.devcontainer/devcontainer.json",
        r#"{"image": "debian:12", "runArgs": ["--privileged", "-v", "/:/host"]}"#,
    )
}

#[test]
fn a_look_alike_name_is_refused_to_the_agent_and_to_the_person() {
    let env = Env::new();
    two_devcontainers(&env);
    let mut agent = as_agent(&env);
    let err = agent
        .register_resource(
            dir("local/\u{0430}pi", &env.path("evil")),
            Default::default(),
        )
        .unwrap_err();
    assert!(
        matches!(&err, RegistryError::Resources(e) if e.to_string().contains("looks like the existing \"local/api\"")),
        "{err}"
    );
    for name in ["local/\u{3164}", "local/api\u{FFA0}repo"] {
        assert!(
            agent
                .register_resource(dir(name, &env.path("evil")), Default::default())
                .is_err(),
            "{name}"
        );
    }
    // Through the CLI too.
    env.add("fs-directory", "local/\u{0430}pi", &env.path("evil"), &[])
        .refused(&["looks like the existing \"local/api\""]);
    env.add("fs-directory", "local/\u{3164}", &env.path("evil"), &[])
        .usage(&["U+3164", "shows as nothing"]);
}

#[test]
fn a_devcontainer_an_agent_links_below_a_persons_resource_is_not_trusted_with_it() {
    let mut env = Env::new();
    let bin = stand_ins(&mut env, &["docker"]);
    two_devcontainers(&env);
    let mut agent = as_agent(&env);
    agent
        .register_resource(dir("local/evil", &env.path("evil")), Default::default())
        .unwrap();
    let api = "local/api".parse().unwrap();
    let theirs = "local/evil-devcontainer".parse().unwrap();
    let ours = "local/api-devcontainer".parse().unwrap();
    agent.link_child(&api, &theirs).unwrap();
    agent.unlink_child(&api, &ours).unwrap();
    drop(agent);

    // The person trusts "everything below local/api": the agent's is apart.
    let shown = env.run(&["resource", "trust", "local/api", "--yes"]);
    shown.refused(&[
        "cannot trust local/api",
        "local/evil-devcontainer was linked below local/api by mcp:evil-client/6.6.6",
        "agents resource trust NAME",
    ]);
    assert_eq!(env.count("SELECT count(*) FROM devcontainer_trust"), 0);
    // With the person's own back below it, only theirs is trusted.
    env.run(&[
        "resource",
        "link-child",
        "local/api",
        "local/api-devcontainer",
    ])
    .ok();
    let out = env
        .run(&["resource", "trust", "local/api", "--yes", "-o", "json"])
        .json();
    let trusted: Vec<&str> = out["trusted"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(trusted, ["local/api-devcontainer"]);
    let apart = &out["summary"]["brought_by_agents"][0];
    assert_eq!(apart["name"], "local/evil-devcontainer");
    let text = env.run(&["resource", "trust", "local/api"]).stdout;
    assert!(
        text.contains("brought by an agent, NOT part of this decision")
            && text.contains("! local/evil-devcontainer"),
        "{text}"
    );

    // Routing below the person's checkout does not choose the agent's.
    env.run(&[
        "resource",
        "unlink-child",
        "local/api",
        "local/api-devcontainer",
    ])
    .ok();
    let route = env
        .run(&["env", "resolve", "local/api", "-o", "json"])
        .json();
    assert_ne!(
        route["environment"]["name"], "local/evil-devcontainer",
        "{route}"
    );
    env.run(&["env", "resolve", "local/api", "--activate"]);
    assert_eq!(tool_log(&bin), "", "the agent's devcontainer was started");

    // Named explicitly, it is the person's decision (and shows who linked it).
    let named = env.run(&["resource", "trust", "local/evil-devcontainer", "--yes"]);
    assert!(named.ok().contains("! privileged"), "{}", named.stdout);
}

#[test]
fn registering_the_root_and_reparenting_moves_no_repository_boundary() {
    let mut env = Env::new();
    let bin = stand_ins(&mut env, &["docker"]);
    let repo = env.mkdir("evil-repo");
    env.write(
        "evil-repo/.devcontainer/devcontainer.json",
        r#"{"build": {"dockerfile": "Dockerfile", "context": "../.."}}"#,
    );
    env.write("evil-repo/.devcontainer/Dockerfile", "FROM debian\n");
    commit_all(&repo);
    let mut agent = as_agent(&env);
    agent
        .register_resource(dir("local/evil", &repo), Default::default())
        .unwrap();
    agent
        .register_resource(dir("local/root", Path::new("/")), Default::default())
        .ok();
    agent
        .link_child(
            &"local/root".parse().unwrap(),
            &"local/evil-devcontainer".parse().unwrap(),
        )
        .ok();
    drop(agent);
    // The repository is the git work tree holding the configuration: the
    // context two folders up is outside it, whoever registered `/`.
    env.run(&["resource", "trust", "local/evil-devcontainer", "--yes"])
        .refused(&["build.context", "outside the repository"]);
    env.run(&["resource", "start", "local/evil-devcontainer"])
        .refused(&["outside the repository"]);
    assert_eq!(tool_log(&bin), "");
}

#[test]
fn who_registered_and_linked_what_is_recorded_shown_and_carried_through_export() {
    let env = Env::new();
    two_devcontainers(&env);
    let mut agent = as_agent(&env);
    agent
        .register_resource(dir("local/evil", &env.path("evil")), Default::default())
        .unwrap();
    agent
        .link_child(
            &"local/api".parse().unwrap(),
            &"local/evil".parse().unwrap(),
        )
        .unwrap();
    drop(agent);
    let show = |name: &str| env.run(&["resource", "show", name, "-o", "json"]).json();
    assert_eq!(show("local/evil")["registered_by"]["face"], "mcp");
    assert_eq!(
        show("local/evil")["registered_by"]["name"],
        "evil-client/6.6.6"
    );
    let person = show("local/api")["registered_by"].clone();
    assert_eq!(person["face"], "cli", "{person}");
    // Discovered below a person's registration: recorded as that run's.
    assert_eq!(
        show("local/api-devcontainer")["registered_by"]["face"],
        "cli"
    );
    let text = env.run(&["resource", "show", "local/evil"]).stdout;
    assert!(
        text.contains("registered_by") && text.contains("mcp:evil-client/6.6.6"),
        "{text}"
    );

    let out = env.path("doc.json");
    env.run(&["registry", "export", "--out", out.to_str().unwrap()])
        .ok();
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let link = doc["links"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["auto_discovered"] == false)
        .unwrap();
    assert_eq!(link["linked_by"]["face"], "mcp", "{link}");

    // Imported by a person, the document's provenance is kept; imported by
    // an agent, every row and link is the agent's whatever it claims.
    let fresh = Env::new();
    fresh
        .run(&["registry", "import", out.to_str().unwrap()])
        .ok();
    let kept = fresh
        .run(&["resource", "show", "local/api", "-o", "json"])
        .json();
    assert_eq!(kept["registered_by"]["face"], "cli");
    let laundered = Env::new();
    let mut agent = as_agent(&laundered);
    let text = std::fs::read_to_string(&out).unwrap();
    let document = resource_host::registry::document::RegistryDocument::parse(&text).unwrap();
    agent
        .import_document(&document, Default::default())
        .unwrap();
    drop(agent);
    let claimed = laundered
        .run(&["resource", "show", "local/api", "-o", "json"])
        .json();
    assert_eq!(claimed["registered_by"]["face"], "mcp", "{claimed}");
}
