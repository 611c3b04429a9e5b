//! The sandbox's `open-at` (and `readlink-at`): the one place a handler's
//! request to open a path becomes an open file, and the reason no handler
//! can hang the host by opening a named pipe, a device or a socket.
//!
//! wasmtime-wasi's own `open-at` opens with a plain blocking `openat`: a
//! FIFO without a writer blocks that thread for ever, and no deadline can
//! end a thread blocked in the kernel. This replacement (installed over
//! the linker's definition of `wasi:filesystem/types.[method]descriptor.open-at`)
//! keeps wasmtime-wasi's rules — the same permission checks, the same
//! sandboxed path resolution (cap-primitives, which never leaves the
//! preopened directory), the same descriptors — and changes two things:
//!
//! * the file is opened with `O_NONBLOCK | O_NOCTTY`, so opening never
//!   waits and never adopts a terminal;
//! * the opened descriptor is `fstat`-ed and anything that is not a
//!   regular file or a directory (FIFO, character or block device,
//!   socket) is closed at once and refused with `unsupported`.
//!
//! Its `readlink-at` answers what a symlink says even when that is an
//! absolute path (wasmtime-wasi's refuses those, through cap-primitives'
//! `read_link`, so a directory holding `/etc/localtime` could not be
//! discovered): the answer is text about an entry inside the location —
//! the link is resolved inside it like every path and never followed, and
//! every open still goes through the sandbox, so the text opens nothing.
//!
//! The check is on the descriptor that was opened, not on a path looked up
//! before, so no swap between check and use can get a FIFO through.
//! `O_NONBLOCK` changes nothing for regular files and directories, which is
//! all that is ever handed on. Listing a directory still shows such
//! entries (with their type); only opening them is refused.

use super::sandbox::CallState;
use cap_primitives::fs::{FollowSymlinks, OpenOptions, OpenOptionsExt};
use std::path::Path;
use wasmtime::component::{Linker, Resource};
use wasmtime_wasi::WasiView;
use wasmtime_wasi::filesystem::{Descriptor, Dir, File, FsPerms, OpenMode};
use wasmtime_wasi::p2::bindings::filesystem::types::{
    DescriptorFlags, ErrorCode, OpenFlags, PathFlags,
};

/// The `wasi:filesystem/types` instance wasmtime-wasi 48 defines (guests
/// built against any `0.2.x` are matched to it by semver).
const FILESYSTEM_TYPES: &str = "wasi:filesystem/types@0.2.12";

/// Replace `open-at` and `readlink-at` in `linker` (which must already
/// hold wasmtime-wasi's filesystem) with the guarded ones.
pub(crate) fn install(linker: &mut Linker<CallState>) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    let mut types = linker.instance(FILESYSTEM_TYPES)?;
    types.func_wrap_async(
        "[method]descriptor.readlink-at",
        |mut store, (fd, path): (Resource<Descriptor>, String)| {
            let answer = readlink_at(store.data_mut(), &fd, &path);
            Box::new(async move { Ok((answer,)) })
        },
    )?;
    types.func_wrap_async(
        "[method]descriptor.open-at",
        |mut store,
         (fd, path_flags, path, oflags, flags): (
            Resource<Descriptor>,
            PathFlags,
            String,
            OpenFlags,
            DescriptorFlags,
        )| {
            let answer = open_at(store.data_mut(), &fd, path_flags, &path, oflags, flags);
            Box::new(async move { Ok((answer,)) })
        },
    )?;
    linker.allow_shadowing(false);
    Ok(())
}

/// What the symlink `path` says, whatever it says: resolved inside the
/// preopened directory like every path (no component above the link is
/// followed out of it), the link itself never followed.
fn readlink_at(
    state: &mut CallState,
    fd: &Resource<Descriptor>,
    path: &str,
) -> Result<String, ErrorCode> {
    let dir = match state.ctx().table.get(fd) {
        Ok(Descriptor::Dir(dir)) => dir.dir.clone(),
        Ok(Descriptor::File(_)) => return Err(ErrorCode::NotDirectory),
        Err(_) => return Err(ErrorCode::BadDescriptor),
    };
    let target = cap_primitives::fs::read_link_contents(&dir, Path::new(path))?;
    target
        .into_os_string()
        .into_string()
        .map_err(|_| ErrorCode::IllegalByteSequence)
}

