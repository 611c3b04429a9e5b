//! Atomic file writes: the one home of how the plugin store, the compile
//! cache, the seals and the signing keys replace a file so that readers
//! see the old file or the whole new one, never half of it — and of
//! reclaiming the temp files a killed writer left behind.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Write `bytes` to `path` through a temp file in the same directory and a
/// rename, so readers see the old file or the whole new one. `durable`
/// also syncs the data before the rename. Temp files that killed
/// processes left in the directory go first ([`sweep_stale_temps`]).
pub(crate) fn write_atomic(path: &Path, bytes: &[u8], durable: bool) -> std::io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    sweep_stale_temps(dir);
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = dir.join(format!(
        ".{name}.tmp-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        // Owner-only whatever the umask: a cache entry or plugin file
        // writable by its group is refused on load (`cache::load_entry`).
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)?;
        // Held until the file is renamed and closed: a sweep leaves a
        // temp file alone while its writer lives (`sweep_stale_temps`).
        // Best effort: where the filesystem has no locks, a sweep cannot
        // take one either, so it removes nothing.
        let _ = file.lock();
        file.write_all(bytes)?;
        if durable {
            file.sync_all()?;
        }
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Remove the temp files (`.<name>.tmp-<pid>-<n>`, see [`write_atomic`])
/// in `dir` whose writer is gone: what a kill between writing one and
/// renaming it into place leaves (a whole component or compiled form,
/// never loaded — no store name matches — but never reclaimed either).
/// Gone means both: its pid answers "no such process" (`ESRCH`), and no
/// one holds the lock a writer keeps on its temp file. The pid alone could
/// be a live writer in another PID namespace sharing the home; the lock
/// alone could be taken in the instant between a writer creating its file
/// and locking it. Best effort: errors leave a file where it is.
fn sweep_stale_temps(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|n| n.starts_with('.'))
            .and_then(|n| n.rsplit_once(".tmp-"))
            .and_then(|(_, rest)| rest.split_once('-'))
            .and_then(|(pid, _)| pid.parse::<i32>().ok())
            .and_then(rustix::process::Pid::from_raw)
        else {
            continue;
        };
        if rustix::process::test_kill_process(pid) != Err(rustix::io::Errno::SRCH) {
            continue;
        }
        let Ok(file) = std::fs::File::open(entry.path()) else {
            continue;
        };
        if file.try_lock().is_ok() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}
