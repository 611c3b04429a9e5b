//! Credentials for a registry, found where people keep them: the one
//! home of reading `~/.docker/config.json` (`auths`, `credHelpers`,
//! `credsStore`), asking a `docker-credential-*` helper, and the
//! variables the CLI hands in (`AGENTS_REGISTRY_TOKEN`,
//! `AGENTS_REGISTRY_USERNAME` / `_PASSWORD`).
//!
//! **Handed in, used, never kept.** The library reads no variable of its
//! own: the CLI builds a [`RegistryAccess`] from the environment and the
//! paths. Credentials live in memory for one command: they are never
//! written to the registry or a log, never part of an error, and their
//! `Debug` says only which kind they are. A helper is the user's own
//! configured program (`docker-credential-NAME` on the `PATH` handed in,
//! NAME of letters, digits and `-_.` only), run as docker runs it: the
//! server on stdin, JSON on stdout.

use base64::Engine;
use serde::Deserialize;
use std::collections::HashMap;
use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;

/// How registries are reached: where credentials are, and whether plain
/// http is allowed beyond loopback.
#[derive(Clone, Default)]
pub struct RegistryAccess {
    /// A docker `config.json` to read (the CLI hands in
    /// `$DOCKER_CONFIG/config.json`, else `~/.docker/config.json`).
    pub docker_config: Option<PathBuf>,
    /// A registry token sent as `Bearer` to every registry
    /// (`AGENTS_REGISTRY_TOKEN`).
    pub token: Option<String>,
    /// A user name and password for every registry
    /// (`AGENTS_REGISTRY_USERNAME` / `AGENTS_REGISTRY_PASSWORD`).
    pub basic: Option<(String, String)>,
    /// The `PATH` a credential helper is looked for on (none: no helper
    /// is run).
    pub helper_path: Option<OsString>,
    /// Allow plain http to registries that are not on loopback.
    pub insecure: bool,
}

impl fmt::Debug for RegistryAccess {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RegistryAccess")
            .field("docker_config", &self.docker_config)
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .field("basic", &self.basic.as_ref().map(|_| "<redacted>"))
            .field("insecure", &self.insecure)
            .finish_non_exhaustive()
    }
}

/// What is sent to one registry.
#[derive(Clone, PartialEq, Eq)]
pub enum Credentials {
    Anonymous,
    Basic { username: String, password: String },
    Bearer(String),
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Anonymous => "Anonymous",
            Self::Basic { .. } => "Basic(<redacted>)",
            Self::Bearer(_) => "Bearer(<redacted>)",
        })
    }
}

impl Credentials {
    /// The `Authorization` value for a `Basic` challenge.
    pub fn basic_header(&self) -> Option<String> {
        match self {
            Self::Basic { username, password } => Some(format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(format!("{username}:{password}"))
            )),
            _ => None,
        }
    }
}

#[derive(Debug, Default, Deserialize)]
struct DockerConfig {
    #[serde(default)]
    auths: HashMap<String, AuthEntry>,
    #[serde(default, rename = "credHelpers")]
    cred_helpers: HashMap<String, String>,
    #[serde(default, rename = "credsStore")]
    creds_store: Option<String>,
}

#[derive(Default, Deserialize)]
struct AuthEntry {
    #[serde(default)]
    auth: Option<String>,
    #[serde(default)]
    username: Option<String>,
    #[serde(default)]
    password: Option<String>,
    #[serde(default, rename = "identitytoken")]
    identity_token: Option<String>,
}

impl fmt::Debug for AuthEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AuthEntry(<redacted>)")
    }
}

#[derive(Deserialize)]
struct HelperAnswer {
    #[serde(rename = "Username")]
    username: String,
    #[serde(rename = "Secret")]
    secret: String,
}

impl RegistryAccess {
    /// The credentials for `registry` (`HOST[:PORT]`): the variables
    /// first, then the docker config's helper for it, its `auths` entry,
    /// its default store; else anonymous. A config or helper that cannot
    /// be read is a warning, not a refusal: the registry may not need it.
    pub fn credentials_for(&self, registry: &str) -> Credentials {
        if let Some(token) = &self.token {
            return Credentials::Bearer(token.clone());
        }
        if let Some((username, password)) = &self.basic {
            return Credentials::Basic {
                username: username.clone(),
                password: password.clone(),
            };
        }
        let Some(config) = self.docker_config() else {
            return Credentials::Anonymous;
        };
        if let Some(helper) = config.cred_helpers.get(registry) {
            return self.ask_helper(helper, registry);
        }
        if let Some(found) = config
            .auths
            .iter()
            .find(|(key, _)| normalise(key) == registry)
            .and_then(|(_, entry)| entry_credentials(entry))
        {
            return found;
        }
        match &config.creds_store {
            Some(store) => self.ask_helper(store, registry),
            None => Credentials::Anonymous,
        }
    }

