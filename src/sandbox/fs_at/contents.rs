//! A file's bytes, read and copied from an open descriptor: the one home
//! of how the host copies a file (a reflink where the filesystem has
//! them, else `copy_file_range`, else reads and writes) and keeps its
//! holes.
//!
//! A sparse file is read as its data segments (`lseek` `SEEK_DATA` /
//! `SEEK_HOLE`): a copy writes only those, at their offsets, and sets the
//! length, so the holes stay holes (a 4 GiB file with a few data blocks is
//! copied, and takes, a few blocks); a digest feeds the holes' zeros to the
//! hasher without reading them. A filesystem that does not report holes
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

/// The BLAKE3 digest (hex) of `file`'s first `size` bytes (its size when
/// it was opened): its data segments read, its holes hashed as the zeros
/// they read as.
pub(in crate::sandbox) fn digest(file: &File, size: u64) -> std::io::Result<String> {
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

/// Do two regular files hold the same bytes? Read both, stop at the
/// first difference.
pub(in crate::sandbox) fn same(a: &File, b: &File) -> std::io::Result<bool> {
    let (mut ba, mut bb) = (vec![0u8; 64 * 1024], vec![0u8; 64 * 1024]);
    let mut at = 0u64;
    loop {
        let na = read_full(a, &mut ba, at)?;
        let nb = read_full(b, &mut bb, at)?;
        if na != nb || ba[..na] != bb[..nb] {
            return Ok(false);
        }
        if na == 0 {
            return Ok(true);
        }
        at += na as u64;
    }
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
