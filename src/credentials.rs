//! Credentials in URLs: the one home of which part of a URL is a secret
//! the registry must never keep — so never show, export or share with a
//! team registry's readers.
//!
//! A remote configured as `https://alice:TOKEN@host/repo.git` works for
//! git, but once stored as a property every `resource show`, every export
//! and every teammate on a shared registry would read the token. So the
//! user information of a URL is removed, keeping the scheme, host, port
//! and path:
//!
//! * `http`, `https` (and `git+https`, …): the whole user information
//!   goes, a user name alone too — a token is often given as the user
//!   (`https://ghp_…@github.com/…`, `https://oauth2:…@gitlab.com/…`).
//! * any other scheme (`ssh://`, `ftp://`, …): the password goes, the user
//!   stays (`ssh://git:pw@host/x` → `ssh://git@host/x`): an ssh user names
//!   an account, not a secret.
//! * git's scp-like form (`user@host:path`) has no password and stays as
//!   it is; a token written before the host (`user:pw@host:path`), which
//!   git itself would not read as a password, is removed all the same.
//!
//! Every URL inside a text is treated (a property may quote one in a
//! sentence), up to the first character no authority holds (`/`, `?`,
//! `#`, a blank, a quote, `<`, `>`).

use std::borrow::Cow;

/// `text` with the credentials of every URL in it removed (see the module
/// doc); borrowed when there were none.
pub fn without_credentials(text: &str) -> Cow<'_, str> {
    rewrite(text, false)
}

/// [`without_credentials`], or with `mask` each removed part shown as
/// `***` instead.
fn rewrite(text: &str, mask: bool) -> Cow<'_, str> {
    if !text.contains('@') {
        return Cow::Borrowed(text);
    }
    let mut out = String::new();
    let mut copied = 0;
    let mut changed = false;
    let mut search = 0;
    while let Some(found) = text[search..].find("://") {
        let at = search + found;
        let scheme_start = text[..at]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
            .map_or(0, |i| i + 1);
        let scheme = &text[scheme_start..at];
        let authority_start = at + 3;
        let authority_len = text[authority_start..]
            .find(ends_authority)
            .unwrap_or(text.len() - authority_start);
        let authority = &text[authority_start..authority_start + authority_len];
        search = authority_start + authority_len;
        let starts_with_letter = scheme.starts_with(|c: char| c.is_ascii_alphabetic());
        let Some((userinfo, _host)) = authority.rsplit_once('@') else {
            continue;
        };
        if !starts_with_letter {
            continue;
        }
        let kept = if scheme.to_ascii_lowercase().ends_with("http")
            || scheme.to_ascii_lowercase().ends_with("https")
        {
            ""
        } else {
            match userinfo.split_once(':') {
                Some((user, _password)) => user,
                None => continue,
            }
        };
        out.push_str(&text[copied..authority_start]);
        match (kept.is_empty(), mask) {
            (true, false) => {}
            (true, true) => out.push_str("***@"),
            (false, false) => {
                out.push_str(kept);
                out.push('@');
            }
            (false, true) => {
                out.push_str(kept);
                out.push_str(":***@");
            }
        }
        copied = authority_start + userinfo.len() + 1;
        changed = true;
    }
    let text = if changed {
        out.push_str(&text[copied..]);
        Cow::Owned(out)
    } else {
        Cow::Borrowed(text)
    };
    match scp_like_without_password(&text) {
        Some(stripped) if mask => Cow::Owned(format!("***@{stripped}")),
        Some(stripped) => Cow::Owned(stripped),
        None => text,
    }
}

/// Remove the credentials from every string in `properties` (nested
/// values included); answers how many strings changed.
pub fn scrub_properties(properties: &mut crate::model::PropertyMap) -> usize {
    properties.values_mut().map(scrub_value).sum()
}

fn scrub_value(value: &mut serde_json::Value) -> usize {
    match value {
        serde_json::Value::String(text) => match without_credentials(text) {
            Cow::Borrowed(_) => 0,
            Cow::Owned(clean) => {
                *text = clean;
                1
            }
        },
        serde_json::Value::Array(items) => items.iter_mut().map(scrub_value).sum(),
        serde_json::Value::Object(map) => map.values_mut().map(scrub_value).sum(),
        _ => 0,
    }
}

/// Does `text` hold a URL credential [`without_credentials`] would remove?
pub fn holds_credentials(text: &str) -> bool {
    matches!(without_credentials(text), Cow::Owned(_))
}

/// `text` shown with its credentials masked (`https://***@host/…`), for a
/// refusal that must say which value it refused without repeating it.
pub fn masked(text: &str) -> String {
    rewrite(text, true).into_owned()
}

fn ends_authority(c: char) -> bool {
    matches!(c, '/' | '?' | '#' | '"' | '\'' | '<' | '>' | '`') || c.is_whitespace()
}

/// A whole value in git's scp-like form with a password before the host
/// (`user:pw@host:path`), without `user:pw@`.
fn scp_like_without_password(text: &str) -> Option<String> {
    if text.contains("://") || text.chars().any(char::is_whitespace) {
        return None;
    }
    let (userinfo, rest) = text.split_once('@')?;
    let (host, _path) = rest.split_once(':')?;
    let plausible = userinfo.contains(':')
        && !userinfo.contains('/')
        && !host.is_empty()
        && !host.contains('/');
    plausible.then(|| rest.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_leave_urls_and_scheme_host_and_path_stay() {
        for (given, kept) in [
            (
                "https://alice:TOKEN@git.example.com/team/repo.git",
                "https://git.example.com/team/repo.git",
            ),
            ("https://ghp_TOKEN@github.com/o/r", "https://github.com/o/r"),
            ("HTTP://u:p@h:8080/x?y=1", "HTTP://h:8080/x?y=1"),
            ("git+https://u:p@h/x", "git+https://h/x"),
            ("ssh://git:pw@host:22/x.git", "ssh://git@host:22/x.git"),
            ("ssh://git@host/x.git", "ssh://git@host/x.git"),
            ("git@github.com:o/r.git", "git@github.com:o/r.git"),
            ("alice:TOKEN@github.com:o/r.git", "github.com:o/r.git"),
            (
                "remote origin https://a:SECRET@h/x and ftp://b:PW@f/y",
                "remote origin https://h/x and ftp://b@f/y",
            ),
            ("https://h/path@v1", "https://h/path@v1"),
            ("/srv/repo.git", "/srv/repo.git"),
            ("mail me: a@b.c", "mail me: a@b.c"),
        ] {
            assert_eq!(without_credentials(given), kept, "{given}");
        }
        assert!(holds_credentials("https://a:b@h/x"));
        assert!(!holds_credentials("https://h/x"));
        assert_eq!(masked("https://a:SECRET@h/x"), "https://***@h/x");
        assert_eq!(masked("ssh://git:pw@h/x"), "ssh://git:***@h/x");
    }
}