    fn docker_config(&self) -> Option<DockerConfig> {
        let path = self.docker_config.as_ref()?;
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(e) => {
                log::warn!("cannot read {}: {e}; going without it", path.display());
                return None;
            }
        };
        match serde_json::from_str(&text) {
            Ok(config) => Some(config),
            Err(e) => {
                log::warn!("cannot read {}: {e}; going without it", path.display());
                None
            }
        }
    }

    fn ask_helper(&self, name: &str, registry: &str) -> Credentials {
        let sound = !name.is_empty()
            && name.len() <= 64
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
        let (true, Some(path)) = (sound, &self.helper_path) else {
            log::warn!("not running credential helper {name:?} for {registry}");
            return Credentials::Anonymous;
        };
        let program = format!("docker-credential-{name}");
        let Some(found) = std::env::split_paths(path)
            .filter(|dir| dir.is_absolute())
            .map(|dir| dir.join(&program))
            .find(|p| p.is_file())
        else {
            log::warn!("credential helper {program} is not on the PATH; going without it");
            return Credentials::Anonymous;
        };
        match run_helper(&found, registry) {
            Ok(answer) => Credentials::Basic {
                username: answer.username,
                password: answer.secret,
            },
            Err(why) => {
                log::warn!("credential helper {program} gave nothing for {registry}: {why}");
                Credentials::Anonymous
            }
        }
    }
}

fn run_helper(program: &std::path::Path, registry: &str) -> Result<HelperAnswer, String> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(program)
        .arg("get")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(registry.as_bytes())
            .map_err(|e| e.to_string())?;
    }
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("it exited with {}", out.status));
    }
    serde_json::from_slice(&out.stdout)
        .map_err(|_| "its answer is not the JSON docker reads".into())
}

/// An `auths` key as a bare `HOST[:PORT]` (`https://host/v1/` → `host`).
fn normalise(key: &str) -> &str {
    let key = key
        .strip_prefix("https://")
        .or_else(|| key.strip_prefix("http://"))
        .unwrap_or(key);
    key.split('/').next().unwrap_or(key)
}

fn entry_credentials(entry: &AuthEntry) -> Option<Credentials> {
    if let (Some(username), Some(password)) = (&entry.username, &entry.password) {
        return Some(Credentials::Basic {
            username: username.clone(),
            password: password.clone(),
        });
    }
    if let Some(token) = &entry.identity_token {
        return Some(Credentials::Bearer(token.clone()));
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(entry.auth.as_ref()?.trim())
        .ok()?;
    let text = String::from_utf8(decoded).ok()?;
    let (username, password) = text.split_once(':')?;
    Some(Credentials::Basic {
        username: username.to_owned(),
        password: password.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_config(json: &str) -> (tempfile::TempDir, RegistryAccess) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.json");
        std::fs::write(&path, json).unwrap();
        let access = RegistryAccess {
            docker_config: Some(path),
            ..RegistryAccess::default()
        };
        (dir, access)
    }

    #[test]
    fn an_auths_entry_is_found_by_host_whatever_scheme_its_key_has() {
        let (_dir, access) = with_config(
            r#"{"auths": {"https://127.0.0.1:5001/v2/": {"auth": "YWxpY2U6czNjcmV0"}}}"#,
        );
        assert_eq!(
            access.credentials_for("127.0.0.1:5001"),
            Credentials::Basic {
                username: "alice".into(),
                password: "s3cret".into()
            }
        );
        assert_eq!(access.credentials_for("other:1"), Credentials::Anonymous);
    }

    #[test]
    fn the_variables_win_over_the_config_file() {
        let (_dir, mut access) =
            with_config(r#"{"auths": {"r:1": {"username": "a", "password": "b"}}}"#);
        access.token = Some("t".into());
        assert_eq!(
            access.credentials_for("r:1"),
            Credentials::Bearer("t".into())
        );
    }

    #[test]
    fn credentials_never_show_in_debug_output() {
        let creds = Credentials::Basic {
            username: "alice".into(),
            password: "s3cret".into(),
        };
        assert!(!format!("{creds:?}").contains("s3cret"));
        let access = RegistryAccess {
            token: Some("tok3n".into()),
            ..RegistryAccess::default()
        };
        assert!(!format!("{access:?}").contains("tok3n"));
    }

    #[test]
    fn a_helper_with_an_odd_name_is_not_run() {
        let (_dir, mut access) = with_config(r#"{"credsStore": "../evil"}"#);
        access.helper_path = Some("/usr/bin".into());
        assert_eq!(access.credentials_for("r:1"), Credentials::Anonymous);
    }
}
