//! One entry of a service's `volumes`: a bind mount inside the
//! repository, one that reaches the host outside it (a home directory, the
//! whole filesystem), a named volume or another kind of mount, granted as
//! such.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::values::lexical;
use crate::devcontainer::compose::{Reader, Source, State};

pub(super) fn volume_grant(
    reader: &mut dyn Reader,
    state: &mut State,
    source: &Source,
    shown_as: &str,
    volume: &Value,
) -> Result<(), String> {
    let (kind, src, target) = match volume {
        Value::String(text) => {
            let mut parts = text.splitn(3, ':');
            let first = parts.next().unwrap_or("");
            match parts.next() {
                None => (Some("volume"), None, first.to_owned()),
                Some(target) => {
                    let bind =
                        first.starts_with('/') || first.starts_with('.') || first.starts_with('~');
                    (
                        Some(if bind { "bind" } else { "volume" }),
                        Some(first.to_owned()),
                        target.to_owned(),
                    )
                }
            }
        }
        Value::Object(m) => (
            m.get("type").and_then(Value::as_str),
            m.get("source").and_then(Value::as_str).map(str::to_owned),
            m.get("target")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
        ),
        _ => return Err("volumes: an entry must be text or a mapping".into()),
    };
    match (kind, src) {
        (Some("bind"), Some(src)) => {
            if src.starts_with('~') {
                state.grant(shown_as, format!("volumes: binds the host's {src} (OUTSIDE the repository: a home directory) at {target}"), true);
                return Ok(());
            }
            let absolute = if Path::new(&src).is_absolute() {
                lexical(Path::new(&src))
            } else {
                let base = PathBuf::from(reader.shown(&source.base));
                lexical(&base.join(&src))
            };
            let shown = absolute.display().to_string();
            state
                .project
                .binds
                .push((shown_as.to_owned(), shown.clone()));
            if reader.holds(&absolute) {
                state.grant(
                    shown_as,
                    format!("volumes: binds {shown} (inside the repository) at {target}"),
                    false,
                );
            } else {
                let root = if shown == "/" {
                    " — the host's whole filesystem"
                } else {
                    ""
                };
                state.grant(shown_as, format!("volumes: binds the host's {shown} (OUTSIDE the repository{root}) at {target}"), true);
            }
        }
        (Some("volume") | None, Some(src)) => state.grant(
            shown_as,
            format!("volumes: the volume {src} at {target}"),
            false,
        ),
        (Some(kind), _) => state.grant(
            shown_as,
            format!("volumes: a {kind} mount at {target}"),
            kind == "npipe",
        ),
        (None, None) => {}
    }
    Ok(())
}
