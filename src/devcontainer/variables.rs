//! Variables in `devcontainer.json`: the one home of how the host
//! replaces `${…}` exactly as the Dev Containers CLI does before it reads a
//! path, runs `initializeCommand` or starts a container — so that what a
//! person is shown and what the digest covers is the configuration *as it
//! will be run*, not its literal text (`"context": "${localEnv:HOME}"` is
//! the home, not a folder of that name in the repository).
//!
//! The rules, as the CLI 0.89 applies them (`substitute` and
//! `replaceWithContext` in its `src/spec-common/variableSubstitution.ts`):
//!
//! * every **value** of the configuration (strings inside objects and
//!   arrays, at any depth; never a key) is scanned for `${…}` with the
//!   regular expression `/\$\{(.*?)\}/g`: the shortest text up to the first
//!   `}`, on one line (a line terminator inside ends the attempt, and the
//!   scan goes on one character later);
//! * the text inside is split on `:`: the first part names the variable,
//!   the rest are its arguments;
//! * `localEnv` and `env`: the CLI's own environment variable named by the
//!   first argument, else the second argument (the default), else empty; no
//!   argument at all is an error (the CLI refuses the configuration);
//! * `localWorkspaceFolder` and `localWorkspaceFolderBasename`: the
//!   workspace folder the CLI was given, its last name;
//! * `containerWorkspaceFolder` and `containerWorkspaceFolderBasename`: the
//!   folder inside the container (itself substituted first);
//! * `devcontainerId`: in a second pass over the result, the hash of the id
//!   labels ([`devcontainer_id`]);
//! * anything else (`${containerEnv:…}`, resolved later inside the
//!   container, or an unknown name) is left as written.
//!
//! The environment is the one the host hands the CLI (`PATH` and the
//! variables of [`super::ENGINE_ENV_VARS`] that the caller passes on), so
//! the host knows every value the CLI will see.

use std::ffi::OsString;

use serde_json::Value;
use sha2::Digest;

/// What the variables of one configuration stand for.
#[derive(Debug, Clone)]
pub struct Context {
    /// `${localWorkspaceFolder}`: the workspace folder the CLI is given.
    pub local_workspace: String,
    /// `${containerWorkspaceFolder}` before its own substitution.
    pub container_workspace: String,
    /// The CLI's environment, as the host hands it in.
    pub env: Vec<(OsString, OsString)>,
    /// `${devcontainerId}`.
    pub devcontainer_id: String,
}

/// Why a configuration cannot be resolved as the CLI would.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unresolvable(pub String);

impl Context {
    /// `json` with every variable replaced as the CLI replaces it.
    pub fn substitute(&self, json: &Value) -> Result<Value, Unresolvable> {
        let local = |name: &str, args: &[&str], whole: &str| self.local(name, args, whole);
        let container_workspace =
            replace_all(&self.container_workspace, &|n, a, w| local(n, a, w))?;
        let first = walk(json, &|name, args, whole| match name {
            "containerWorkspaceFolder" => Ok(container_workspace.clone()),
            "containerWorkspaceFolderBasename" => {
                Ok(posix_basename(&container_workspace).to_owned())
            }
            _ => local(name, args, whole),
        })?;
        walk(&first, &|name, _, whole| {
            Ok(if name == "devcontainerId" {
                self.devcontainer_id.clone()
            } else {
                whole.to_owned()
            })
        })
    }

    /// One text with the local variables replaced (a string, not JSON):
    /// `${localWorkspaceFolder}` and the environment.
    pub fn substitute_text(&self, text: &str) -> Result<String, Unresolvable> {
        replace_all(text, &|n, a, w| self.local(n, a, w))
    }

    fn local(&self, name: &str, args: &[&str], whole: &str) -> Result<String, Unresolvable> {
        match name {
            "env" | "localEnv" => {
                let Some(var) = args.first() else {
                    return Err(Unresolvable(format!(
                        "{} names no environment variable; the Dev Containers CLI refuses it \
                         (write ${{localEnv:NAME}})",
                        crate::text::quote(whole)
                    )));
                };
                Ok(self
                    .env
                    .iter()
                    .find(|(k, _)| k.as_os_str() == *var)
                    .map(|(_, v)| v.to_string_lossy().into_owned())
                    .or_else(|| args.get(1).map(|d| (*d).to_owned()))
                    .unwrap_or_default())
            }
            "localWorkspaceFolder" => Ok(self.local_workspace.clone()),
            "localWorkspaceFolderBasename" => Ok(posix_basename(&self.local_workspace).to_owned()),
            _ => Ok(whole.to_owned()),
        }
    }
}

type Resolver<'a> = dyn Fn(&str, &[&str], &str) -> Result<String, Unresolvable> + 'a;

/// Every string value of `json` (not keys) with its variables replaced.
fn walk(json: &Value, resolve: &Resolver<'_>) -> Result<Value, Unresolvable> {
    Ok(match json {
        Value::String(s) => Value::String(replace_all(s, resolve)?),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| walk(v, resolve))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| Ok((k.clone(), walk(v, resolve)?)))
                .collect::<Result<_, _>>()?,
        ),
        other => other.clone(),
    })
}

