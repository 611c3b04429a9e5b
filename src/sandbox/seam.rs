//! A test-only seam in the tree operations: the one place a unit test can
//! act at the dangerous moment of an operation — between the walk that
//! looked at an entry and the step that copies, restores or removes it —
//! the way a hostile agent racing the host would (an exchange of a
//! directory with a symlink to outside, say), so that races are tested by
//! their outcome, deterministically, without sleeps or luck.
//!
//! Outside `cfg(test)` [`reached`] is an empty function: nothing of it is
//! in a release (or any non-test) build.

/// Where an operation is when it calls [`reached`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::sandbox) enum Moment {
    /// A tree copy is about to copy the entry (create, checkpoint, a full
    /// rollback, apply's staging, a layer's copy).
    Copy,
    /// A rollback is about to restore the entry.
    Restore,
    /// A removal is about to remove the entry.
    Remove,
    /// An apply has written its journal and is about to change the
    /// original (`rel` is empty).
    Commit,
    /// An apply is about to rename the staged entry into place.
    Rename,
}

/// The operation is at `moment` for the entry `rel` (`/`-separated, below
/// the tree being worked on; for a removal, the entry's name).
#[inline]
pub(in crate::sandbox) fn reached(moment: Moment, rel: &str) {
    #[cfg(test)]
    hook::call(moment, rel);
    #[cfg(not(test))]
    let _ = (moment, rel);
}

#[cfg(test)]
pub(in crate::sandbox) use hook::arm;

#[cfg(test)]
mod hook {
    use super::Moment;
    use std::cell::RefCell;

    type Hook = Box<dyn FnMut(Moment, &str)>;

    thread_local! {
        static HOOK: RefCell<Option<Hook>> = const { RefCell::new(None) };
    }

    /// The hook is armed on this thread (the operations under test run
    /// on the test's own thread) until this is dropped.
    #[derive(Debug)]
    pub(in crate::sandbox) struct Armed(());

    impl Drop for Armed {
        fn drop(&mut self) {
            HOOK.with(|h| h.borrow_mut().take());
        }
    }

    /// Call `hook` at every moment an operation on this thread reaches.
    pub(in crate::sandbox) fn arm(hook: impl FnMut(Moment, &str) + 'static) -> Armed {
        HOOK.with(|h| *h.borrow_mut() = Some(Box::new(hook)));
        Armed(())
    }

    pub(super) fn call(moment: Moment, rel: &str) {
        // Taken out while it runs, so a hook that itself reaches a moment
        // (it should not) cannot re-enter it.
        let Some(mut hook) = HOOK.with(|h| h.borrow_mut().take()) else {
            return;
        };
        hook(moment, rel);
        HOOK.with(|h| {
            let mut slot = h.borrow_mut();
            if slot.is_none() {
                *slot = Some(hook);
            }
        });
    }
}
