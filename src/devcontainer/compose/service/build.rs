//! A service's `build` key: the context and Dockerfile it reads from the
//! host (inside the repository, covered) and what its other options grant.

use std::path::Path;

use serde_json::{Map, Value};

use super::values::{plain, scalar, short, strings};
use crate::devcontainer::compose::{Reader, Source, State};
use crate::text::quote;

pub(super) fn build(
    reader: &mut dyn Reader,
    state: &mut State,
    source: &Source,
    shown_as: &str,
    value: &Value,
) -> Result<(), String> {
    let empty = Map::new();
    let (context, map) = match value {
        Value::String(s) => (s.clone(), &empty),
        Value::Object(m) => (
            m.get("context")
                .map(|v| plain(v, "build.context"))
                .transpose()?
                .unwrap_or_else(|| ".".into()),
            m,
        ),
        _ => return Err("build must be a path or a mapping".into()),
    };
    if context.contains("://") || context.starts_with("git@") || context.ends_with(".git") {
        return Err(format!(
            "build.context {} is remote: the host covers only files in the repository",
            quote(&context)
        ));
    }
    let ctx = reader.inside(&source.base, &context, "build.context")?;
    reader.check_dir(&ctx)?;
    reader.optional(
        &ctx.join(".dockerignore"),
        "compose build context's .dockerignore",
    )?;
    let inline = map.contains_key("dockerfile_inline");
    if !inline {
        let dockerfile = map
            .get("dockerfile")
            .map(|v| plain(v, "build.dockerfile"))
            .transpose()?
            .unwrap_or_else(|| "Dockerfile".into());
        let rel = reader.inside(&ctx, &dockerfile, "build.dockerfile")?;
        reader.read(&rel, "compose service's Dockerfile")?;
        state
            .project
            .builds
            .push((shown_as.to_owned(), reader.shown(&ctx), reader.shown(&rel)));
        let mut ignore = rel.clone().into_os_string();
        ignore.push(".dockerignore");
        reader.optional(Path::new(&ignore), "compose Dockerfile's .dockerignore")?;
        state.grant(
            shown_as,
            format!(
                "builds {} with the context {} (sent to the engine)",
                reader.shown(&rel),
                reader.shown(&ctx)
            ),
            false,
        );
    } else {
        state.grant(
            shown_as,
            format!(
                "builds an inline Dockerfile with the context {}",
                reader.shown(&ctx)
            ),
            false,
        );
    }
    for (key, v) in map {
        match key.as_str() {
            "context" | "dockerfile" | "dockerfile_inline" | "args" | "labels" | "target"
            | "shm_size" | "extra_hosts" | "isolation" | "no_cache" | "pull" | "platforms"
            | "tags" | "ulimits" | "cache_from" | "cache_to" => {
                if matches!(key.as_str(), "cache_from" | "cache_to") {
                    for text in strings(Some(v), key)? {
                        if text.contains("type=local") {
                            return Err(format!(
                                "build.{key} {}: a local cache reads or writes a host directory",
                                quote(&text)
                            ));
                        }
                    }
                }
            }
            "network" => {
                let net = scalar(v, key)?;
                state.grant(
                    shown_as,
                    format!(
                        "build.network: {net}{}",
                        if net == "host" {
                            " — the build shares the host's network"
                        } else {
                            ""
                        }
                    ),
                    net == "host",
                );
            }
            "privileged" if v != &Value::Bool(false) => {
                state.grant(
                    shown_as,
                    "build.privileged: the build runs privileged".into(),
                    true,
                );
            }
            "privileged" => {}
            "entitlements" => {
                state.grant(shown_as, format!("build.entitlements: {}", short(v)), true)
            }
            "ssh" => state.grant(
                shown_as,
                format!(
                    "build.ssh: the host's SSH agent or keys are lent to the build ({})",
                    short(v)
                ),
                true,
            ),
            "secrets" => state.grant(
                shown_as,
                format!("build.secrets: {} (see the project's secrets)", short(v)),
                false,
            ),
            "additional_contexts" => {
                for (name, target) in v.as_object().into_iter().flatten() {
                    let target = plain(target, "build.additional_contexts")?;
                    if target.starts_with("docker-image://")
                        || target.starts_with("service:")
                        || target.starts_with("target:")
                    {
                        continue;
                    }
                    if target.contains("://") {
                        return Err(format!(
                            "build.additional_contexts.{name} {} is remote",
                            quote(&target)
                        ));
                    }
                    let rel = reader.inside(&source.base, &target, "build.additional_contexts")?;
                    reader.check_dir(&rel)?;
                }
            }
            other if other.starts_with("x-") => {}
            other => {
                return Err(format!(
                    "build.{other} is not a key the host knows: it cannot tell what it does"
                ));
            }
        }
    }
    Ok(())
}
