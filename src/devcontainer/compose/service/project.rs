//! The project-level keys beside the services — `volumes`, `networks`,
//! `secrets` and `configs` — and what reaches the host through them
//! (driver options, the host's network, files and environment variables
//! handed to the container).

use std::path::PathBuf;

use serde_json::Value;

use super::values::{lexical, no_interpolation, plain, short};
use crate::devcontainer::compose::{Reader, Source, State};

/// The project-level `volumes`, `networks`, `secrets` and `configs` of
/// `source`: what reaches the host through them.
pub(in crate::devcontainer::compose) fn top_level(
    reader: &mut dyn Reader,
    state: &mut State,
    source: &Source,
) -> Result<(), String> {
    let project = "(project)";
    for (name, volume) in source
        .top
        .get("volumes")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        no_interpolation(volume, "volumes")?;
        if let Some(opts) = volume.get("driver_opts") {
            state.grant(
                project,
                format!("volume {name} has driver options {} (a local volume with o=bind binds any host directory)", short(opts)),
                true,
            );
        }
    }
    for (name, network) in source
        .top
        .get("networks")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        no_interpolation(network, "networks")?;
        let real = network.get("name").and_then(Value::as_str).unwrap_or(name);
        let external = network
            .get("external")
            .is_some_and(|e| e != &Value::Bool(false));
        let driver = network.get("driver").and_then(Value::as_str);
        if (external && real == "host") || driver == Some("host") {
            state.grant(project, format!("network {name}: the host's network"), true);
        } else if external {
            state.grant(
                project,
                format!("network {name}: the existing network {real}"),
                false,
            );
        }
    }
    for kind in ["secrets", "configs"] {
        for (name, entry) in source
            .top
            .get(kind)
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            no_interpolation(entry, kind)?;
            if let Some(file) = entry.get("file") {
                let file = plain(file, "file")?;
                let absolute = lexical(&PathBuf::from(reader.shown(&source.base)).join(&file));
                if reader.holds(&absolute) {
                    let rel = reader.inside(&source.base, &file, kind)?;
                    reader.read(&rel, &format!("compose {kind} file"))?;
                    state.grant(
                        project,
                        format!(
                            "{kind} {name}: the file {} (inside the repository)",
                            absolute.display()
                        ),
                        false,
                    );
                } else {
                    state.grant(project, format!("{kind} {name}: hands the host's file {} (OUTSIDE the repository) to the container", absolute.display()), true);
                }
            }
            if let Some(var) = entry.get("environment") {
                state.grant(
                    project,
                    format!(
                        "{kind} {name}: the host's environment variable {}",
                        short(var)
                    ),
                    true,
                );
            }
        }
    }
    Ok(())
}
