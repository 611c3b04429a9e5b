//! Devcontainer detection: a directory (a checkout's work tree, an
//! `fs-directory`) holding `.devcontainer/devcontainer.json` or
//! `.devcontainer.json` has a `devcontainer-instance` in the `detected`
//! state, named beside it (`local/my-repo` → `local/my-repo-devcontainer`,
//! as the reference's devcontainer commands name it); each configuration
//! in a subfolder, `.devcontainer/<folder>/devcontainer.json` (the Dev
//! Containers specification's way for a monorepo to offer several), is
//! one more, named after its folder (`local/my-repo-devcontainer-api`).
//! Building, starting and stopping them are the host's.

use crate::jsonc::parse_jsonc;
use resource_handler_sdk::{Discovered, ResourceView, host, name_part};
use serde_json::Value;

/// Where the default devcontainer configuration may be, in the order the
/// Dev Containers CLI looks.
const CONFIGS: [&str; 2] = [".devcontainer/devcontainer.json", ".devcontainer.json"];

/// The largest configuration read.
const MAX_CONFIG: u64 = 1024 * 1024;

/// Subfolder configurations looked at, at most (a `.devcontainer/` is a
/// handful; more is not a configuration directory).
const MAX_FOLDERS: usize = 64;

fn is_regular_file(path: &str) -> bool {
    host::lstat(path).is_some_and(|stat| stat.mode & 0o170000 == 0o100000)
}

/// The default configuration file of the directory `root`, if it has one
/// (a regular file; a symlink is not followed).
pub fn config_path(root: &str) -> Option<String> {
    CONFIGS.iter().find_map(|rel| {
        let path = format!("{}/{rel}", root.trim_end_matches('/'));
        is_regular_file(&path).then_some(path)
    })
}

/// Every configuration of `root`: the default one (if any), with no
/// folder, then `.devcontainer/<folder>/devcontainer.json` of each
/// subfolder, by folder name (directories only, nothing followed).
pub fn configs(root: &str) -> Vec<(Option<String>, String)> {
    let root = root.trim_end_matches('/');
    let mut found: Vec<(Option<String>, String)> =
        config_path(root).map(|p| (None, p)).into_iter().collect();
    let Ok(entries) = host::read_dir(&format!("{root}/.devcontainer")) else {
        return found;
    };
    for entry in entries
        .iter()
        .filter(|e| e.stat.mode & 0o170000 == 0o040000)
        .take(MAX_FOLDERS)
    {
        let path = format!("{root}/.devcontainer/{}/devcontainer.json", entry.name);
        if is_regular_file(&path) {
            found.push((Some(entry.name.clone()), path));
        }
    }
    found
}

/// The `devcontainer-instance` children of `r` (whose location is
/// `root`), one per configuration. A configuration that does not parse is
/// still detected, with `config-error` saying why.
pub fn detect(r: &ResourceView, root: &str) -> Vec<Discovered> {
    configs(root)
        .into_iter()
        .map(|(folder, config)| instance(r, root, folder.as_deref(), &config))
        .collect()
}

fn instance(r: &ResourceView, root: &str, folder: Option<&str>, config: &str) -> Discovered {
    let mut child = Discovered::new("devcontainer-instance")
        .at(root)
        .with_property("config-path", config.to_owned())
        .with_property("state", "detected");
    if let Some(folder) = folder {
        child = child.with_property("config-folder", folder.to_owned());
    }
    // Named beside the resource it belongs to: `local/my-repo` →
    // `local/my-repo-devcontainer` (a name starting `../` is the host's
    // "beside the parent"), `…-devcontainer-<folder>` for a subfolder's.
    // The parent's last part is a name part already: taken as it is.
    if let Some(last) = r.name.as_deref().and_then(|n| n.rsplit('/').next()) {
        let suffix = folder
            .map(|f| format!("-{}", name_part(f)))
            .unwrap_or_default();
        child = child.named(format!("../{last}-devcontainer{suffix}"));
    }
    match read(config).and_then(|text| parse_jsonc(&text)) {
        Ok(json) => {
            for (key, value) in facts(&json) {
                child = child.with_property(key, value);
            }
        }
        Err(why) => child = child.with_property("config-error", why),
    }
    if let Ok(digest) = host::sha256_file(config) {
        child = child.with_property("config-digest", digest);
    }
    child
}

/// The configurations' digest, for a content hash that changes when one
/// is edited, added or removed (they lie below what a directory's own
/// hash covers).
pub fn config_digest(root: &str) -> Option<String> {
    let found = configs(root);
    match found.as_slice() {
        [] => None,
        // One default configuration: its digest, as before subfolders.
        [(None, path)] => host::sha256_file(path).ok(),
        _ => Some(
            found
                .iter()
                .map(|(folder, path)| {
                    format!(
                        "{}={}",
                        folder.as_deref().unwrap_or(""),
                        host::sha256_file(path).unwrap_or_default()
                    )
                })
                .collect::<Vec<_>>()
                .join(","),
        ),
    }
}

fn read(path: &str) -> Result<String, String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_CONFIG + 1).read_to_end(&mut bytes))
        .map_err(|e| format!("{path}: {e}"))?;
    if bytes.len() as u64 > MAX_CONFIG {
        return Err(format!("{path} is larger than the {MAX_CONFIG} bytes read"));
    }
    String::from_utf8(bytes).map_err(|e| format!("{path} is not UTF-8 text ({e})"))
}

/// What a person looks for first: the name, the image or how it is
/// built, the service of a compose setup.
fn facts(json: &Value) -> Vec<(&'static str, String)> {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
    let mut out = Vec::new();
    if let Some(name) = text(json.get("name")) {
        out.push(("name", name));
    }
    if let Some(image) = text(json.get("image")) {
        out.push(("image", image));
    }
    let build = json.get("build");
    if let Some(dockerfile) =
        text(build.and_then(|b| b.get("dockerfile"))).or_else(|| text(json.get("dockerFile")))
    {
        out.push(("dockerfile", dockerfile));
    }
    if let Some(context) =
        text(build.and_then(|b| b.get("context"))).or_else(|| text(json.get("context")))
    {
        out.push(("build-context", context));
    }
    match json.get("dockerComposeFile") {
        Some(Value::String(file)) => out.push(("docker-compose-file", file.clone())),
        Some(Value::Array(files)) => out.push((
            "docker-compose-file",
            files
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(","),
        )),
        _ => {}
    }
    if let Some(service) = text(json.get("service")) {
        out.push(("service", service));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_is_recorded_by_its_dockerfile_and_context() {
        let json =
            parse_jsonc(r#"{"build": {"dockerfile": "Dockerfile", "context": ".."}}"#).unwrap();
        assert_eq!(
            facts(&json),
            [
                ("dockerfile", "Dockerfile".to_owned()),
                ("build-context", "..".to_owned())
            ]
        );
    }
}
