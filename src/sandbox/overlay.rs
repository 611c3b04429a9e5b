//! The `overlay` strategy: the one home of how a directory is sandboxed as
//! an upper layer of changes over the read-only original, so that a
//! checkpoint costs what changed, not the whole tree (what sets it apart
//! from `copy_on_write`, whose checkpoints are full snapshots).
//!
//! Two modes, chosen at create and recorded in the area (`mode`), so every
//! later operation works the way the sandbox was made:
//!
//! * **kernel** (`kernel.rs`, `layer.rs`): the kernel's overlayfs,
//!   `lowerdir=original,upperdir=area/upper,workdir=area/ovl-work` mounted
//!   on `area/merged` (`nosuid,nodev`, and `redirect_dir=off,metacopy=off,
//!   index=off` so the upper layer holds whole files and the lower is never
//!   written). Creating costs nothing; the mount survives the process and
//!   is made again by the next operation when it is gone (a reboot, an
//!   `umount`).
//! * **user space** (`user_space.rs`): where mounting is refused (no
//!   `CAP_SYS_ADMIN`, an upper filesystem overlayfs will not use, a path
//!   its mount options cannot carry), `merged/` is a full copy of the
//!   original (reflinks where the filesystem has them) and the upper layer
//!   is computed as its difference from the lower manifest. Its costs: a
//!   full copy at create, a full walk (hashing every file) at each
//!   checkpoint and diff, a full build of the tree at rollback; and, as
//!   with any copy, changes made to the original after creation are not
//!   seen. A `log::warn!` says so once, at create.
//!
//! [`Overlay::new`] tries the kernel and falls back to user space;
//! [`Overlay::kernel`] and [`Overlay::user_space`] insist on one;
//! [`Overlay::named`] is the one by its name (`auto`, `kernel`,
//! `userspace`). The library reads no environment: an embedder picks a
//! mode in `registry::Options` — the CLI by the name `AGENTS_OVERLAY`
//! holds, and another value gives [`Overlay::refusing`], whose create is
//! refused with the CLI's words.
//!
//! Layout of a sandbox's area:
//!
//! * `mode`: `kernel` or `userspace`.
//! * `lower.manifest`: the original's state at creation (the
//!   `copy_on_write` manifest format, `manifest.rs`); `base` is its sha256.
//!   overlayfs leaves undefined what a mount shows when its lower changes,
//!   so `apply` first checks that the original still matches it (else
//!   `Conflict`, nothing written), and `diff` is against it.
//! * `merged/`: the working copy. `upper/`, `ovl-work/`: kernel mode's
//!   layer and overlayfs's scratch directory.
//! * `checkpoints/<n>/{label,lower,…}`: `lower` is the sha256 of the lower
//!   manifest the checkpoint is relative to; kernel mode keeps `upper/`, a
//!   copy of the upper layer (whiteouts and opaque markers included), user
//!   space keeps the difference (see `user_space.rs`). Built as `<n>.tmp`
//!   and renamed into place (removed at once when it fails), as in
//!   `copy_on_write`.
//!
//! Decisions:
//!
//! * What is kept exactly, and what is refused, is what `copy_on_write`
//!   keeps and refuses (contents, modes, symlink targets, the set of
//!   entries; special files and names that are not UTF-8 or hold a newline
//!   are refused before anything is written), and diff and apply mean the
//!   same: both strategies share `tree.rs`, `manifest.rs`, `compare` and
//!   `copy_back`.
//!   Kernel mode's diff reads only the upper layer (and the manifest), so
//!   it costs what changed.
//! * Kernel rollback copies the checkpoint's layer to `restore.tmp` while
//!   the overlay is still mounted (a failure there changes nothing), then
//!   unmounts, swaps `restore.tmp` with `upper/` (`renameat2` exchange),
//!   starts a fresh `ovl-work/` and mounts again. A busy mount is detached
//!   lazily: a process still inside keeps a stale view, detached from the
//!   sandbox, as with `copy_on_write`'s swap.
//! * Apply copies the changed entries back from the upper layer (kernel;
//!   unmounted first, so the lower is not changed under a live mount) or
//!   from `merged/` (user space) with `copy_on_write`'s staged,
//!   descriptor-confined `copy_back`. Afterwards the original is the new
//!   lower: the manifest is rewritten and kernel mode starts an empty
//!   upper layer. Checkpoints taken before an apply are relative to the
//!   old lower and can no longer be restored exactly, so rollback to them
//!   is refused, saying why.
//! * Destroy unmounts (lazily when busy), checks that nothing is mounted
//!   on `merged/` any more, then removes the area; it needs no `mode`, so
//!   it also clears away a create that failed halfway.
//! * Every read of the working copy or the upper layer, and every write
//!   into the original (apply), goes through directory descriptors
//!   (`fs_at`: `O_NOFOLLOW` component by component, mounts refused inside
//!   the sandbox), as in `copy_on_write`; the kernel mounts the original
//!   read-only as a lower layer and never writes it (`index=off`). What is
//!   copied carries permission bits, not setuid/setgid (the `nosuid` mount
//!   does not stop an agent from setting them in the upper layer).
//! * Known limits: kernel mode needs the mount in this mount namespace
//!   with `trusted.*` xattrs (root in the initial user namespace; a user
//!   namespace gets user space); the copies of a layer keep the opaque
//!   marker but not overlay's other xattrs (`origin`, `impure`: inode
//!   numbers of restored files may change) nor owners, timestamps or
//!   other xattrs; in kernel mode a change to the original after creation
//!   shows through in every path the sandbox did not change (overlayfs
//!   reads the lower live) and is a conflict at apply; operations on one
//!   sandbox must not run concurrently (two could both mount); the root
//!   directory's own mode is not part of diff or apply; nothing is
//!   fsynced.

