//! A remote repository: the one home of which URLs the host asks, and of
//! how it asks one what it holds — `git ls-remote --symref`, and nothing
//! else (no clone, no fetch: a remote's objects are not here).
//!
//! A `git` resource registered with `--url` and no `--path` is a remote;
//! its handler's git questions are then about that URL. The host answers
//! `repository`, `head` and `references` from one listing (memoised per
//! operation like the local answers), `remotes`, `stashes` and
//! `submodules` as empty, and every question about objects, files or
//! status as not-a-repository (`only its refs are known`).
//!
//! **What is asked, and how.** Only URLs of the transports git lists for
//! people — `https://`, `http://`, `ssh://`, `git://`, `file://` and
//! scp-like `[user@]host:path` — are asked; anything else (`ext::`, `fd::`,
//! a leading `-`, spaces or control characters) is refused before git
//! runs. git runs with the hermetic environment of every host git (no
//! user or system configuration, so no credential helper, no
//! `core.sshCommand`, no URL rewriting), from `/`, with no terminal
//! prompt, ssh in batch mode (a key that needs a passphrase, or a host key
//! not known, is a refusal, not a question), `GIT_ALLOW_PROTOCOL` naming
//! those transports only (so a redirect or submodule URL cannot reach
//! `ext::`), and under the call's deadline (the process is killed when it
//! passes). A URL carrying a password (`https://user:token@host/…`) is
//! refused: no secret is sent, or kept in a property.

use super::answers::{Reference, parse_refs};
use super::process::git_output_with_env;
use super::{GitError, classify};
use crate::git_env::{GitTools, Neutral};
use std::path::Path;

/// The transports a remote is asked through.
const PROTOCOLS: &str = "https:http:ssh:git:file";

/// Refuse `url` unless it names a repository through one of the
/// transports the host asks; say why.
pub(crate) fn check_url(url: &str) -> Result<(), String> {
    if url.is_empty() {
        return Err("the URL is empty".to_owned());
    }
    if url.starts_with('-') {
        return Err("a URL may not start with '-' (git would read it as an option)".to_owned());
    }
    if url.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err("a URL may not hold spaces or control characters".to_owned());
    }
    if let Some((scheme, rest)) = url.split_once("://") {
        let authority = rest.split('/').next().unwrap_or_default();
        if authority
            .rsplit_once('@')
            .is_some_and(|(userinfo, _)| userinfo.contains(':'))
        {
            return Err(
                "a URL with a password in it is never asked or kept: give one without \
                 (https://host/…, or ssh with a key)"
                    .to_owned(),
            );
        }
        return match scheme {
            "https" | "http" | "ssh" | "git" | "file" if !rest.is_empty() => Ok(()),
            "https" | "http" | "ssh" | "git" | "file" => Err("the URL names no repository".into()),
            other => Err(format!(
                "transport {other}:// is not one the host asks (https, http, ssh, git, file)"
            )),
        };
    }
    if url.contains("::") {
        return Err(
            "transport helpers (ext::, fd::, …) are never run: give an https, http, ssh, git \
             or file URL"
                .to_owned(),
        );
    }
    // scp-like: `[user@]host:path`, the host part free of '/'.
    match url.split_once(':') {
        Some((host, path)) if !host.is_empty() && !host.contains('/') && !path.is_empty() => Ok(()),
        _ => Err(
            "not a URL git can ask: give https://…, http://…, ssh://…, git://…, file://… or \
             host:path"
                .to_owned(),
        ),
    }
}

/// What a remote holds: HEAD's branch (when it says) and commit, and its
/// refs with their peeled targets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Listing {
    pub head_branch: Option<String>,
    pub head_commit: Option<String>,
    pub refs: Vec<Reference>,
}

