//! The tree the sandbox benchmarks copy: the one home of its shape
//! (10,000 files, 100 directories of 100, ~200 MB, a few symlinks), of its
//! bytes (pseudo-random from a fixed seed: the same in every run and in
//! both the plain fixture and the git repository, and incompressible, so
//! no filesystem or git gets it cheaply), of the small change a benchmark
//! makes in a sandbox, and of the facts about the filesystem the figures
//! depend on.

use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;
use std::process::Command;

const DIRS: usize = 100;
const FILES_PER_DIR: usize = 100;
/// Every 250th file is large: 40 files of 1–5 MiB (~120 MiB); the other
/// 9,960 are 256 B – 16 KiB (~82 MiB).
const LARGE_EVERY: usize = 250;

/// Symlinks (path, target), never followed by anything measured: to a
/// file, to a sibling directory, across directories, dangling, absolute
/// and outside the tree, and at the root to a directory.
const SYMLINKS: [(&str, &str); 6] = [
    ("d00/latest.dat", "f01.dat"),
    ("d10/sibling", "../d11"),
    ("d20/elsewhere.dat", "../d21/f05.dat"),
    ("d30/dangling", "does-not-exist"),
    ("d40/outside", "/nonexistent/outside"),
    ("d50-link", "d50"),
];

/// xorshift64*: deterministic, so every fixture is the same bytes.
#[derive(Debug)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            let word = self.next().to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
    }
}

/// What [`make`] wrote.
#[derive(Debug)]
pub struct Stats {
    pub dirs: usize,
    pub files: usize,
    pub large: usize,
    pub symlinks: usize,
    pub bytes: u64,
}

fn file(d: usize, f: usize) -> String {
    format!("d{d:02}/f{f:02}.dat")
}

/// Write the fixture at `root` (which must not exist).
pub fn make(root: &Path) -> Stats {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut buf = Vec::new();
    let mut stats = Stats {
        dirs: DIRS,
        files: 0,
        large: 0,
        symlinks: SYMLINKS.len(),
        bytes: 0,
    };
    fs::create_dir(root).expect("fixture root");
    for d in 0..DIRS {
        fs::create_dir(root.join(format!("d{d:02}"))).expect("fixture dir");
        for f in 0..FILES_PER_DIR {
            let i = d * FILES_PER_DIR + f;
            let size = if i.is_multiple_of(LARGE_EVERY) {
                stats.large += 1;
                (1 << 20) + rng.below(4 << 20)
            } else {
                256 + rng.below(16 << 10)
            };
            buf.resize(size as usize, 0);
            rng.fill(&mut buf);
            let path = root.join(file(d, f));
            fs::write(&path, &buf).expect("fixture file");
            // A few executables, so that modes are part of what is copied.
            if i.is_multiple_of(97) {
                fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("mode");
            }
            stats.files += 1;
            stats.bytes += size;
        }
    }
    for (link, target) in SYMLINKS {
        symlink(target, root.join(link)).expect("fixture symlink");
    }
    stats
}

// The small change: 10 small files rewritten, 5 added, 5 deleted, spread
// over 20 directories (none of them a large file).
fn modified(k: usize) -> String {
    file(k * 10 + 1, 3)
}
fn added(k: usize) -> String {
    format!("d{:02}/new-{k}.dat", k * 10 + 7)
}
fn deleted(k: usize) -> String {
    file(k * 10 + 5, 7)
}

/// Make the small change in a working copy.
pub fn small_change(work: &Path) {
    let mut rng = Rng(42);
    let mut buf = vec![0u8; 4096];
    for k in 0..10 {
        rng.fill(&mut buf);
        fs::write(work.join(modified(k)), &buf).expect("modify");
    }
    for k in 0..5 {
        rng.fill(&mut buf);
        fs::write(work.join(added(k)), &buf).expect("add");
        fs::remove_file(work.join(deleted(k))).expect("delete");
    }
}

/// Check that a rollback undid the small change: a rollback that did
/// nothing would be fast and wrong.
pub fn assert_undone(work: &Path, original: &Path) {
    let read = |root: &Path, rel: &str| fs::read(root.join(rel)).expect("read after rollback");
    for k in 0..10 {
        let rel = modified(k);
        assert!(
            read(work, &rel) == read(original, &rel),
            "{rel} not restored"
        );
    }
    for k in 0..5 {
        let rel = added(k);
        assert!(!work.join(&rel).exists(), "{rel} still there");
        let rel = deleted(k);
        assert!(read(work, &rel) == read(original, &rel), "{rel} not back");
    }
}

/// `df`'s view of the filesystem `dir` is on: type, device, mount point.
pub fn filesystem(dir: &Path) -> String {
    let out = Command::new("df")
        .arg("--output=fstype,source,target")
        .arg(dir)
        .output()
        .expect("run df");
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().nth(1).unwrap_or("(df said nothing)");
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether `cp --reflink=always` can clone a file within `dir`: `Ok` or
/// cp's refusal.
pub fn reflinks(dir: &Path) -> Result<(), String> {
    let probe = dir.join("reflink-probe");
    let mut buf = vec![0u8; 64 << 10];
    Rng(7).fill(&mut buf);
    fs::write(&probe, &buf).expect("reflink probe");
    let out = Command::new("cp")
        .arg("--reflink=always")
        .arg(&probe)
        .arg(dir.join("reflink-probe-clone"))
        .output()
        .expect("run cp");
    let _ = fs::remove_file(&probe);
    let _ = fs::remove_file(dir.join("reflink-probe-clone"));
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

/// The first line of `program --version`.
pub fn version(program: &str) -> String {
    Command::new(program)
        .arg("--version")
        .output()
        .map(|o| {
            let text = String::from_utf8_lossy(&o.stdout);
            text.lines().next().unwrap_or("").to_string()
        })
        .unwrap_or_else(|e| format!("{program}: {e}"))
}
