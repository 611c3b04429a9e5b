//! What the stat record decides: which files a rollback trusts without
//! reading, and which a checkpoint shares with the one before by a hard
//! link — and that no snapshot is ever written through one.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use super::super::stat::{RACY_MARGIN_NS, Record, Stat};
use super::super::tree::Kind;
use super::{CopyOnWrite, change_everything, chmod, fixture, state, write};
use crate::sandbox::{SandboxPlace, Strategy};

fn record_path(place: &SandboxPlace, n: u32) -> std::path::PathBuf {
    place.area.join(format!("checkpoints/{n}/stat"))
}

/// Rewrite checkpoint `n`'s record with `change`.
fn edit_record(place: &SandboxPlace, n: u32, change: impl FnOnce(&mut Record)) {
    let path = record_path(place, n);
    let mut record = Record::read(&path).unwrap().unwrap();
    change(&mut record);
    record.write(&path).unwrap();
}

/// As if checkpoint `n` had been taken a while after the files it holds
/// were last written (an agent's work takes seconds): none is racy. The
/// time is put past the newest entry, not past the record's own time: on a
/// loaded machine a file written after the checkpoint (a forged entry) may
/// be newer than the record by more than any fixed step.
fn settle(place: &SandboxPlace, n: u32) {
    edit_record(place, n, |r| {
        let newest = r
            .entries
            .values()
            .map(|s| s.mtime_ns.max(s.ctime_ns))
            .max()
            .unwrap_or(r.time_ns);
        r.time_ns = r.time_ns.max(newest) + 5 * RACY_MARGIN_NS;
    });
}

fn snapshot_file(place: &SandboxPlace, n: u32, rel: &str) -> fs::Metadata {
    fs::symlink_metadata(place.area.join(format!("checkpoints/{n}/tree/{rel}"))).unwrap()
}

fn stat_now(path: &Path) -> Stat {
    Stat::of(Kind::File, &crate::sandbox::fs_at::lstat(path).unwrap())
}

#[test]
fn a_checkpoint_records_the_stat_of_every_entry_before_it_was_copied() {
    let f = fixture();
    let work = &f.place.workdir;
    CopyOnWrite.checkpoint(&f.place, "cp").unwrap();
    let record = Record::read(&record_path(&f.place, 1)).unwrap().unwrap();
    let paths: Vec<&String> = record.entries.keys().collect();
    let expected: Vec<String> = state(work).into_keys().collect();
    assert_eq!(paths, expected.iter().collect::<Vec<_>>());
    assert_eq!(record.entries["README"], stat_now(&work.join("README")));
    assert_eq!(record.entries["link"].kind, Kind::Symlink);
    assert_eq!(record.entries["src/lib"].kind, Kind::Dir);
    let copied = snapshot_file(&f.place, 1, "README");
    let copied_ns = i128::from(copied.mtime()) * 1_000_000_000 + i128::from(copied.mtime_nsec());
    assert!(
        record.time_ns <= copied_ns,
        "the record's time is taken before the copy"
    );
}

#[test]
fn a_racily_clean_file_is_compared_byte_for_byte() {
    let f = fixture();
    let work = &f.place.workdir;
    let cp = CopyOnWrite.checkpoint(&f.place, "cp").unwrap();
    // The racy case made certain: the overwrite is given the very stat
    // the record holds, as a change within the same clock tick would.
    fs::write(work.join("README"), b"HELLO\n").unwrap();
    let now = stat_now(&work.join("README"));
    edit_record(&f.place, 1, |r| {
        r.entries.insert("README".into(), now);
    });
    CopyOnWrite.rollback(&f.place, &cp).unwrap();
    assert_eq!(fs::read(work.join("README")).unwrap(), b"hello\n");
}