/// `git ls-remote --symref -- URL`'s stdout, raw (for the memo).
pub(super) async fn ls_remote(git: &GitTools, url: &str) -> Result<String, GitError> {
    check_url(url).map_err(GitError::Failed)?;
    let env = [
        ("GIT_ALLOW_PROTOCOL", PROTOCOLS),
        (
            "GIT_SSH_COMMAND",
            "ssh -o BatchMode=yes -o StrictHostKeyChecking=yes",
        ),
        ("GIT_ASKPASS", "/bin/false"),
        ("SSH_ASKPASS", "/bin/false"),
    ];
    let out = git_output_with_env(
        git,
        Path::new("/"),
        &["ls-remote", "--symref", "--", url],
        None,
        &Neutral::fixed(),
        &env,
    )
    .await?;
    if out.success {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(classify(format!("git ls-remote {url}: {}", out.stderr)))
    }
}

/// Read `ls-remote --symref`'s lines (`ref: refs/heads/main\tHEAD`,
/// `<id>\tHEAD`, `<id>\t<ref>`, `<id>\t<tag>^{}`).
pub(crate) fn parse_listing(out: &str) -> Listing {
    let mut head_branch = None;
    let mut head_commit = None;
    let mut rows: Vec<(String, String)> = Vec::new();
    let mut peeled: std::collections::HashMap<String, String> = Default::default();
    for line in out.lines() {
        let Some((left, name)) = line.split_once('\t') else {
            continue;
        };
        if let Some(target) = left.strip_prefix("ref: ") {
            if name == "HEAD" {
                head_branch = target.strip_prefix("refs/heads/").map(str::to_owned);
            }
            continue;
        }
        if !left.bytes().all(|b| b.is_ascii_hexdigit()) {
            continue;
        }
        if name == "HEAD" {
            head_commit = Some(left.to_owned());
        } else if let Some(tag) = name.strip_suffix("^{}") {
            peeled.insert(tag.to_owned(), left.to_owned());
        } else if name.starts_with("refs/") {
            rows.push((name.to_owned(), left.to_owned()));
        }
    }
    // In for-each-ref's shape, so one reader makes the references.
    let text: String = rows
        .iter()
        .map(|(name, id)| {
            let peel = peeled.get(name).map(String::as_str).unwrap_or("");
            format!("{name}\0{id}\0{peel}\0\n")
        })
        .collect();
    Listing {
        head_branch,
        head_commit,
        refs: parse_refs(&text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plugin::git::answers::RefKind;

    #[test]
    fn only_urls_of_the_usual_transports_are_asked() {
        for ok in [
            "https://example.com/a.git",
            "http://example.com/a",
            "ssh://git@example.com/a.git",
            "git://example.com/a",
            "file:///srv/a.git",
            "git@example.com:team/a.git",
        ] {
            assert_eq!(check_url(ok), Ok(()), "{ok}");
        }
        for bad in [
            "",
            "-uhello",
            "--upload-pack=touch /tmp/x",
            "ext::sh -c touch% /tmp/x",
            "fd::3",
            "ftp://example.com/a",
            "https://",
            "https://example.com/a b",
            "relative/path",
            "/just/a/path",
            "https://alice:TOKEN@example.com/a.git",
        ] {
            assert!(check_url(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn a_listing_gives_head_and_the_refs_with_peeled_tags() {
        let out = "ref: refs/heads/main\tHEAD\n\
                   1111111111111111111111111111111111111111\tHEAD\n\
                   1111111111111111111111111111111111111111\trefs/heads/main\n\
                   2222222222222222222222222222222222222222\trefs/heads/feature/x\n\
                   3333333333333333333333333333333333333333\trefs/tags/v1\n\
                   1111111111111111111111111111111111111111\trefs/tags/v1^{}\n";
        let listing = parse_listing(out);
        assert_eq!(listing.head_branch.as_deref(), Some("main"));
        assert_eq!(
            listing.head_commit.as_deref(),
            Some("1111111111111111111111111111111111111111")
        );
        assert_eq!(listing.refs.len(), 3);
        let tag = listing
            .refs
            .iter()
            .find(|r| r.kind == RefKind::Tag)
            .unwrap();
        assert_eq!(tag.short_name, "v1");
        assert_eq!(
            tag.peeled.as_deref(),
            Some("1111111111111111111111111111111111111111")
        );
        let feature = &listing.refs[1];
        assert_eq!(
            (feature.kind, feature.short_name.as_str()),
            (RefKind::Branch, "feature/x")
        );
    }
}
