//! What the containment tests share: a canary directory outside every
//! sandbox that must stay exactly as it was (contents, modes, times) and
//! never even be opened, the agent's atomic swap of two entries, and a
//! bind mount made for a test.

use std::collections::BTreeMap;
use std::mem::MaybeUninit;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use rustix::fd::OwnedFd;
use rustix::fs::inotify;

/// A directory outside the sandbox, with a secret file (0600), a
/// subdirectory holding a file, and a watch on both that records every
/// open of anything in them.
#[derive(Debug)]
pub(in crate::sandbox) struct Outside {
    pub dir: PathBuf,
    /// The 0600 file whose bytes must never reach a sandbox or an original.
    pub secret: PathBuf,
    before: BTreeMap<String, Seen>,
    watch: OwnedFd,
}

/// An entry's mode, times (mtime, ctime) and bytes.
type Seen = (u32, [i64; 4], Vec<u8>);

pub(in crate::sandbox) const SECRET: &[u8] = b"TOP SECRET: outside every sandbox";

impl Outside {
    /// Make it in `parent`; `sub` names its subdirectory (so a swapped-in
    /// link to it looks like the directory it replaces).
    pub(in crate::sandbox) fn new(parent: &Path, sub: &str) -> Outside {
        let dir = parent.join("outside");
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        let secret = dir.join("secret.txt");
        std::fs::write(&secret, SECRET).unwrap();
        std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
        for name in ["deep.rs", "README", "nested.txt", "inside"] {
            std::fs::write(dir.join(sub).join(name), SECRET).unwrap();
        }
        std::fs::set_permissions(dir.join(sub), std::fs::Permissions::from_mode(0o755)).unwrap();
        let before = Self::state(&dir);
        let watch =
            inotify::init(inotify::CreateFlags::NONBLOCK | inotify::CreateFlags::CLOEXEC).unwrap();
        let flags = inotify::WatchFlags::OPEN
            | inotify::WatchFlags::MODIFY
            | inotify::WatchFlags::ATTRIB
            | inotify::WatchFlags::CREATE
            | inotify::WatchFlags::DELETE
            | inotify::WatchFlags::MOVED_FROM
            | inotify::WatchFlags::MOVED_TO;
        inotify::add_watch(&watch, &dir, flags).unwrap();
        inotify::add_watch(&watch, dir.join(sub), flags).unwrap();
        Outside {
            dir,
            secret,
            before,
            watch,
        }
    }

    fn state(dir: &Path) -> BTreeMap<String, Seen> {
        let mut out = BTreeMap::new();
        let mut stack = vec![PathBuf::new()];
        while let Some(rel) = stack.pop() {
            let path = dir.join(&rel);
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let bytes = if meta.is_file() {
                std::fs::read(&path).unwrap()
            } else {
                Vec::new()
            };
            if meta.is_dir() {
                for e in std::fs::read_dir(&path).unwrap() {
                    stack.push(rel.join(e.unwrap().file_name()));
                }
            }
            let key = rel.to_string_lossy().into_owned();
            let times = [
                meta.mtime(),
                meta.mtime_nsec(),
                meta.ctime(),
                meta.ctime_nsec(),
            ];
            out.insert(key, (meta.mode(), times, bytes));
        }
        out
    }

    /// Assert that nothing in it changed (entries, bytes, modes, times)
    /// and that nothing in it was opened, written or moved since it was
    /// made (or since the last time this was asked).
    pub(in crate::sandbox) fn assert_untouched(&self) {
        let seen = self.events();
        assert!(seen.is_empty(), "the outside was touched: {seen:?}");
        assert_eq!(Self::state(&self.dir), self.before, "the outside changed");
        // What reading it just now caused is not the code under test's.
        self.events();
    }

    fn events(&self) -> Vec<String> {
        let mut buf = [MaybeUninit::uninit(); 4096];
        let mut events = inotify::Reader::new(&self.watch, &mut buf);
        let mut seen = Vec::new();
        loop {
            match events.next() {
                Ok(e) => seen.push(format!("{:?} {:?}", e.events(), e.file_name())),
                Err(rustix::io::Errno::AGAIN) => return seen,
                Err(e) => panic!("reading the watch: {e}"),
            }
        }
    }
}

/// Exchange `a` and `b` atomically, as an agent racing the host would
/// (`renameat2(RENAME_EXCHANGE)`).
pub(in crate::sandbox) fn exchange(a: &Path, b: &Path) {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).unwrap();
}

/// Put a symlink to `target` in place of `entry` in one atomic step (the
/// entry ends up at `<entry>.swapped`).
pub(in crate::sandbox) fn swap_for_link(entry: &Path, target: &Path) {
    let aside = entry.with_extension("swapped");
    std::os::unix::fs::symlink(target, &aside).unwrap();
    exchange(entry, &aside);
}

/// A bind mount for a test, lazily unmounted when dropped.
#[derive(Debug)]
pub(in crate::sandbox) struct Bound(pub PathBuf);

impl Drop for Bound {
    fn drop(&mut self) {
        let _ = rustix::mount::unmount(&self.0, rustix::mount::UnmountFlags::DETACH);
    }
}

/// Bind-mount `dir` on `on` (made if missing), when this process may
/// mount (root); else `None`, and the test says it skipped.
pub(in crate::sandbox) fn bind(dir: &Path, on: &Path, test: &str) -> Option<Bound> {
    std::fs::create_dir_all(on).unwrap();
    match rustix::mount::mount_bind(dir, on) {
        Ok(()) => Some(Bound(on.to_path_buf())),
        Err(e) => {
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "\n*** SKIPPED {test}: cannot bind-mount here ({e}; needs root) ***"
            );
            None
        }
    }
}