#[test]
fn a_file_whose_stat_matches_a_settled_record_is_trusted_without_reading_it() {
    let f = fixture();
    let work = &f.place.workdir;
    let cp = CopyOnWrite.checkpoint(&f.place, "cp").unwrap();
    // The same forged stat, but the record is long past the change: the
    // rule trusts it, which shows that rollback does not read such files.
    std::thread::sleep(std::time::Duration::from_millis(80));
    fs::write(work.join("README"), b"HELLO\n").unwrap();
    let now = stat_now(&work.join("README"));
    edit_record(&f.place, 1, |r| {
        r.entries.insert("README".into(), now);
    });
    settle(&f.place, 1);
    CopyOnWrite.rollback(&f.place, &cp).unwrap();
    assert_eq!(fs::read(work.join("README")).unwrap(), b"HELLO\n");
}

#[test]
fn a_checkpoint_links_files_unchanged_since_the_previous_one_and_copies_the_rest() {
    let f = fixture();
    let work = &f.place.workdir;
    CopyOnWrite.checkpoint(&f.place, "first").unwrap();
    settle(&f.place, 1);
    write(work, "README", b"changed");
    chmod(work, "run.sh", 0o755);
    write(work, "new.txt", b"new");
    CopyOnWrite.checkpoint(&f.place, "second").unwrap();
    let (first, second) = (
        |rel| snapshot_file(&f.place, 1, rel),
        |rel| snapshot_file(&f.place, 2, rel),
    );
    for unchanged in ["src/lib/deep.rs", "data.bin", "gone.txt"] {
        assert_eq!(
            first(unchanged).ino(),
            second(unchanged).ino(),
            "{unchanged} is linked"
        );
    }
    for changed in ["README", "run.sh"] {
        assert_ne!(
            first(changed).ino(),
            second(changed).ino(),
            "{changed} is copied"
        );
    }
    assert_eq!(
        first("run.sh").mode() & 0o7777,
        0o644,
        "the older snapshot keeps its mode"
    );
    assert_eq!(second("run.sh").mode() & 0o7777, 0o755);
    assert_eq!(state(&f.place.area.join("checkpoints/2/tree")), state(work));
}

#[test]
fn files_racily_clean_in_the_previous_checkpoint_are_copied_not_linked() {
    let f = fixture();
    CopyOnWrite.checkpoint(&f.place, "first").unwrap();
    edit_record(&f.place, 1, |r| {
        let oldest = r.entries.values().map(|s| s.ctime_ns).min().unwrap();
        r.time_ns = oldest + RACY_MARGIN_NS;
    });
    CopyOnWrite.checkpoint(&f.place, "second").unwrap();
    let (a, b) = (
        snapshot_file(&f.place, 1, "src/lib/deep.rs"),
        snapshot_file(&f.place, 2, "src/lib/deep.rs"),
    );
    assert_ne!(a.ino(), b.ino());
}

#[test]
fn writing_into_the_working_copy_after_a_rollback_never_changes_a_snapshot() {
    let f = fixture();
    let work = &f.place.workdir;
    change_everything(work);
    let first = CopyOnWrite.checkpoint(&f.place, "first").unwrap();
    settle(&f.place, 1);
    let at_first = state(work);
    write(work, "README", b"second state");
    let second = CopyOnWrite.checkpoint(&f.place, "second").unwrap();
    settle(&f.place, 2);
    let at_second = state(work);
    for cp in [&first, &second] {
        CopyOnWrite.rollback(&f.place, cp).unwrap();
        // Write every file in place (no new inode): a working file that
        // shared its inode with a snapshot would change the snapshot.
        for (rel, (kind, _, _)) in state(work) {
            if kind == 'f' {
                let path = work.join(&rel);
                chmod(work, &rel, 0o644);
                let mut file = fs::OpenOptions::new().write(true).open(&path).unwrap();
                std::io::Write::write_all(&mut file, b"SCRIBBLE").unwrap();
            }
        }
    }
    CopyOnWrite.rollback(&f.place, &second).unwrap();
    assert_eq!(state(work), at_second);
    CopyOnWrite.rollback(&f.place, &first).unwrap();
    assert_eq!(state(work), at_first);
}
