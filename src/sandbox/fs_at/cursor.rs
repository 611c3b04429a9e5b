//! Reaching an entry of a tree by its relative path, one descriptor per
//! component: the one home of how a `/`-separated path from a manifest,
//! a stat record or a walk becomes a directory descriptor and a name.
//!
//! Each component is opened from its parent's descriptor,
//! `O_DIRECTORY | O_NOFOLLOW` (mount-checked with [`Mounts::Stay`]), so a
//! component that became a symlink since the walk fails to open instead of
//! leading elsewhere. The directories on the way to the last entry reached
//! are kept open, so a tree worked through in path order (a parent before
//! its children, which a `BTreeMap` of paths gives) opens each directory
//! about once.
//!
//! A cursor never hands out a directory that was removed through it: a
//! removal goes through the parent of what it removes, and reaching that
//! parent closes every deeper directory kept open.

use std::ffi::OsStr;

use super::{DirFd, Mounts};
use crate::sandbox::SandboxError;

#[derive(Debug)]
pub(in crate::sandbox) struct Cursor<'r> {
    root: &'r DirFd,
    mounts: Mounts,
    /// The open directories below the root on the way to the last one
    /// reached: each one's relative path, and it.
    open: Vec<(String, DirFd)>,
}

impl<'r> Cursor<'r> {
    pub(in crate::sandbox) fn new(root: &'r DirFd, mounts: Mounts) -> Self {
        Cursor {
            root,
            mounts,
            open: Vec::new(),
        }
    }

    /// The directory at `rel` (`""`: the root).
    pub(in crate::sandbox) fn dir(&mut self, rel: &str) -> Result<&DirFd, SandboxError> {
        while let Some((top, _)) = self.open.last() {
            let below = rel
                .strip_prefix(top.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'));
            if below {
                break;
            }
            self.open.pop();
        }
        let done = self.open.last().map_or(0, |(top, _)| top.len() + 1);
        if done < rel.len() {
            for (end, _) in rel[done..]
                .match_indices('/')
                .map(|(i, s)| (done + i, s))
                .chain(std::iter::once((rel.len(), "")))
            {
                let name = rel[..end].rsplit('/').next().unwrap_or_default();
                let parent = self.open.last().map_or(self.root, |(_, d)| d);
                let next =
                    parent.open_dir(OsStr::new(name), self.mounts, self.root.meta(), false)?;
                self.open.push((rel[..end].to_owned(), next));
            }
        }
        Ok(self.open.last().map_or(self.root, |(_, d)| d))
    }

    /// The directory holding `rel`, and `rel`'s last name.
    pub(in crate::sandbox) fn parent<'p>(
        &mut self,
        rel: &'p str,
    ) -> Result<(&DirFd, &'p OsStr), SandboxError> {
        let (parent, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        Ok((self.dir(parent)?, OsStr::new(name)))
    }
}
