//! `up` through the Dev Containers CLI: `devcontainer up --workspace-folder
//! W --config C --override-config COPY --id-label L --docker-path ENGINE`,
//! run in the workspace folder, where `COPY` is a private copy of the
//! configuration's bytes the host checked (the CLI reads the copy and
//! resolves relative paths from `C`'s folder, so it runs what was checked
//! even if the file changed since); its last stdout line
//! is its JSON answer (`{"outcome":"success","containerId":…,
//! "remoteWorkspaceFolder":…}` or `{"outcome":"error","message":…,
//! "description":…}`); its log goes to stderr. The image is then asked of
//! the engine (the answer does not name it).

use std::ffi::OsString;
use std::path::Path;

use serde_json::Value;

use super::super::process::shown_stderr;
use super::super::{Checked, Container, DevcontainerError, Tool, UpRequest};
use super::{Runtime, check_id};

impl Runtime {
    pub(super) fn up_with_cli(
        &self,
        cli: &Path,
        req: &UpRequest,
        checked: &Checked,
        remove_existing: bool,
    ) -> Result<Container, DevcontainerError> {
        let copy = req
            .private_dir
            .as_deref()
            .map(|dir| private_copy(dir, &checked.bytes))
            .transpose()?;
        let before = self.labelled(&req.id_label)?;
        let mut args: Vec<OsString> = vec![
            "up".into(),
            "--workspace-folder".into(),
            req.workspace.clone().into(),
            "--config".into(),
            req.config.clone().into(),
        ];
        if let Some(copy) = copy {
            args.extend(["--override-config".into(), copy.into()]);
        }
        args.extend::<[OsString; 4]>([
            "--id-label".into(),
            req.id_label.clone().into(),
            // The engine probed, not whichever `docker` the CLI finds.
            "--docker-path".into(),
            self.engine.clone().into(),
        ]);
        if remove_existing {
            args.push("--remove-existing-container".into());
        }
        let mut call = self.call(cli, args, self.timeouts.up);
        // `initializeCommand` runs in the CLI's working folder: the
        // workspace, where the host resolved the files it names.
        call.cwd = Some(&req.workspace);
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

/// Writes `bytes` as `<dir>/devcontainer.json`, private (the folder 0700,
/// the file 0600, made anew, never through a symlink).
fn private_copy(dir: &Path, bytes: &[u8]) -> Result<std::path::PathBuf, DevcontainerError> {
    use std::io::Write;
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    let io = |what: &'static str, path: &Path| {
        let path = path.to_path_buf();
        move |source| DevcontainerError::Io { what, path, source }
    };
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(io("cannot make the private folder", dir))?;
    let meta = std::fs::symlink_metadata(dir).map_err(io("cannot read", dir))?;
    if !meta.is_dir() {
        return Err(DevcontainerError::Request(format!(
            "{} is not a directory",
            dir.display()
        )));
    }
    let path = dir.join("devcontainer.json");
    match std::fs::remove_file(&path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io("cannot replace", &path)(e)),
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .open(&path)
        .map_err(io("cannot write", &path))?;
    file.write_all(bytes).map_err(io("cannot write", &path))?;
    Ok(path)
}
