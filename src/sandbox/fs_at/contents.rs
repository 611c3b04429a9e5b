//! A file's bytes, read and copied from an open descriptor: the one home
//! of how the host copies a file (a reflink where the filesystem has
//! them, else `copy_file_range`, else reads and writes) and keeps its
//! holes.
//!
//! A sparse file is read as its data segments (`lseek` `SEEK_DATA` /
//! `SEEK_HOLE`): a copy writes only those, at their offsets, and sets the
//! length, so the holes stay holes (a 4 GiB file with a few data blocks is
//! copied, and takes, a few blocks); a digest (`digest`, manifest format
//! 3) skips them, and a comparison (`same`) reads only where either file
//! has data. A filesystem that does not report holes
//! (`EINVAL`) is read whole, as one segment. Holes are kept exactly where
//! the filesystem reports them at its own granularity (a block); a
//! reflink shares the source's extents, holes included.

use std::collections::BTreeMap;
use std::fs::File;
use std::os::unix::fs::FileExt;

use rustix::fs::SeekFrom;
use rustix::io::Errno;

/// How far the file's bytes go and where its data is: `(start, end)`
/// ranges of data, in order, below `size`. Everything else is a hole.
pub(in crate::sandbox) fn data_segments(
    file: &File,
    size: u64,
) -> std::io::Result<Vec<(u64, u64)>> {
    let mut segments = Vec::new();
    let mut pos = 0;
    while pos < size {
        let data = match rustix::fs::seek(file, SeekFrom::Data(pos)) {
            Ok(data) => data,
            // No data after `pos`: the rest is a hole.
            Err(Errno::NXIO) => break,
            // Holes are not reported here: all of it is data.
            Err(Errno::INVAL | Errno::NOTSUP) => {
                segments.push((pos, size));
                break;
            }
            Err(e) => return Err(e.into()),
        };
        if data >= size {
            break;
        }
        let hole = match rustix::fs::seek(file, SeekFrom::Hole(data)) {
            Ok(hole) if hole > data => hole.min(size),
            Ok(_) | Err(Errno::NXIO) => size,
            Err(e) => return Err(e.into()),
        };
        segments.push((data, hole));
        pos = hole;
    }
    Ok(segments)
}

/// Whether reflinks work from one device to another, as far as this
/// process has found out.
static REFLINKS: std::sync::Mutex<BTreeMap<(u64, u64), bool>> =
    std::sync::Mutex::new(BTreeMap::new());

/// Copy the bytes of `src` (`size` long, on device `src_dev`) into the new,
/// empty `dst` (on `dst_dev`): a reflink where the filesystem can, else the
/// data segments, holes kept. A failed clone is remembered per pair of
/// devices, so on a filesystem without reflinks only the first file of a
/// process tries.
pub(in crate::sandbox) fn copy(
    src: &File,
    dst: &File,
    size: u64,
    (src_dev, dst_dev): (u64, u64),
) -> std::io::Result<()> {
    let key = (src_dev, dst_dev);
    let known = REFLINKS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get(&key)
        .copied();
    if known != Some(false) {
        match rustix::fs::ioctl_ficlone(dst, src) {
            Ok(()) => return Ok(()),
            Err(_) => {
                REFLINKS
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .insert(key, false);
            }
        }
    }
    for (start, end) in data_segments(src, size)? {
        copy_range(src, dst, start, end)?;
    }
    dst.set_len(size)
}

