//! `docker run` options as `runArgs` gives them: the one home of how they
//! are split into options and values (as docker's own flag parser,
//! `pflag`, does) and of what each one grants a container.
//!
//! Splitting: `--name=value`; `--name value` when `name` takes a value
//! (then the next word is its value whatever it looks like, as in
//! `pflag`: `["--user", "--privileged"]` is a user named `--privileged`);
//! `-abc` short flags, the first that takes a value taking the rest (or
//! the next word). A word that is no option and no option's value is
//! refused, and so is a word after an option this table does not know
//! (`--future-flag value`: is `value` its value, or the image?): write
//! such an option `--future-flag=value`. Options of `build.options` are
//! only split (a bare word must follow an option written without `=`).

use std::fmt::Write;

/// Long options of `docker run` that take a value (docker 27).
#[rustfmt::skip]
const WITH_VALUE: &[&str] = &[
    "add-host", "annotation", "attach", "blkio-weight", "blkio-weight-device", "cap-add",
    "cap-drop", "cgroup-parent", "cgroupns", "cidfile", "cpu-count", "cpu-percent",
    "cpu-period", "cpu-quota", "cpu-rt-period", "cpu-rt-runtime", "cpu-shares", "cpus",
    "cpuset-cpus", "cpuset-mems", "detach-keys", "device", "device-cgroup-rule",
    "device-read-bps", "device-read-iops", "device-write-bps", "device-write-iops", "dns",
    "dns-opt", "dns-option", "dns-search", "domainname", "entrypoint", "env", "env-file",
    "expose", "gpus", "group-add", "health-cmd", "health-interval", "health-retries",
    "health-start-interval", "health-start-period", "health-timeout", "hostname",
    "io-maxbandwidth", "io-maxiops", "ip", "ip6", "ipc", "isolation", "kernel-memory", "label",
    "label-file", "link", "link-local-ip", "log-driver", "log-opt", "mac-address", "memory",
    "memory-reservation", "memory-swap", "memory-swappiness", "mount", "name", "network", "net",
    "network-alias", "net-alias", "oom-score-adj", "pid", "pids-limit", "platform", "publish",
    "pull", "restart", "runtime", "security-opt", "shm-size", "stop-signal", "stop-timeout",
    "storage-opt", "sysctl", "tmpfs", "ulimit", "user", "userns", "uts", "volume",
    "volume-driver", "volumes-from", "workdir",
];

/// Long options of `docker run` that take none.
#[rustfmt::skip]
const FLAGS: &[&str] = &[
    "detach", "disable-content-trust", "help", "init", "interactive", "no-healthcheck",
    "oom-kill-disable", "privileged", "publish-all", "quiet", "read-only", "rm", "sig-proxy",
    "tty", "use-api-socket",
];

/// Short options and their long names (`true`: takes a value).
const SHORT: &[(char, &str, bool)] = &[
    ('a', "attach", true),
    ('c', "cpu-shares", true),
    ('e', "env", true),
    ('h', "hostname", true),
    ('l', "label", true),
    ('m', "memory", true),
    ('p', "publish", true),
    ('u', "user", true),
    ('v', "volume", true),
    ('w', "workdir", true),
    ('d', "detach", false),
    ('i', "interactive", false),
    ('t', "tty", false),
    ('P', "publish-all", false),
    ('q', "quiet", false),
];

/// What `--privileged` (or `"privileged": true`) grants.
pub const PRIVILEGED: &str = "privileged: every capability, every host device, no seccomp or \
     AppArmor confinement — root in the container is root on the host";

/// One option of `runArgs`, as docker reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOption {
    /// The long name (`network` for `--net`), or as written when unknown.
    pub name: String,
    pub value: Option<String>,
    /// Known to docker's table here?
    pub known: bool,
}

impl RunOption {
    /// As a person would write it: `--name=value`.
    pub fn shown(&self) -> String {
        match &self.value {
            Some(v) => format!("--{}={v}", self.name),
            None => format!("--{}", self.name),
        }
    }
}