/// The line terminators JavaScript's `.` does not match.
fn line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// `text` with each `${…}` replaced, as `text.replace(/\$\{(.*?)\}/g, …)`.
fn replace_all(text: &str, resolve: &Resolver<'_>) -> Result<String, Unresolvable> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let inner = &rest[start + 2..];
        let end = inner.find(|c: char| c == '}' || line_terminator(c));
        match end {
            Some(end) if inner[end..].starts_with('}') => {
                let whole = &rest[start..start + 2 + end + 1];
                let body = &inner[..end];
                let mut parts = body.split(':');
                let name = parts.next().unwrap_or("");
                let args: Vec<&str> = parts.collect();
                out.push_str(&rest[..start]);
                out.push_str(&resolve(name, &args, whole)?);
                rest = &inner[end + 1..];
            }
            // No `}` before the line ends: no match here; go on one
            // character later (the next `${` may still match).
            _ => {
                out.push_str(&rest[..start + 1]);
                rest = &rest[start + 1..];
            }
        }
    }
    out.push_str(rest);
    Ok(out)
}

/// The last name of a POSIX path (`path.posix.basename`: trailing slashes
/// ignored).
pub fn posix_basename(path: &str) -> &str {
    let trimmed = path.trim_end_matches('/');
    trimmed.rsplit('/').next().unwrap_or("")
}

/// `${devcontainerId}` for the id labels `labels` (`name=value` each), as
/// the CLI computes it: the labels as a JSON object with sorted keys,
/// its sha256 read as one number, written in base 32 (`0-9a-v`), padded
/// with `0` to 52 digits.
pub fn devcontainer_id(labels: &[&str]) -> String {
    let mut pairs: std::collections::BTreeMap<&str, &str> = std::collections::BTreeMap::new();
    for label in labels {
        if let Some((k, v)) = label.split_once('=') {
            pairs.insert(k, v);
        }
    }
    let json = serde_json::to_string(&pairs).unwrap_or_default();
    let hash: [u8; 32] = sha2::Sha256::digest(json.as_bytes()).into();
    base32_of(&hash, 52)
}

/// The big-endian number `bytes` in base 32, at least `width` digits.
fn base32_of(bytes: &[u8], width: usize) -> String {
    const DIGITS: &[u8; 32] = b"0123456789abcdefghijklmnopqrstuv";
    let mut number: Vec<u8> = bytes.to_vec();
    let mut out = Vec::new();
    while number.iter().any(|b| *b != 0) {
        let mut rem = 0u32;
        for byte in number.iter_mut() {
            let cur = (rem << 8) | u32::from(*byte);
            *byte = (cur / 32) as u8;
            rem = cur % 32;
        }
        out.push(DIGITS[rem as usize]);
    }
    while out.len() < width {
        out.push(b'0');
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn context() -> Context {
        Context {
            local_workspace: "/src/my-repo".into(),
            container_workspace: "/workspaces/${localWorkspaceFolderBasename}".into(),
            env: vec![
                ("HOME".into(), "/home/me".into()),
                ("PATH".into(), "/usr/bin".into()),
            ],
            devcontainer_id: "ID".into(),
        }
    }

    #[test]
    fn variables_are_replaced_in_values_at_any_depth_never_in_keys() {
        let out = context()
            .substitute(&json!({
                "build": {"context": "${localEnv:HOME}", "dockerfile": "${localWorkspaceFolder}/../D"},
                "${localEnv:HOME}": ["${localWorkspaceFolderBasename}", 5],
                "c": "${containerWorkspaceFolder}|${containerWorkspaceFolderBasename}",
                "id": "x-${devcontainerId}",
            }))
            .unwrap();
        assert_eq!(
            out,
            json!({
                "build": {"context": "/home/me", "dockerfile": "/src/my-repo/../D"},
                "${localEnv:HOME}": ["my-repo", 5],
                "c": "/workspaces/my-repo|my-repo",
                "id": "x-ID",
            })
        );
    }

    #[test]
    fn an_unset_variable_takes_its_default_or_nothing_and_others_stay_as_written() {
        let c = context();
        let text = |t: &str| c.substitute(&json!(t)).unwrap();
        assert_eq!(text("${localEnv:NOPE}"), json!(""));
        assert_eq!(text("${localEnv:NOPE:/d:e}"), json!("/d"));
        assert_eq!(text("${env:HOME}"), json!("/home/me"));
        assert_eq!(text("${containerEnv:PATH}"), json!("${containerEnv:PATH}"));
        assert_eq!(text("${unknown}"), json!("${unknown}"));
        // The shortest match, up to the first `}`.
        assert_eq!(text("${a${localEnv:HOME}"), json!("${a${localEnv:HOME}"));
        // A line break ends an attempt; the scan goes on.
        assert_eq!(text("${x\n${localEnv:HOME}}"), json!("${x\n/home/me}"));
        assert!(c.substitute(&json!("${localEnv}")).is_err());
    }

    #[test]
    fn the_devcontainer_id_is_the_clis_base32_hash_of_the_labels() {
        // Computed with the CLI's own function (node, 0.89):
        // BigInt('0x' + sha256('{"agents.resource":"01J0TEST"}')).toString(32).padStart(52, '0')
        let id = devcontainer_id(&["agents.resource=01J0TEST"]);
        assert_eq!(id.len(), 52);
        assert_eq!(id, EXPECTED_ID);
    }

    const EXPECTED_ID: &str = "08s8pdu0u34tnoo1ld7mifa5b9g4ujp9jnpul3o3kavpcdodt4g3";
}
