//! A URL's credentials never reach the registry: a remote configured with
//! a token is stored, shown and exported without it (scheme, host and path
//! kept), a text argument holding one is refused, an imported document's
//! are removed, and rows an earlier binary stored are scrubbed once.

use crate::common::{Env, git, git_repo};

const TOKEN: &str = "S3cretT0ken";

/// A checkout whose remotes carry credentials.
fn repo_with_secret_remotes(env: &Env, rel: &str) -> std::path::PathBuf {
    let repo = env.path(rel);
    git_repo(&repo);
    let fetch = format!("https://alice:{TOKEN}@git.example.com/team/repo.git");
    git(&repo, &["remote", "add", "origin", &fetch]);
    let push = format!("ssh://git:{TOKEN}@git.example.com/team/repo.git");
    git(&repo, &["remote", "set-url", "--push", "origin", &push]);
    repo
}

/// Every resource's stored properties, as text.
fn stored(env: &Env) -> String {
    env.strings("SELECT properties_json FROM resources")
        .join("\n")
}

/// Every resource's stored properties, and everything a person or
/// program reads.
fn everything(env: &Env) -> String {
    let mut all = stored(env);
    for args in [
        vec!["resource", "list", "-o", "json"],
        vec!["registry", "export"],
        vec!["resource", "show", "local/repo/git/remote/origin"],
        vec![
            "resource",
            "show",
            "local/repo/git/remote/origin",
            "-o",
            "json",
        ],
        vec!["resource", "inspect", "local/repo/git/remote/origin"],
    ] {
        all.push_str(env.run(&args).ok());
    }
    all
}

#[test]
fn a_remotes_credentials_are_never_stored_shown_or_exported() {
    let env = Env::new();
    // Two checkouts of one upstream: an identity joins their remotes.
    for (rel, name) in [("repo", "local/repo"), ("clone", "local/clone")] {
        let repo = repo_with_secret_remotes(&env, rel);
        env.add("git-checkout", name, &repo, &[]).ok();
    }
    let shown = env
        .run(&[
            "resource",
            "show",
            "local/repo/git/remote/origin",
            "-o",
            "json",
        ])
        .json();
    assert_eq!(
        shown["properties"]["url"], "https://git.example.com/team/repo.git",
        "{shown}"
    );
    assert_eq!(
        shown["properties"]["push-url"], "ssh://git@git.example.com/team/repo.git",
        "{shown}"
    );
    let all = everything(&env);
    assert!(!all.contains(TOKEN), "a credential leaked:\n{all}");
    // The identity joining remotes is keyed by the URL without it.
    let identities =
        env.strings("SELECT properties_json FROM resources WHERE type_name = 'remote'");
    assert!(
        identities
            .iter()
            .any(|p| p.contains("https://git.example.com/team/repo.git")),
        "{identities:?}"
    );
}

#[test]
fn a_text_argument_holding_a_credential_is_refused_with_it_masked() {
    let env = Env::new();
    let url = format!("https://alice:{TOKEN}@git.example.com/r.git");
    let run = env.run(&["resource", "add", "git", "remote/r", "--url", &url]);
    let stderr = run.refused(&["--url https://***@git.example.com/r.git holds a credential"]);
    assert!(!stderr.contains(TOKEN), "{stderr}");
    assert!(!stored(&env).contains(TOKEN));
}

#[test]
fn credentials_an_earlier_binary_stored_are_removed_once_at_open() {
    let env = Env::new();
    let repo = env.path("repo");
    git_repo(&repo);
    git(
        &repo,
        &[
            "remote",
            "add",
            "origin",
            "https://git.example.com/team/repo.git",
        ],
    );
    env.add("git-checkout", "local/repo", &repo, &[]).ok();
    // What an earlier binary left: the token in the rows, and no record
    // that they were scrubbed.
    env.sql(&format!(
        "UPDATE resources SET properties_json = replace(properties_json, 'https://git.example.com', \
         'https://alice:{TOKEN}@git.example.com'); \
         DELETE FROM registry_meta WHERE key = 'credentials_scrubbed'"
    ));
    assert!(stored(&env).contains(TOKEN));
    let run = env.run(&["resource", "list"]);
    run.ok();
    assert!(
        run.stderr
            .contains("removed the credentials (a URL's user information)"),
        "{}",
        run.stderr
    );
    assert!(!stored(&env).contains(TOKEN));
    assert_eq!(env.run(&["resource", "list"]).stderr, "", "done once");
    assert_eq!(
        env.strings("SELECT key FROM registry_meta WHERE key = 'credentials_scrubbed'")
            .len(),
        1
    );
}

#[test]
fn an_imported_documents_credentials_are_removed_and_reported() {
    let from = Env::new();
    let repo = from.path("repo");
    git_repo(&repo);
    git(
        &repo,
        &[
            "remote",
            "add",
            "origin",
            "https://git.example.com/team/repo.git",
        ],
    );
    from.add("git-checkout", "local/repo", &repo, &[]).ok();
    let doc = from.run(&["registry", "export"]).ok().replace(
        "https://git.example.com",
        &format!("https://alice:{TOKEN}@git.example.com"),
    );
    assert!(doc.contains(TOKEN));
    let to = Env::new();
    let file = to.write("doc.json", &doc);
    let run = to.run(&["registry", "import", file.to_str().unwrap()]);
    assert!(
        run.ok()
            .contains("held a URL with credentials; they were imported without them"),
        "{}",
        run.stdout
    );
    assert!(!stored(&to).contains(TOKEN));
}
