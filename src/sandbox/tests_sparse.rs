//! Sparse files in a working copy: a file as long as
//! the filesystem allows (16 TiB where it can) with a few bytes of data at
//! both ends and in the middle costs what its data costs, for create,
//! checkpoint, diff, rollback and apply, in every strategy that copies or
//! hashes; every copy stays sparse and holds the same data.
//!
//! The operations run on a thread the test waits for at most
//! [`DEADLINE`]: before holes were skipped a digest of such a file hashed
//! 16 TiB of zeros (about an hour), so the test failed there instead of
//! hanging. The figure asserted is the blocks allocated, not the time.

use std::fs::{self, File};
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use crate::sandbox::copy_on_write::CopyOnWrite;
use crate::sandbox::overlay::Overlay;
use crate::sandbox::{Applied, Strategy};

/// A hang guard, far above what the operations take (well under a
/// second each on a laptop).
const DEADLINE: Duration = Duration::from_secs(300);

/// What a copy of the sparse file may take on disk: its data is a few
/// blocks; anything near its length would be terabytes.
const FEW_BLOCKS: u64 = 1 << 20;

const NAME: &str = "huge.img";

/// Make `dir/huge.img` as long as the filesystem allows up to 16 TiB
/// (ext4 stops 4 KiB short of it), with data at both ends and in the
/// middle; its length and its data as `(offset, bytes)`.
fn huge_sparse(dir: &Path) -> (u64, Vec<(u64, Vec<u8>)>) {
    let path = dir.join(NAME);
    for len in [16u64 << 40, (16 << 40) - 4096, 1 << 40] {
        let file = File::create(&path).unwrap();
        let data = vec![
            (0, b"head".to_vec()),
            (len / 2, b"middle".to_vec()),
            (len - 4, b"tail".to_vec()),
        ];
        if file.set_len(len).is_err() || file.write_all_at(b"tail", len - 4).is_err() {
            continue;
        }
        for (at, bytes) in &data {
            file.write_all_at(bytes, *at).unwrap();
        }
        return (len, data);
    }
    panic!("this filesystem holds no sparse file of 1 TiB");
}

/// `path` is `len` long, still sparse, and holds `data` where it was put.
fn assert_sparse_with(path: &Path, len: u64, data: &[(u64, Vec<u8>)]) {
    let meta = fs::symlink_metadata(path).unwrap();
    assert_eq!(meta.len(), len, "{} keeps its length", path.display());
    assert!(
        meta.blocks() * 512 < FEW_BLOCKS,
        "{} takes {} bytes on disk: its holes were filled",
        path.display(),
        meta.blocks() * 512
    );
    let file = File::open(path).unwrap();
    for (at, bytes) in data {
        let mut read = vec![0u8; bytes.len()];
        file.read_exact_at(&mut read, *at).unwrap();
        assert_eq!(&read, bytes, "{} at {at}", path.display());
    }
}

/// Run `f` on a thread; fail when it is not done by [`DEADLINE`].
fn within_deadline<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)));
    });
    match rx.recv_timeout(DEADLINE) {
        Ok(Ok(value)) => value,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(_) => panic!("{what} took over {DEADLINE:?}: the holes were read or hashed"),
    }
}

/// Create, change, checkpoint, diff, change again, roll back, apply.
fn round_trip(strategy: impl Strategy + Clone + Send + 'static) {
    let tmp = tempfile::tempdir().unwrap();
    let original = tmp.path().join("original");
    fs::create_dir(&original).unwrap();
    fs::write(original.join("small.txt"), b"small\n").unwrap();
    let (len, mut data) = huge_sparse(&original);
    let area = tmp.path().join("area");
    fs::create_dir(&area).unwrap();
    let root: PathBuf = tmp.path().to_path_buf();
    within_deadline("create, checkpoint, diff, rollback and apply", move || {
        let s = strategy;
        let place = s.create(&original, &area).unwrap();
        let work = place.workdir.clone();
        assert_sparse_with(&work.join(NAME), len, &data);

        // The agent changes the middle; a checkpoint, a diff.
        let changed_at = len / 2;
        let file = fs::OpenOptions::new()
            .write(true)
            .open(work.join(NAME))
            .unwrap();
        file.write_all_at(b"MIDDLE", changed_at).unwrap();
        drop(file);
        data[1] = (changed_at, b"MIDDLE".to_vec());
        let checkpoint = s.checkpoint(&place, "sparse").unwrap();
        let diff = s.diff(&place).unwrap();
        assert_eq!(diff.modified, vec![NAME.to_owned()], "{diff:?}");

        // Changed again (same length, same place), then rolled back.
        let file = fs::OpenOptions::new()
            .write(true)
            .open(work.join(NAME))
            .unwrap();
        file.write_all_at(b"lost!!", changed_at).unwrap();
        file.write_all_at(b"more", 1 << 30).unwrap();
        drop(file);
        s.rollback(&place, &checkpoint).unwrap();
        assert_sparse_with(&work.join(NAME), len, &data);
        let file = File::open(work.join(NAME)).unwrap();
        let mut read = [1u8; 4];
        file.read_exact_at(&mut read, 1 << 30).unwrap();
        assert_eq!(read, [0; 4], "the rollback put the hole back");

        // Applied: the original holds the change, still sparse.
        match s.apply(&place).unwrap() {
            Applied::CopiedBack(diff) => assert_eq!(diff.modified, vec![NAME.to_owned()]),
            other => panic!("expected a copy back, got {other:?}"),
        }
        assert_sparse_with(&original.join(NAME), len, &data);
        assert_eq!(fs::read(original.join("small.txt")).unwrap(), b"small\n");
        assert!(s.diff(&place).unwrap().modified.is_empty());
        s.destroy(&place).unwrap();
    });
    drop(root);
}

