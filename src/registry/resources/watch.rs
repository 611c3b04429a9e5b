//! Keeping the registry in step while something runs: filesystem
//! notifications on the registered locations (the `notify` crate: inotify
//! on Linux, FSEvents on macOS, kqueue on the BSDs), debounced, turned
//! into the same [`Registry::refresh`] for the resources they touched.
//!
//! Git changes need nothing apart: a checkout's `.git` lies inside its
//! location, and a new commit, branch, tag or stash writes under
//! `.git/refs`, `.git/packed-refs` or `.git/logs`, which the refresh then
//! sees through the repository's refs. Writes under `.git/objects` alone
//! (a fetch's objects, a gc) are not a change of anything registered and
//! are ignored, as are reads and the registry's own files.

use crate::model::ResourceKey;
use crate::registry::ResourcesError;
use crate::registry::resources::refresh::{RefreshProgress, RefreshReport};
use crate::registry::{Registry, RegistryError};
use notify::{EventKind, RecursiveMode, Watcher};
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How a watch behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WatchOptions {
    /// Quiet time after the last notification before refreshing (a
    /// checkout, a build or an editor's save comes as a burst).
    pub debounce: Duration,
    /// The longest a burst may delay a refresh.
    pub max_delay: Duration,
    /// How often the set of registered locations is read again (new
    /// registrations are watched, removed ones dropped) when watching
    /// everything.
    pub rescan: Duration,
}

impl Default for WatchOptions {
    fn default() -> Self {
        Self {
            debounce: Duration::from_millis(300),
            max_delay: Duration::from_secs(3),
            rescan: Duration::from_secs(5),
        }
    }
}

/// What a watch tells its caller.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum WatchEvent {
    /// These locations are watched now (at the start, and when the set
    /// changes).
    Watching { locations: Vec<String> },
    /// A refresh is under way.
    Progress { checked: usize, changed: usize },
    /// Notifications on `paths` (at most 20 named; `more` counts the
    /// rest) led to a refresh of `resources`, which did `report`.
    Refreshed {
        paths: Vec<String>,
        more: usize,
        resources: Vec<String>,
        report: RefreshReport,
    },
    /// A location could not be watched (it vanished, or the system's
    /// limit on watches was reached); the others still are.
    Unwatched { location: String, reason: String },
}

/// Most paths named in one [`WatchEvent::Refreshed`].
const NAMED_PATHS: usize = 20;

impl Registry {
    /// Watch the locations of `keys` (or of every registered resource),
    /// and stop watching those no longer wanted.
    fn rewatch(
        &mut self,
        keys: &[ResourceKey],
        watcher: &mut dyn Watcher,
        watched: &mut HashMap<PathBuf, ResourceKey>,
        on_event: &mut dyn FnMut(WatchEvent),
    ) -> Result<(), RegistryError> {
        let rows = self
            .store
            .read(|r| crate::registry::lookup::rows_named(r, keys))?;
        // With roots, only what lies inside them is watched (a watch
        // refreshes what it sees change).
        let wanted: HashMap<PathBuf, ResourceKey> = rows
            .into_iter()
            .filter(|row| self.row_in_roots(row))
            .filter_map(|row| {
                let key = row.name.map_or(ResourceKey::Id(row.id), ResourceKey::Name);
                row.location.map(|l| (PathBuf::from(l), key))
            })
            .collect();
        let gone: Vec<PathBuf> = watched
            .keys()
            .filter(|p| !wanted.contains_key(*p))
            .cloned()
            .collect();
        let mut changed = !gone.is_empty();
        for path in gone {
            let _ = watcher.unwatch(&path);
            watched.remove(&path);
        }
        for (path, key) in wanted {
            if watched.contains_key(&path) {
                continue;
            }
            changed = true;
            match watcher.watch(&path, RecursiveMode::Recursive) {
                Ok(()) => {
                    watched.insert(path, key);
                }
                Err(e) => on_event(WatchEvent::Unwatched {
                    location: path.display().to_string(),
                    reason: e.to_string(),
                }),
            }
        }
        if changed {
            let mut locations: Vec<String> =
                watched.keys().map(|p| p.display().to_string()).collect();
            locations.sort();
            on_event(WatchEvent::Watching { locations });
        }
        Ok(())
    }

