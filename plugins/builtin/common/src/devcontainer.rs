//! Devcontainer detection: a directory (a checkout's work tree, an
//! `fs-directory`) holding `.devcontainer/devcontainer.json` or
//! `.devcontainer.json` has a `devcontainer-instance` in the `detected`
//! state, named beside it (`local/my-repo` → `local/my-repo-devcontainer`,
//! as the reference's devcontainer commands name it). Building, starting
//! and stopping it are the devcontainer handler's, later.

use resource_handler_sdk::{Discovered, ResourceView, host, name_part};
use serde_json::Value;

/// Where a devcontainer configuration may be, in the order the Dev
/// Containers CLI looks.
const CONFIGS: [&str; 2] = [".devcontainer/devcontainer.json", ".devcontainer.json"];

/// The largest configuration read.
const MAX_CONFIG: u64 = 1024 * 1024;

/// The configuration file of the directory `root`, if it has one (a
/// regular file; a symlink is not followed).
pub fn config_path(root: &str) -> Option<String> {
    CONFIGS.iter().find_map(|rel| {
        let path = format!("{}/{rel}", root.trim_end_matches('/'));
        let stat = host::lstat(&path)?;
        (stat.mode & 0o170000 == 0o100000).then_some(path)
    })
}

/// The `devcontainer-instance` child of `r` (whose location is `root`),
/// when `root` has a configuration. A configuration that does not parse
/// is still detected, with `config-error` saying why.
pub fn detect(r: &ResourceView, root: &str) -> Option<Discovered> {
    let config = config_path(root)?;
    let mut child = Discovered::new("devcontainer-instance")
        .at(root)
        .with_property("config-path", config.clone())
        .with_property("state", "detected");
    // Named beside the resource it belongs to: `local/my-repo` →
    // `local/my-repo-devcontainer` (a name starting `../` is the host's
    // "beside the parent").
    if let Some(last) = r.name.as_deref().and_then(|n| n.rsplit('/').next()) {
        child = child.named(format!("../{}-devcontainer", name_part(last)));
    }
    match read(&config).and_then(|text| parse_jsonc(&text)) {
        Ok(json) => {
            for (key, value) in facts(&json) {
                child = child.with_property(key, value);
            }
        }
        Err(why) => child = child.with_property("config-error", why),
    }
    if let Ok(digest) = host::sha256_file(&config) {
        child = child.with_property("config-digest", digest);
    }
    Some(child)
}

/// The configuration's digest, for a content hash that changes when it is
/// edited (it lies one level down, below what a directory's own hash
/// covers).
pub fn config_digest(root: &str) -> Option<String> {
    host::sha256_file(&config_path(root)?).ok()
}

fn read(path: &str) -> Result<String, String> {
    let size = host::lstat(path).map(|s| s.size).unwrap_or(0);
    if size > MAX_CONFIG {
        return Err(format!(
            "{path} is {size} bytes, more than the {MAX_CONFIG} read"
        ));
    }
    std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))
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

/// JSON with comments (`//`, `/* */`) and trailing commas, as
/// `devcontainer.json` is written.
pub fn parse_jsonc(text: &str) -> Result<Value, String> {
    serde_json::from_str(&strip_jsonc(text))
        .map_err(|e| format!("not valid JSON with comments: {e}"))
}

/// `text` without comments and trailing commas; strings untouched, and
/// line structure kept (comments become spaces) so errors point at the
/// right line.
fn strip_jsonc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => {
                    if let Some(next) = chars.next() {
                        out.push(next);
                    }
                }
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut last = ' ';
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                    }
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
            }
            '}' | ']' => {
                // A trailing comma: the last non-blank output before it.
                let end = out.trim_end().len();
                if out[..end].ends_with(',') {
                    out.remove(end - 1);
                }
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_trailing_commas_are_what_devcontainer_json_allows() {
        let text = r#"{
            // The name people see.
            "name": "api // not a comment",
            /* an image,
               pinned */
            "image": "mcr.microsoft.com/devcontainers/rust:1",
            "features": { "a": 1, },
            "forwardPorts": [3000, 8080,],
        }"#;
        let json = parse_jsonc(text).unwrap();
        assert_eq!(json["name"], "api // not a comment");
        assert_eq!(json["forwardPorts"][1], 8080);
        let facts = facts(&json);
        assert!(facts.contains(&("image", "mcr.microsoft.com/devcontainers/rust:1".to_owned())));
    }

    #[test]
    fn a_broken_configuration_says_where() {
        let err = parse_jsonc("{\n  \"image\": \n}").unwrap_err();
        assert!(err.contains("line 3"), "{err}");
    }

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