/// Copy bytes `start..end` of `src` to the same offsets of `dst`: in the
/// kernel (`copy_file_range`) where it can, else through a buffer. A file
/// that shrank since stops the copy at its end.
fn copy_range(src: &File, dst: &File, start: u64, end: u64) -> std::io::Result<()> {
    let (mut off_in, mut off_out) = (start, start);
    while off_in < end {
        let len = usize::try_from(end - off_in)
            .unwrap_or(usize::MAX)
            .min(1 << 30);
        match rustix::fs::copy_file_range(src, Some(&mut off_in), dst, Some(&mut off_out), len) {
            Ok(0) => return Ok(()),
            Ok(_) => {}
            Err(Errno::INTR) => {}
            Err(Errno::XDEV | Errno::INVAL | Errno::NOSYS | Errno::OPNOTSUPP) => {
                return copy_range_buffered(src, dst, off_in, end);
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

fn copy_range_buffered(src: &File, dst: &File, start: u64, end: u64) -> std::io::Result<()> {
    let mut buf = vec![0u8; 128 * 1024];
    let mut at = start;
    while at < end {
        let want = usize::try_from(end - at)
            .unwrap_or(usize::MAX)
            .min(buf.len());
        let n = match src.read_at(&mut buf[..want], at) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        dst.write_all_at(&buf[..n], at)?;
        at += n as u64;
    }
    Ok(())
}

/// Bytes per block of the sparse digest: a block the filesystem reports
/// as a hole, or that reads as zeros, is not hashed at all.
pub(in crate::sandbox) const DIGEST_BLOCK: u64 = 64 * 1024;

/// The digest (BLAKE3, hex) of `file`'s first `size` bytes (its size when
/// it was opened), as manifest format 3 records it: a function of the
/// bytes alone, whatever the filesystem's holes, that never reads a hole.
///
/// The bytes are cut into [`DIGEST_BLOCK`]-sized blocks; the hasher is fed,
/// for each block holding a byte that is not zero, its index (u64, little
/// endian) and its bytes, and last the length (u64, little endian). A block
/// in a hole is all zeros, so it is skipped unread: a 16 TiB file with a
/// few data blocks costs those blocks. A block of written zeros is read
/// and skipped too, so where the holes are does not change the digest.
pub(in crate::sandbox) fn digest(file: &File, size: u64) -> std::io::Result<String> {
    let mut hasher = blake3::Hasher::new();
    let mut buf = vec![0u8; DIGEST_BLOCK as usize];
    // The first block not yet hashed: segments that share a block hash it once.
    let mut next = 0u64;
    for (start, end) in data_segments(file, size)? {
        let mut block = (start / DIGEST_BLOCK).max(next);
        while block * DIGEST_BLOCK < end {
            let at = block * DIGEST_BLOCK;
            let want = usize::try_from((size - at).min(DIGEST_BLOCK)).unwrap_or(buf.len());
            let n = read_full(file, &mut buf[..want], at)?;
            if buf[..n].iter().any(|b| *b != 0) {
                hasher.update(&block.to_le_bytes());
                hasher.update(&buf[..n]);
            }
            block += 1;
            if n < want {
                // The file shrank: what it holds now is all there is.
                hasher.update(&size.to_le_bytes());
                return Ok(hasher.finalize().to_hex().to_string());
            }
        }
        next = block;
    }
    hasher.update(&size.to_le_bytes());
    Ok(hasher.finalize().to_hex().to_string())
}

/// The digest manifest format 2 recorded (BLAKE3 of all the bytes, holes
/// hashed as the zeros they read as, without reading them): kept to diff
/// a sandbox made before format 3 against its manifest. It costs the
/// file's length, holes included.
pub(in crate::sandbox) fn digest_v2(file: &File, size: u64) -> std::io::Result<String> {
    let mut hasher = blake3::Hasher::new();
    let zeros = vec![0u8; 128 * 1024];
    let mut buf = vec![0u8; 128 * 1024];
    let mut at = 0;
    let feed_zeros = |hasher: &mut blake3::Hasher, mut n: u64| {
        while n > 0 {
            let k = usize::try_from(n).unwrap_or(usize::MAX).min(zeros.len());
            hasher.update(&zeros[..k]);
            n -= k as u64;
        }
    };
    for (start, end) in data_segments(file, size)? {
        feed_zeros(&mut hasher, start - at);
        at = start;
        while at < end {
            let want = usize::try_from(end - at)
                .unwrap_or(usize::MAX)
                .min(buf.len());
            let n = match file.read_at(&mut buf[..want], at) {
                // The file shrank: what it holds now is all there is.
                Ok(0) => return Ok(hasher.finalize().to_hex().to_string()),
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            hasher.update(&buf[..n]);
            at += n as u64;
        }
    }
    feed_zeros(&mut hasher, size.saturating_sub(at));
    Ok(hasher.finalize().to_hex().to_string())
}

/// Do two regular files hold the same bytes? Same length, then only the
/// ranges where either has data are read (a hole in both is zeros in
/// both), stopping at the first difference.
pub(in crate::sandbox) fn same(a: &File, b: &File) -> std::io::Result<bool> {
    let size = a.metadata()?.len();
    if b.metadata()?.len() != size {
        return Ok(false);
    }
    let ranges = union(&data_segments(a, size)?, &data_segments(b, size)?);
    let (mut ba, mut bb) = (vec![0u8; 64 * 1024], vec![0u8; 64 * 1024]);
    for (start, end) in ranges {
        let mut at = start;
        while at < end {
            let want = usize::try_from(end - at)
                .unwrap_or(usize::MAX)
                .min(ba.len());
            let na = read_full(a, &mut ba[..want], at)?;
            let nb = read_full(b, &mut bb[..want], at)?;
            if na != nb || ba[..na] != bb[..nb] {
                return Ok(false);
            }
            if na < want {
                // Both shrank alike meanwhile: compare what they hold now.
                return Ok(a.metadata()?.len() == b.metadata()?.len());
            }
            at += na as u64;
        }
    }
    Ok(true)
}

/// The union of two sorted lists of disjoint `(start, end)` ranges, sorted.
fn union(a: &[(u64, u64)], b: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut all: Vec<(u64, u64)> = a.iter().chain(b).copied().collect();
    all.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(all.len());
    for (start, end) in all {
        match out.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => out.push((start, end)),
        }
    }
    out
}

/// Fill `buf` from offset `at` unless the end comes first; how much was read.
fn read_full(file: &File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read_at(&mut buf[filled..], at + filled as u64) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}
