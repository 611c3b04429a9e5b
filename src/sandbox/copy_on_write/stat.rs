//! Stat records: the one home of when a file of the working copy may be
//! trusted, without reading it, to still hold what a snapshot holds.
//!
//! A checkpoint writes `checkpoints/<n>/stat`: the working copy's stat of
//! every entry as the checkpoint's walk saw it, before the copy (kind,
//! mode, size, device, inode, mtime and ctime in nanoseconds, path), and
//! the record's time. A file whose stat today equals its recorded stat is
//! the file that was copied into the snapshot, unchanged — the rule git
//! uses for its index — with one exception, git's "racy clean" one: a
//! change made in the same clock tick as the recorded mtime or ctime
//! leaves both as they were, so an entry whose recorded mtime or ctime is
//! not older than the record's time minus [`RACY_MARGIN_NS`] proves
//! nothing and its bytes must be compared.
//!
//! The record's time is the filesystem's own clock, not the process's:
//! the mtime of the checkpoint's `<n>.tmp` directory, created just before
//! the walk. File times come from the same clock (with the same
//! granularity, and on a network filesystem from the same server), and a
//! time taken before the walk can only make more entries racy, never
//! fewer. With one monotonic clock git's own rule (`>=` the record's time)
//! is sound; the margin (10 ms, a few kernel timer ticks) covers small
//! steps of that clock. Filesystems coarser than that (FAT's 2 s) round
//! the record's time and the files' alike, which `>=` already covers.
//!
//! The margin has a price: a file written less than 10 ms before a
//! checkpoint is compared by the next rollback to it and copied, not
//! linked, by the next checkpoint. A rollback pays it once: a successful
//! one refreshes the record, as git refreshes its index (`rollback.rs`).
//!
//! The ctime is what makes the rule hold: a change to a file's bytes or
//! mode always sets it to the present and nobody can set it back
//! (`touch -r` restores an mtime, not a ctime). The device and inode
//! catch a file replaced by another (a rename over it, a rollback's
//! copy). A record is text, one line per entry after a header and a time
//! line, path last (so it may hold spaces); anything else is refused as a
//! damaged checkpoint, never guessed at.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use super::tree::{Kind, io_err, is_plain_relative};
use crate::sandbox::SandboxError;
use crate::sandbox::fs_at::Meta;

/// How close to the record's time a recorded mtime or ctime makes an
/// entry racily clean.
pub(super) const RACY_MARGIN_NS: i128 = 10_000_000;

const HEADER: &str = "agents copy_on_write stat 1";

/// What the checkpoint's walk saw of one entry. A symlink's mode is 0,
/// as in a manifest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stat {
    pub kind: Kind,
    pub mode: u32,
    pub size: u64,
    pub dev: u64,
    pub ino: u64,
    pub mtime_ns: i128,
    pub ctime_ns: i128,
}

impl Stat {
    pub(super) fn of(kind: Kind, meta: &Meta) -> Stat {
        Stat {
            kind,
            mode: if kind == Kind::Symlink { 0 } else { meta.mode },
            size: meta.size,
            dev: meta.dev,
            ino: meta.ino,
            mtime_ns: meta.mtime_ns,
            ctime_ns: meta.ctime_ns,
        }
    }
}

/// What a record says about a file of the working copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Verdict {
    /// Its stat is the recorded one and not racy: it holds what the
    /// snapshot holds.
    Unchanged,
    /// Its stat is the recorded one, but racily clean: compare the bytes.
    Racy,
    /// Not recorded, not a file, or its stat differs.
    Changed,
}

/// A checkpoint's stat record: every entry by `/`-separated path, and the
/// filesystem's time when the walk began.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Record {
    pub time_ns: i128,
    pub entries: BTreeMap<String, Stat>,
}

impl Record {
    /// Does the working copy's file at `rel`, whose stat is now `now`,
    /// still hold what was copied?
    pub(super) fn verdict(&self, rel: &str, now: &Stat) -> Verdict {
        match self.entries.get(rel) {
            Some(was) if now.kind == Kind::File && was == now => {
                let since = self.time_ns - RACY_MARGIN_NS;
                if was.mtime_ns >= since || was.ctime_ns >= since {
                    Verdict::Racy
                } else {
                    Verdict::Unchanged
                }
            }
            _ => Verdict::Changed,
        }
    }