mod kernel;
mod layer;
#[cfg(test)]
mod tests;
mod user_space;

use std::fs;
use std::path::{Path, PathBuf};

use crate::sandbox::copy_on_write::tree::{self, Tree, io_err};
use crate::sandbox::copy_on_write::{
    checkpoint_dir, compare, copy_back, finish_interrupted_apply, finish_or_abandon_apply,
    make_checkpoint, manifest, open_working_copy, refuse_conflicts, refuse_interrupted,
    refuse_unsuitable, scan_like,
};
use crate::sandbox::fs_at::{DirFd, Mounts, mounts};
use crate::sandbox::{Applied, CheckpointRef, SandboxDiff, SandboxError, SandboxPlace, Strategy};

const MODE: &str = "mode";
const LOWER: &str = "lower.manifest";
const UPPER: &str = "upper";
const WORK: &str = "ovl-work";
const MERGED: &str = "merged";
const CHECKPOINTS: &str = "checkpoints";
const RESTORE: &str = "restore.tmp";
/// In a checkpoint: the sha256 of the lower manifest it is relative to.
const CHECKPOINT_LOWER: &str = "lower";

/// The environment variable the CLI picks the mode by (named in the
/// refusals' advice).
const OVERLAY_ENV: &str = "AGENTS_OVERLAY";

/// How a sandbox's upper layer is kept (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverlayMode {
    Kernel,
    UserSpace,
}

impl OverlayMode {
    pub fn name(self) -> &'static str {
        match self {
            Self::Kernel => "kernel",
            Self::UserSpace => "userspace",
        }
    }
}

/// Which mode a new sandbox gets.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Want {
    Auto,
    Only(OverlayMode),
    /// No mode could be picked (the embedder says why): refused at create.
    Refused(String),
}

/// The `overlay` strategy. It holds only which mode new sandboxes get;
/// everything about a sandbox lives in its area.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overlay {
    want: Want,
}

impl Overlay {
    /// The kernel's overlayfs where it may be mounted, else user space
    /// (with a warning).
    pub fn new() -> Self {
        Self { want: Want::Auto }
    }

    /// The kernel's overlayfs only: create is refused where it cannot be
    /// mounted.
    pub fn kernel() -> Self {
        Self {
            want: Want::Only(OverlayMode::Kernel),
        }
    }

    /// The user-space overlay, even where the kernel's could be mounted.
    pub fn user_space() -> Self {
        Self {
            want: Want::Only(OverlayMode::UserSpace),
        }
    }

    /// The mode `name` names: `auto` (or empty), `kernel`, `userspace`;
    /// `None` for any other name.
    pub fn named(name: &str) -> Option<Self> {
        match name {
            "" | "auto" => Some(Self::new()),
            "kernel" => Some(Self::kernel()),
            "userspace" => Some(Self::user_space()),
            _ => None,
        }
    }

    /// An overlay no sandbox can be made with: every create is refused,
    /// saying `why` (the CLI's: which `AGENTS_OVERLAY` value names no
    /// mode). Nothing else is refused, so a registry still opens.
    pub fn refusing(why: impl Into<String>) -> Self {
        Self {
            want: Want::Refused(why.into()),
        }
    }