    /// The registry's own files, and git's object store, are not changes
    /// of anything registered.
    fn ignored(&self, path: &Path) -> bool {
        if self
            .home
            .as_deref()
            .is_some_and(|home| path.starts_with(home))
        {
            return true;
        }
        let mut parts = path.components().map(|c| c.as_os_str());
        while let Some(part) = parts.next() {
            if part == ".git" {
                return parts.next().is_some_and(|p| p == "objects");
            }
        }
        false
    }
}

/// Creations, changes and removals; not reads (refreshing reads files,
/// and must not trigger itself).
fn matters(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_) | EventKind::Any
    )
}

/// The watched resources whose location holds one of `paths`.
fn touched(watched: &HashMap<PathBuf, ResourceKey>, paths: &BTreeSet<PathBuf>) -> Vec<ResourceKey> {
    let mut keys: Vec<ResourceKey> = watched
        .iter()
        .filter(|(location, _)| paths.iter().any(|p| p.starts_with(location)))
        .map(|(_, key)| key.clone())
        .collect();
    keys.sort_by_key(ToString::to_string);
    keys
}

/// The work of [`Registry::watch`].
pub(crate) fn watch(
    reg: &mut Registry,
    keys: &[ResourceKey],
    options: WatchOptions,
    stop: &AtomicBool,
    on_event: &mut dyn FnMut(WatchEvent),
) -> Result<(), RegistryError> {
    let (tx, rx) = mpsc::channel();
    let mut watcher = notify::recommended_watcher(tx)
        .map_err(|e| RegistryError::Resources(ResourcesError::Watch(e.to_string())))?;
    let mut watched: HashMap<PathBuf, ResourceKey> = HashMap::new();
    let mut last_scan = Instant::now();
    reg.rewatch(keys, &mut watcher, &mut watched, on_event)?;
    let mut pending: BTreeSet<PathBuf> = BTreeSet::new();
    let mut first: Option<Instant> = None;
    let mut last: Option<Instant> = None;
    while !stop.load(Ordering::Relaxed) {
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(Ok(event)) => {
                if !matters(&event.kind) {
                    continue;
                }
                for path in event.paths {
                    if reg.ignored(&path) {
                        continue;
                    }
                    pending.insert(path);
                    let now = Instant::now();
                    first.get_or_insert(now);
                    last = Some(now);
                }
            }
            Ok(Err(e)) => log::warn!("watch: {e}"),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        let due = first.zip(last).is_some_and(|(first, last)| {
            last.elapsed() >= options.debounce || first.elapsed() >= options.max_delay
        });
        if due {
            let paths = std::mem::take(&mut pending);
            first = None;
            last = None;
            let touched: Vec<ResourceKey> = touched(&watched, &paths);
            if !touched.is_empty() {
                let report = super::refresh::refresh(
                    reg,
                    &touched,
                    Some(&mut |p: RefreshProgress| {
                        on_event(WatchEvent::Progress {
                            checked: p.checked,
                            changed: p.changed,
                        });
                        ControlFlow::Continue(())
                    }),
                )?;
                on_event(WatchEvent::Refreshed {
                    more: paths.len().saturating_sub(NAMED_PATHS),
                    paths: paths
                        .iter()
                        .take(NAMED_PATHS)
                        .map(|p| p.display().to_string())
                        .collect(),
                    resources: touched.iter().map(ToString::to_string).collect(),
                    report,
                });
            }
        }
        if keys.is_empty() && last_scan.elapsed() >= options.rescan && first.is_none() {
            last_scan = Instant::now();
            reg.rewatch(keys, &mut watcher, &mut watched, on_event)?;
        }
    }
    Ok(())
}