    /// The record at `path`; `None` when there is none (it was removed:
    /// then no file is vouched for).
    pub(super) fn read(path: &Path) -> Result<Option<Record>, SandboxError> {
        match fs::read_to_string(path) {
            Ok(text) => Record::parse(&text, path).map(Some),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_err("read", path)(e)),
        }
    }

    pub(super) fn write(&self, path: &Path) -> Result<(), SandboxError> {
        fs::write(path, self.render()).map_err(io_err("write", path))
    }

    /// `kind mode size dev ino mtime_ns ctime_ns path`, one line per entry
    /// after the header and `time <ns>`; mode in octal.
    pub(super) fn render(&self) -> String {
        let mut text = format!("{HEADER}\ntime {}\n", self.time_ns);
        for (path, s) in &self.entries {
            text.push_str(&format!(
                "{} {:o} {} {} {} {} {} {path}\n",
                s.kind.letter(),
                s.mode,
                s.size,
                s.dev,
                s.ino,
                s.mtime_ns,
                s.ctime_ns
            ));
        }
        text
    }

    /// Read back what [`Record::render`] wrote; anything else is refused.
    pub(super) fn parse(text: &str, source: &Path) -> Result<Record, SandboxError> {
        let bad = |line: &str| {
            SandboxError::Unsuitable(format!(
                "{} is not a copy_on_write stat record (at {line:?}); the checkpoint is damaged: \
                 remove that file to roll back to it by a full copy, or destroy the sandbox",
                source.display()
            ))
        };
        let mut lines = text.lines();
        if lines.next() != Some(HEADER) {
            return Err(bad("header"));
        }
        let time_line = lines.next().unwrap_or_default();
        let time_ns = time_line
            .strip_prefix("time ")
            .and_then(|t| t.parse().ok())
            .ok_or_else(|| bad(time_line))?;
        let mut entries = BTreeMap::new();
        for line in lines {
            let fields: Vec<&str> = line.splitn(8, ' ').collect();
            let [kind, mode, size, dev, ino, mtime, ctime, path] = fields[..] else {
                return Err(bad(line));
            };
            let stat = (|| {
                Some(Stat {
                    kind: Kind::from_letter(kind)?,
                    mode: u32::from_str_radix(mode, 8).ok()?,
                    size: size.parse().ok()?,
                    dev: dev.parse().ok()?,
                    ino: ino.parse().ok()?,
                    mtime_ns: mtime.parse().ok()?,
                    ctime_ns: ctime.parse().ok()?,
                })
            })()
            .ok_or_else(|| bad(line))?;
            if !is_plain_relative(path) {
                return Err(bad(line));
            }
            entries.insert(path.to_owned(), stat);
        }
        Ok(Record { time_ns, entries })
    }
}

/// The filesystem's clock: the mtime of `path`, an entry the caller has
/// just created (so its mtime is the time of its creation).
pub(super) fn clock(path: &Path) -> Result<i128, SandboxError> {
    let meta = crate::sandbox::fs_at::lstat(path).map_err(io_err("inspect", path))?;
    Ok(meta.mtime_ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(mtime_ns: i128, ctime_ns: i128) -> Stat {
        Stat {
            kind: Kind::File,
            mode: 0o644,
            size: 5,
            dev: 1,
            ino: 2,
            mtime_ns,
            ctime_ns,
        }
    }

    const T: i128 = 1_700_000_000_000_000_000;

    fn record(stat: Stat) -> Record {
        Record {
            time_ns: T,
            entries: [("a b/c".to_owned(), stat)].into(),
        }
    }

    #[test]
    fn a_file_changed_since_long_before_the_record_is_trusted_unchanged() {
        let old = file(T - 10 * RACY_MARGIN_NS, T - 10 * RACY_MARGIN_NS);
        assert_eq!(record(old).verdict("a b/c", &old), Verdict::Unchanged);
    }

    #[test]
    fn a_file_changed_within_the_margin_of_the_record_is_racy() {
        for stat in [
            file(T - RACY_MARGIN_NS, T - 10 * RACY_MARGIN_NS),
            file(T - 10 * RACY_MARGIN_NS, T - RACY_MARGIN_NS + 1),
            file(T + 1, T + 1),
        ] {
            assert_eq!(record(stat).verdict("a b/c", &stat), Verdict::Racy);
        }
    }

    #[test]
    fn any_difference_in_the_stat_or_path_is_a_change() {
        let was = file(T - 10 * RACY_MARGIN_NS, T - 10 * RACY_MARGIN_NS);
        let r = record(was);
        for now in [
            Stat { ino: 3, ..was },
            Stat { dev: 9, ..was },
            Stat { size: 6, ..was },
            Stat { mode: 0o755, ..was },
            Stat {
                mtime_ns: was.mtime_ns + 1,
                ..was
            },
            Stat {
                ctime_ns: was.ctime_ns + 1,
                ..was
            },
        ] {
            assert_eq!(r.verdict("a b/c", &now), Verdict::Changed, "{now:?}");
        }
        assert_eq!(r.verdict("a b/d", &was), Verdict::Changed);
        let dir = Stat {
            kind: Kind::Dir,
            ..was
        };
        assert_eq!(record(dir).verdict("a b/c", &dir), Verdict::Changed);
    }

    #[test]
    fn a_record_reads_back_what_it_wrote_and_refuses_anything_else() {
        let r = record(file(-5, T));
        let text = r.render();
        let source = Path::new("/area/checkpoints/1/stat");
        assert_eq!(Record::parse(&text, source).unwrap(), r);
        for damaged in [
            text.replace(HEADER, "something else"),
            text.replace("time ", "when "),
            text.replace("a b/c", "a b/../c"),
            text.replace("f 644", "x 644"),
            text.replace(" 5 1 2 ", " five 1 2 "),
        ] {
            let err = Record::parse(&damaged, source).unwrap_err();
            assert!(
                err.to_string()
                    .contains("/area/checkpoints/1/stat is not a copy_on_write stat record"),
                "{err}"
            );
            assert!(err.to_string().contains("remove that file"), "{err}");
        }
    }
}