    /// The mode the sandbox at `place` was made with.
    pub fn mode_of(place: &SandboxPlace) -> Result<OverlayMode, SandboxError> {
        let path = place.area.join(MODE);
        let text = fs::read_to_string(&path).map_err(io_err("read", &path))?;
        match text.trim_end() {
            "kernel" => Ok(OverlayMode::Kernel),
            "userspace" => Ok(OverlayMode::UserSpace),
            other => Err(SandboxError::Unsuitable(format!(
                "{} says {other:?}, not kernel or userspace; the sandbox is damaged: destroy it",
                path.display()
            ))),
        }
    }

    /// Make the working copy in the mode wanted; returns the mode it got.
    fn make(
        &self,
        (original, source): (&Path, &DirFd),
        area: &Path,
        lower: &Tree,
    ) -> Result<OverlayMode, SandboxError> {
        let fallback = |why: &str| {
            log::warn!(
                target: "sandbox",
                "overlay sandbox of {}: {why}; the user-space overlay copies the whole original \
                 now (reflinks where the filesystem has them), walks the whole copy at each \
                 checkpoint and diff, and does not see changes made to the original after \
                 creation",
                original.display()
            );
            let area = DirFd::open(area)?;
            user_space::create(source, &area, lower).map(|()| OverlayMode::UserSpace)
        };
        match &self.want {
            Want::Refused(why) => Err(SandboxError::Unsuitable(why.clone())),
            Want::Only(OverlayMode::UserSpace) => fallback("the user-space overlay was asked for"),
            Want::Only(OverlayMode::Kernel) => match kernel::create(original, area)? {
                Ok(()) => Ok(OverlayMode::Kernel),
                Err(kernel::Unavailable(why)) => Err(SandboxError::Unsuitable(format!(
                    "the kernel overlay is unavailable: {why}; use the user-space overlay \
                     ({OVERLAY_ENV}=userspace) or another sandbox strategy"
                ))),
            },
            Want::Auto => match kernel::create(original, area)? {
                Ok(()) => Ok(OverlayMode::Kernel),
                Err(kernel::Unavailable(why)) => fallback(&format!(
                    "the kernel overlay is unavailable ({why}), so falling back"
                )),
            },
        }
    }
}

impl Default for Overlay {
    /// [`Overlay::new`]: the kernel's overlayfs where it mounts, else
    /// user space.
    fn default() -> Self {
        Self::new()
    }
}

impl Strategy for Overlay {
    fn create(&self, original: &Path, area: &Path) -> Result<SandboxPlace, SandboxError> {
        refuse_unsuitable(original, area, "overlay")?;
        let source = DirFd::open(original)?;
        let lower = tree::scan(&source, Mounts::Cross, true)?;
        let base = manifest::write_manifest(&area.join(LOWER), &lower)?;
        let mode = self.make((original, &source), area, &lower)?;
        let path = area.join(MODE);
        if let Err(e) = fs::write(&path, format!("{}\n", mode.name())) {
            kernel::unmount_merged(area)?;
            return Err(io_err("write", &path)(e));
        }
        Ok(SandboxPlace {
            original: original.to_path_buf(),
            area: area.to_path_buf(),
            workdir: area.join(MERGED),
            base,
        })
    }

    fn checkpoint(&self, place: &SandboxPlace, label: &str) -> Result<CheckpointRef, SandboxError> {
        let mode = ready(place)?;
        let (lower, lower_sha) = read_lower(place)?;
        make_checkpoint(&place.area.join(CHECKPOINTS), label, |tmp| {
            let guard = tmp.join(CHECKPOINT_LOWER);
            fs::write(&guard, &lower_sha).map_err(io_err("write", &guard))?;
            match mode {
                OverlayMode::Kernel => {
                    let upper = DirFd::open(&place.area.join(UPPER))?;
                    let into = DirFd::open(tmp)?;
                    layer::copy(&upper, (&into, std::ffi::OsStr::new(UPPER)))
                }
                OverlayMode::UserSpace => {
                    let merged = open_working_copy(&place.area, MERGED)?;
                    user_space::checkpoint(&merged, &lower, tmp)
                }
            }
        })
    }

    fn rollback(&self, place: &SandboxPlace, to: &CheckpointRef) -> Result<(), SandboxError> {
        let mode = ready(place)?;
        let (lower, lower_sha) = read_lower(place)?;
        let dir = checkpoint_dir(&place.area.join(CHECKPOINTS), to)?;
        let guard = dir.join(CHECKPOINT_LOWER);
        let made_on = fs::read_to_string(&guard).map_err(io_err("read", &guard))?;
        if made_on != lower_sha {
            return Err(SandboxError::Unsuitable(format!(
                "checkpoint {} was taken before the sandbox's changes were last applied, as \
                 changes to the original as it was then; it cannot be restored exactly over the \
                 original as it is now: roll back to a later checkpoint",
                to.0
            )));
        }
        match mode {
            OverlayMode::Kernel => {
                kernel::replace_upper(&place.original, &place.area, Some(&dir.join(UPPER)))
            }
            OverlayMode::UserSpace => {
                user_space::rollback(&place.original, &place.area, &lower, &dir)
            }
        }
    }

