//! `up` through the Dev Containers CLI: `devcontainer up --workspace-folder
//! W --config C --id-label L --docker-path ENGINE`, whose last stdout line
//! is its JSON answer (`{"outcome":"success","containerId":…,
//! "remoteWorkspaceFolder":…}` or `{"outcome":"error","message":…,
//! "description":…}`); its log goes to stderr. The image is then asked of
//! the engine (the answer does not name it).

use std::ffi::OsString;
use std::path::Path;

use serde_json::Value;

use super::super::process::shown_stderr;
use super::super::{Container, DevcontainerError, Tool, UpRequest};
use super::{Runtime, check_id};

impl Runtime {
    pub(super) fn up_with_cli(
        &self,
        cli: &Path,
        req: &UpRequest,
        remove_existing: bool,
    ) -> Result<Container, DevcontainerError> {
        let before = self.labelled(&req.id_label)?;
        let mut args: Vec<OsString> = vec![
            "up".into(),
            "--workspace-folder".into(),
            req.workspace.clone().into(),
            "--config".into(),
            req.config.clone().into(),
            "--id-label".into(),
            req.id_label.clone().into(),
            // The engine probed, not whichever `docker` the CLI finds.
            "--docker-path".into(),
            self.engine.clone().into(),
        ];
        if remove_existing {
            args.push("--remove-existing-container".into());
        }
        let call = self.call(cli, args, self.timeouts.up);
        let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
        let outcome = call.run().and_then(|done| {
            let answer = done
                .stdout
                .lines()
                .rev()
                .find_map(|l| serde_json::from_str::<Value>(l.trim()).ok());
            match answer {
                Some(v) if text(&v, "outcome").as_deref() == Some("success") => {
                    let id = text(&v, "containerId")
                        .filter(|id| check_id(id).is_ok())
                        .ok_or_else(|| call.unexpected(&done.stdout))?;
                    let image = self.inspect(&id, "{{.Config.Image}}")?;
                    Ok(Container {
                        created: !before.contains(&id),
                        workspace_folder: text(&v, "remoteWorkspaceFolder").unwrap_or_default(),
                        id,
                        image,
                        tool: Tool::DevcontainerCli,
                    })
                }
                Some(v) if text(&v, "outcome").as_deref() == Some("error") => {
                    let said = [text(&v, "message"), text(&v, "description")]
                        .into_iter()
                        .flatten()
                        .collect::<Vec<_>>()
                        .join(" — ");
                    let log = shown_stderr(&done.stderr);
                    let log = if log.is_empty() {
                        String::new()
                    } else {
                        format!("; its log ends: {log}")
                    };
                    Err(call.failed_with(&done, format!("{}{log}", shown_stderr(&said))))
                }
                _ if !done.status.success() => Err(call.failed(&done)),
                _ => Err(call.unexpected(&done.stdout)),
            }
        });
        outcome.inspect_err(|_| self.discard_new(&req.id_label, &before))
    }
}