fn open_at(
    state: &mut CallState,
    fd: &Resource<Descriptor>,
    path_flags: PathFlags,
    path: &str,
    oflags: OpenFlags,
    flags: DescriptorFlags,
) -> Result<Resource<Descriptor>, ErrorCode> {
    let view = state.ctx();
    let dir = match view.table.get(fd) {
        Ok(Descriptor::Dir(dir)) => dir.clone(),
        Ok(Descriptor::File(_)) => return Err(ErrorCode::NotDirectory),
        Err(_) => return Err(ErrorCode::BadDescriptor),
    };
    let (opts, open_mode) = options(&dir, path_flags, oflags, flags)?;
    let file = cap_primitives::fs::open(&dir.dir, Path::new(path), &opts)?;
    let kind = file.metadata()?.file_type();
    let descriptor = if kind.is_dir() {
        Descriptor::Dir(Dir::new(file, dir.perms, open_mode, true))
    } else if kind.is_file() {
        if oflags.contains(OpenFlags::DIRECTORY) {
            return Err(ErrorCode::NotDirectory);
        }
        Descriptor::File(File::new(file, dir.perms, open_mode, true))
    } else {
        log::debug!(
            target: "plugin",
            "refused to open {}: not a regular file or directory",
            crate::text::quote(path)
        );
        return Err(ErrorCode::Unsupported);
    };
    view.table
        .push(descriptor)
        .map_err(|_| ErrorCode::InsufficientMemory)
}

/// wasmtime-wasi's own translation of the flags and its permission checks,
/// plus non-blocking and no-controlling-terminal.
fn options(
    dir: &Dir,
    path_flags: PathFlags,
    oflags: OpenFlags,
    flags: DescriptorFlags,
) -> Result<(OpenOptions, OpenMode), ErrorCode> {
    let mut create = false;
    let mut open_mode = OpenMode::empty();
    let mut opts = OpenOptions::new();
    opts._cap_fs_ext_maybe_dir(true);
    if oflags.contains(OpenFlags::CREATE) {
        if oflags.contains(OpenFlags::EXCLUSIVE) {
            opts.create_new(true);
        } else {
            opts.create(true);
        }
        create = true;
        opts.write(true);
        open_mode |= OpenMode::WRITE;
    }
    if oflags.contains(OpenFlags::TRUNCATE) {
        opts.truncate(true).write(true);
        open_mode |= OpenMode::WRITE;
    }
    if flags.contains(DescriptorFlags::READ) {
        opts.read(true);
        open_mode |= OpenMode::READ;
    }
    if flags.contains(DescriptorFlags::WRITE) {
        opts.write(true);
        open_mode |= OpenMode::WRITE;
    } else {
        opts.read(true);
        open_mode |= OpenMode::READ;
    }
    opts._cap_fs_ext_follow(if path_flags.contains(PathFlags::SYMLINK_FOLLOW) {
        FollowSymlinks::Yes
    } else {
        FollowSymlinks::No
    });
    if flags.intersects(
        DescriptorFlags::FILE_INTEGRITY_SYNC
            | DescriptorFlags::DATA_INTEGRITY_SYNC
            | DescriptorFlags::REQUESTED_WRITE_SYNC,
    ) {
        return Err(ErrorCode::Unsupported);
    }
    if oflags.contains(OpenFlags::DIRECTORY)
        && oflags.intersects(OpenFlags::CREATE | OpenFlags::EXCLUSIVE | OpenFlags::TRUNCATE)
    {
        return Err(ErrorCode::Invalid);
    }
    if matches!(dir.perms, FsPerms::ReadOnly) && (create || open_mode.contains(OpenMode::WRITE)) {
        return Err(ErrorCode::NotPermitted);
    }
    opts._cap_fs_ext_nonblock(true);
    let no_ctty = rustix::fs::OFlags::NOCTTY.bits();
    opts.custom_flags(i32::try_from(no_ctty).unwrap_or(0));
    Ok((opts, open_mode))
}