    fn diff(&self, place: &SandboxPlace) -> Result<SandboxDiff, SandboxError> {
        refuse_interrupted(place)?;
        let mode = ready(place)?;
        let (lower, _) = read_lower(place)?;
        Ok(compare(&lower, &merged_tree(place, mode, &lower)?))
    }

    fn apply(&self, place: &SandboxPlace) -> Result<Applied, SandboxError> {
        let mode = ready(place)?;
        let after = |original: &DirFd| {
            manifest::write_manifest(
                &place.area.join(LOWER),
                &tree::scan(original, Mounts::Cross, true)?,
            )
            .map(drop)
        };
        if finish_interrupted_apply(place, &after)?.is_some() && mode == OverlayMode::Kernel {
            kernel::unmount_merged(&place.area)?;
            kernel::replace_upper(&place.original, &place.area, None)?;
            kernel::ensure_mounted(&place.original, &place.area)?;
        }
        let (lower, _) = read_lower(place)?;
        let original = DirFd::open(&place.original)?;
        refuse_conflicts(&original, &lower)?;
        let now = merged_tree(place, mode, &lower)?;
        let diff = compare(&lower, &now);
        let from = match mode {
            OverlayMode::Kernel => {
                kernel::unmount_merged(&place.area)?;
                DirFd::open(&place.area.join(UPPER))
            }
            OverlayMode::UserSpace => open_working_copy(&place.area, MERGED),
        };
        let copied = from.and_then(|from| {
            copy_back(&place.area, &original, &from, (&lower, &now, &diff), &after)
        });
        if let Err(e) = copied {
            if mode == OverlayMode::Kernel {
                // Leave the sandbox as usable as it was; the copy's error is
                // the one to report (a failed mount is retried by the next
                // operation anyway).
                let _ = kernel::ensure_mounted(&place.original, &place.area);
            }
            return Err(e);
        }
        if mode == OverlayMode::Kernel {
            kernel::replace_upper(&place.original, &place.area, None)?;
        }
        Ok(Applied::CopiedBack(diff))
    }

    fn destroy(&self, place: &SandboxPlace) -> Result<(), SandboxError> {
        finish_or_abandon_apply(place);
        kernel::unmount_merged(&place.area)?;
        mounts::refuse_mounts_below(&place.area, None)?;
        tree::remove_tree(&place.area)
    }

    fn workdir(&self, _original: &Path, area: &Path) -> PathBuf {
        area.join(MERGED)
    }

    /// The kernel overlay mounted on `merged/` is the strategy's own (and
    /// `destroy` and `rollback` unmount it); any other mount is refused.
    fn refuse_mounts(&self, place: &SandboxPlace) -> Result<(), SandboxError> {
        mounts::refuse_mounts_below(&place.area, Some(&place.area.join(MERGED)))
    }
}

/// The sandbox's mode, with its overlay mounted when that is the kernel's.
fn ready(place: &SandboxPlace) -> Result<OverlayMode, SandboxError> {
    let mode = Overlay::mode_of(place)?;
    if mode == OverlayMode::Kernel {
        kernel::ensure_mounted(&place.original, &place.area)?;
    }
    Ok(mode)
}

fn read_lower(place: &SandboxPlace) -> Result<(Tree, String), SandboxError> {
    manifest::read_manifest(&place.area.join(LOWER))
}

/// What the working copy holds now, hashed: the lower manifest under the
/// upper layer (kernel: reading only what changed), or a walk of the copy.
fn merged_tree(
    place: &SandboxPlace,
    mode: OverlayMode,
    lower: &Tree,
) -> Result<Tree, SandboxError> {
    match mode {
        OverlayMode::Kernel => {
            let mut merged = layer::merged(
                lower,
                &layer::scan(&DirFd::open(&place.area.join(UPPER))?, true)?,
            );
            // Files the agent changed, hashed as a format 2 lower was.
            // (Through the mount: overlayfs reports the lower's devices.)
            let copy = DirFd::open(&place.area.join(MERGED))?;
            tree::rehash_like(&copy, Mounts::Cross, lower, &mut merged)?;
            Ok(merged)
        }
        OverlayMode::UserSpace => scan_like(
            &open_working_copy(&place.area, MERGED)?,
            Mounts::Stay,
            lower,
        ),
    }
}