/// `runArgs` split into options, or the refusal of a word docker would
/// read otherwise than as written (module doc).
pub fn run_args(args: &[String]) -> Result<Vec<RunOption>, String> {
    let mut out = Vec::new();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let refuse = |why: &str| Err(format!("runArgs {}: {why}", crate::text::quote(word)));
        if word == "--" || word == "-" || !word.starts_with('-') {
            return refuse(
                "is not an option, and no option before it takes it as a value: docker would \
                 read it as the image to run and what follows as its command",
            );
        }
        if let Some(long) = word.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_owned())),
                None => (long, None),
            };
            let name = match name {
                "net" => "network",
                "net-alias" => "network-alias",
                "dns-opt" => "dns-option",
                other => other,
            };
            let takes = WITH_VALUE.contains(&name);
            let known = takes || FLAGS.contains(&name);
            let value = match inline {
                Some(v) => Some(v),
                None if takes => match words.next() {
                    Some(v) => Some(v.clone()),
                    None => return refuse("needs a value, and it is the last word"),
                },
                None if !known
                    && words
                        .as_slice()
                        .first()
                        .is_some_and(|n| !n.starts_with('-')) =>
                {
                    return refuse(
                        "is an option this host does not know, followed by a word that could \
                         be its value or the image; write it --name=value",
                    );
                }
                None => None,
            };
            out.push(RunOption {
                name: name.to_owned(),
                value,
                known,
            });
            continue;
        }
        // Short options, possibly several: `-it`, `-e=A=1`, `-eA=1`, `-v x`.
        let cluster = &word[1..];
        for (i, c) in cluster.char_indices() {
            let Some(&(_, long, takes)) = SHORT.iter().find(|(s, _, _)| *s == c) else {
                return refuse(&format!("-{c} is a short option this host does not know"));
            };
            if !takes {
                out.push(RunOption {
                    name: long.to_owned(),
                    value: None,
                    known: true,
                });
                continue;
            }
            let rest = &cluster[i + c.len_utf8()..];
            let rest = rest.strip_prefix('=').unwrap_or(rest);
            let value = if rest.is_empty() {
                match words.next() {
                    Some(v) => v.clone(),
                    None => return refuse("needs a value, and it is the last word"),
                }
            } else {
                rest.to_owned()
            };
            out.push(RunOption {
                name: long.to_owned(),
                value: Some(value),
                known: true,
            });
            break;
        }
    }
    Ok(out)
}

/// `build.options`: a bare word must follow an option without `=`.
pub fn build_options(args: &[String]) -> Result<(), String> {
    let mut after_option = false;
    for word in args {
        if word.starts_with('-') && word != "-" && word != "--" {
            after_option = !word.contains('=') && word.starts_with("--");
        } else if after_option {
            after_option = false;
        } else {
            return Err(format!(
                "build.options {}: is not an option, and no option before it takes it as a \
                 value: docker build would read it as the build context",
                crate::text::quote(word)
            ));
        }
    }
    Ok(())
}

/// What a bind or volume source is to the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Inside the repository the person registered.
    Inside,
    /// Elsewhere on the host.
    Outside,
    /// A named volume, not a host path.
    Volume,
}

