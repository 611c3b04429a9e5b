//! Which machine this is: a resource's location is a path on the machine
//! that registered it, and a registry shared by several machines (the
//! PostgreSQL backend) records it, so that handlers, sandboxes and
//! discovery only ever run where the path means what it meant.
//!
//! The id is stable across reboots and renames: the OS's machine id
//! (`/etc/machine-id`, systemd's and dbus's), else one generated once and
//! kept in the home (`<home>/machine-id`). The host name is only for
//! messages.

use std::path::Path;

/// This machine, as the registry records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Machine {
    pub id: String,
    pub hostname: String,
}

impl Machine {
    /// Detect this machine; `home` keeps a generated id when the OS has
    /// none.
    pub fn detect(home: &Path) -> Self {
        let id = ["/etc/machine-id", "/var/lib/dbus/machine-id"]
            .iter()
            .find_map(|path| read_id(Path::new(path)))
            .unwrap_or_else(|| home_id(home));
        Self {
            id,
            hostname: hostname(),
        }
    }

    /// A machine with this id (embedders, tests, containers that share an
    /// OS machine id but not a filesystem).
    pub fn with_id(id: &str) -> Self {
        Self {
            id: id.to_owned(),
            hostname: hostname(),
        }
    }

    /// How messages name it: `host (id 0123abcd…)`.
    pub fn label(id: &str, hostname: Option<&str>) -> String {
        let short: String = id.chars().take(12).collect();
        match hostname {
            Some(host) => format!("{host} (machine id {short})"),
            None => format!("machine id {short}"),
        }
    }
}

/// A machine id file's first line, if it holds a sensible id.
fn read_id(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let id = text.lines().next()?.trim();
    let sensible =
        (8..=128).contains(&id.len()) && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    sensible.then(|| id.to_ascii_lowercase())
}

/// The id kept in the home, created on first use (a ULID).
fn home_id(home: &Path) -> String {
    let path = home.join("machine-id");
    if let Some(id) = read_id(&path) {
        return id;
    }
    let id = ulid::Ulid::generate().to_string().to_ascii_lowercase();
    if let Err(e) = std::fs::create_dir_all(home).and_then(|()| std::fs::write(&path, &id)) {
        log::warn!(
            "could not keep this machine's id in {}: {e}",
            path.display()
        );
    }
    id
}

fn hostname() -> String {
    let name = rustix::system::uname();
    let name = name.nodename().to_string_lossy();
    let name: String = name.chars().filter(|c| !c.is_control()).take(255).collect();
    if name.is_empty() {
        "unknown".to_owned()
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_stable_and_a_generated_one_is_kept_in_the_home() {
        let home = tempfile::tempdir().unwrap();
        let first = home_id(home.path());
        assert_eq!(home_id(home.path()), first);
        assert!(!Machine::detect(home.path()).id.is_empty());
        assert!(!Machine::detect(home.path()).hostname.is_empty());
    }

    #[test]
    fn odd_id_files_are_not_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("id");
        std::fs::write(&path, "short").unwrap();
        assert_eq!(read_id(&path), None);
        std::fs::write(&path, "ABCDEF0123456789\nmore").unwrap();
        assert_eq!(read_id(&path).as_deref(), Some("abcdef0123456789"));
        std::fs::write(&path, "bad id with spaces\n").unwrap();
        assert_eq!(read_id(&path), None);
    }
}
