//! One registry operation's git snapshot: the answers to the
//! repository-wide questions, kept while the operation runs and bounded
//! in bytes (see the module above for why).

use super::GitError;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Bytes of answers one operation's [`GitMemo`] keeps.
const MEMO_LIMIT: usize = 64 * 1024 * 1024;

/// The answers to the repository-wide git questions of one registry
/// operation, by repository (or, for "which repository", by the
/// directory asked from) and question.
#[derive(Debug, Default)]
pub(crate) struct GitMemo {
    inner: Mutex<MemoInner>,
    /// The operation's `git cat-file --batch` processes, ended with it.
    pub(super) batch: super::BatchPool,
}

#[derive(Debug, Default)]
struct MemoInner {
    answers: HashMap<(String, &'static str), Result<String, GitError>>,
    bytes: usize,
}

impl GitMemo {
    pub(super) fn get(
        &self,
        scope: &str,
        question: &'static str,
    ) -> Option<Result<String, GitError>> {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.answers.get(&(scope.to_owned(), question)).cloned()
    }

    pub(super) fn put(
        &self,
        scope: &str,
        question: &'static str,
        answer: &Result<String, GitError>,
    ) {
        let size = match answer {
            Ok(text) => text.len(),
            Err(_) => 256,
        } + scope.len();
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if inner.bytes + size <= MEMO_LIMIT {
            inner.bytes += size;
            inner
                .answers
                .insert((scope.to_owned(), question), answer.clone());
        }
    }
}

/// Where the current operation's memo is (none outside an operation).
pub(crate) type MemoSlot = Arc<Mutex<Option<Arc<GitMemo>>>>;

/// One registry operation's git snapshot: while it lives, calls share a
/// memo of git answers; dropped, the memo goes. Nested snapshots share the
/// outer one.
#[derive(Debug)]
pub struct GitSnapshot {
    slot: MemoSlot,
    owner: bool,
}

impl GitSnapshot {
    pub(crate) fn begin(slot: &MemoSlot) -> Self {
        let mut current = slot.lock().unwrap_or_else(|e| e.into_inner());
        let owner = current.is_none();
        if owner {
            *current = Some(Arc::default());
        }
        Self {
            slot: slot.clone(),
            owner,
        }
    }
}

impl Drop for GitSnapshot {
    fn drop(&mut self) {
        if self.owner {
            *self.slot.lock().unwrap_or_else(|e| e.into_inner()) = None;
        }
    }
}