#[test]
fn a_16_tib_sparse_file_costs_its_data_in_copy_on_write() {
    round_trip(CopyOnWrite);
}

#[test]
fn a_16_tib_sparse_file_costs_its_data_in_a_user_space_overlay() {
    round_trip(Overlay::user_space());
}

/// The digest of format 3 depends on the bytes alone: the same bytes
/// written densely, or with holes, digest alike; other bytes do not.
#[test]
fn the_digest_of_a_file_does_not_depend_on_where_its_holes_are() {
    use crate::sandbox::fs_at::contents;
    let tmp = tempfile::tempdir().unwrap();
    let sparse = tmp.path().join("sparse");
    let file = File::create(&sparse).unwrap();
    file.set_len(3 << 20).unwrap();
    file.write_all_at(b"data in the middle", 1 << 20).unwrap();
    drop(file);
    let dense = tmp.path().join("dense");
    fs::write(&dense, fs::read(&sparse).unwrap()).unwrap();
    let digest = |p: &Path| {
        let file = File::open(p).unwrap();
        let len = file.metadata().unwrap().len();
        contents::digest(&file, len).unwrap()
    };
    assert_eq!(digest(&sparse), digest(&dense));
    let other = tmp.path().join("other");
    let file = File::create(&other).unwrap();
    file.set_len(3 << 20).unwrap();
    file.write_all_at(b"data in the middle", (1 << 20) + 1)
        .unwrap();
    drop(file);
    assert_ne!(digest(&sparse), digest(&other), "the offset counts");
    let longer = tmp.path().join("longer");
    fs::copy(&sparse, &longer).unwrap();
    File::options()
        .write(true)
        .open(&longer)
        .unwrap()
        .set_len((3 << 20) + 1)
        .unwrap();
    assert_ne!(digest(&sparse), digest(&longer), "the length counts");
}

/// A sandbox made before manifest format 3 (its `base.manifest` of format
/// 2, digests over every byte) still diffs and applies exactly.
#[test]
fn a_sandbox_with_a_format_2_manifest_still_diffs_and_applies() {
    use crate::sandbox::fs_at::contents;
    let tmp = tempfile::tempdir().unwrap();
    let original = tmp.path().join("original");
    fs::create_dir_all(original.join("dir")).unwrap();
    fs::write(original.join("a.txt"), b"a\n").unwrap();
    fs::write(original.join("dir/b.txt"), b"b\n").unwrap();
    std::os::unix::fs::symlink("a.txt", original.join("link")).unwrap();
    let area = tmp.path().join("area");
    fs::create_dir(&area).unwrap();
    let place = CopyOnWrite.create(&original, &area).unwrap();
    // Write the manifest as format 2 did.
    let manifest = area.join("base.manifest");
    let text = fs::read_to_string(&manifest).unwrap();
    let mut old = String::from("agents copy_on_write manifest 2\n");
    for line in text.lines().skip(1) {
        let fields: Vec<&str> = line.splitn(5, ' ').collect();
        let digest = if fields[0] == "f" {
            let file = File::open(original.join(fields[4])).unwrap();
            let len = file.metadata().unwrap().len();
            contents::digest_v2(&file, len).unwrap()
        } else {
            fields[3].to_owned()
        };
        old.push_str(&format!(
            "{} {} {} {digest} {}\n",
            fields[0], fields[1], fields[2], fields[4]
        ));
    }
    assert_ne!(
        old.lines().skip(1).collect::<Vec<_>>(),
        text.lines().skip(1).collect::<Vec<_>>()
    );
    fs::write(&manifest, old).unwrap();

    assert_eq!(CopyOnWrite.diff(&place).unwrap(), Default::default());
    fs::write(place.workdir.join("a.txt"), b"A\n").unwrap();
    let diff = CopyOnWrite.diff(&place).unwrap();
    assert_eq!(diff.modified, vec!["a.txt".to_owned()]);
    assert!(diff.added.is_empty() && diff.deleted.is_empty(), "{diff:?}");
    CopyOnWrite.apply(&place).unwrap();
    assert_eq!(fs::read(original.join("a.txt")).unwrap(), b"A\n");
    let after = fs::read_to_string(&manifest).unwrap();
    assert!(
        after.starts_with("agents copy_on_write manifest 3\n"),
        "{after}"
    );
    assert_eq!(CopyOnWrite.diff(&place).unwrap(), Default::default());
}