/// What `option` grants, in a sentence, and whether it reaches the host
/// (beyond an ordinary container's isolation). `source` says what a bind
/// source is.
pub fn grant(option: &RunOption, source: &dyn Fn(&str) -> Source) -> (String, bool) {
    let v = option.value.as_deref().unwrap_or("");
    let host_ns = |what: &str| {
        if v == "host" {
            (format!("shares the host's {what}"), true)
        } else {
            (format!("{what}: {v}"), false)
        }
    };
    match option.name.as_str() {
        "privileged" if option.value.as_deref().is_none_or(|v| v != "false") => {
            (PRIVILEGED.into(), true)
        }
        "cap-add" => (
            if v.eq_ignore_ascii_case("all") {
                "adds every Linux capability".into()
            } else {
                format!("adds the Linux capability {v}")
            },
            true,
        ),
        "cap-drop" => (format!("drops the capability {v}"), false),
        "device" => (format!("the host device {v}"), true),
        "device-cgroup-rule" => (format!("access to host devices by rule {v}"), true),
        "gpus" => (format!("the host's GPUs ({v})"), true),
        "security-opt" => {
            let loosened = v.contains("unconfined") || v == "label=disable" || v == "label:disable";
            (format!("security option {v}"), loosened)
        }
        "pid" => host_ns("process namespace (sees and signals every host process)"),
        "network" => host_ns("network namespace (the host's interfaces and ports)"),
        "ipc" => host_ns("IPC namespace"),
        "uts" => host_ns("UTS namespace (its host name)"),
        "userns" => host_ns("user namespace"),
        "cgroupns" => host_ns("cgroup namespace"),
        "cgroup-parent" => (format!("runs under the host cgroup {v}"), true),
        "runtime" => (format!("runs with the OCI runtime {v}"), true),
        "volume" => {
            let (src, rest) = v.split_once(':').unwrap_or((v, ""));
            bind(src, rest, source)
        }
        "mount" => {
            let spec = mount_spec(v);
            match spec.kind.as_deref() {
                Some("bind") | None if spec.source.is_some() => {
                    let src = spec.source.clone().unwrap_or_default();
                    let target = spec.target.clone().unwrap_or_default();
                    let ro = if spec.readonly { ":ro" } else { "" };
                    bind(&src, &format!("{target}{ro}"), source)
                }
                _ => (format!("mounts {v}"), false),
            }
        }
        "volumes-from" => (format!("the volumes of container {v}"), false),
        "env" if !v.contains('=') => (
            format!("copies the host's environment variable {v} into the container"),
            true,
        ),
        "env" => (format!("sets {v}"), false),
        "env-file" | "label-file" => (
            format!("reads the host file {v}"),
            source(v) == Source::Outside,
        ),
        "cidfile" => (
            format!("writes the host file {v}"),
            source(v) == Source::Outside,
        ),
        "publish" => (
            format!("publishes a port on the host's network interfaces ({v})"),
            true,
        ),
        "publish-all" => (
            "publishes every exposed port on the host's interfaces".into(),
            true,
        ),
        "user" => (format!("runs as user {v}"), false),
        "group-add" => (format!("joins the group {v}"), false),
        "entrypoint" => (format!("replaces the entrypoint with {v}"), false),
        _ if !option.known => (
            format!(
                "{}: an option this summary does not explain (see `docker run --help`)",
                option.shown()
            ),
            true,
        ),
        _ => (option.shown(), false),
    }
}

fn bind(src: &str, target: &str, source: &dyn Fn(&str) -> Source) -> (String, bool) {
    let mut text = String::new();
    match source(src) {
        Source::Volume => {
            let _ = write!(text, "the volume {src} at {target}");
            (text, false)
        }
        Source::Inside => {
            let _ = write!(text, "binds {src} (inside the repository) at {target}");
            (text, false)
        }
        Source::Outside => {
            let root = if src.trim_end_matches('/').is_empty() {
                " — the host's whole filesystem"
            } else {
                ""
            };
            let _ = write!(
                text,
                "binds the host's {src} (OUTSIDE the repository{root}) at {target}"
            );
            (text, true)
        }
    }
}

/// A `--mount` (or `mounts`, `workspaceMount`) specification's parts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MountSpec {
    pub kind: Option<String>,
    pub source: Option<String>,
    pub target: Option<String>,
    pub readonly: bool,
}

/// `type=bind,source=/x,target=/y,readonly` (also `src`, `dst`,
/// `destination`, `ro`; a part holding a comma may be quoted).
pub fn mount_spec(text: &str) -> MountSpec {
    let mut spec = MountSpec::default();
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    for c in text.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => parts.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    parts.push(current);
    for part in parts {
        let (key, value) = part.split_once('=').unwrap_or((&part, ""));
        match key.trim() {
            "type" => spec.kind = Some(value.to_owned()),
            "source" | "src" => spec.source = Some(value.to_owned()),
            "target" | "dst" | "destination" => spec.target = Some(value.to_owned()),
            "readonly" | "ro" => {
                spec.readonly = value.is_empty() || value == "true" || value == "1"
            }
            _ => {}
        }
    }
    spec
}

#[cfg(test)]
mod tests;
