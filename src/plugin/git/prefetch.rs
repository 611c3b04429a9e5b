//! The fixed repository-wide questions, and asking several of them in one
//! round, side by side, when an operation keeps a memo.
//!
//! A handler asks its questions one import call at a time, and each is one
//! git process: registering a checkout ran ten of them one after another.
//! The questions that always come together — HEAD's branch
//! and commit; the refs, their peeled targets, the configured upstreams,
//! the remotes and the stash (a repository's listing); the work tree's
//! status, which a checkout's hash asks right before its repository is
//! listed — are run as one round when the first of them is asked, their
//! processes at once, and memoised for the rest of the operation. Without
//! a memo (a call outside a registry operation) nothing is asked ahead: a
//! question nobody asks would be thrown away.
//!
//! Every question here is fixed argv about the whole repository; nothing a
//! guest says reaches it.

use super::{GitScope, run};
use std::future::Future;
use std::pin::Pin;
use std::task::Poll;

/// One fixed question: its name in the memo and git's arguments (after
/// the repository's `--git-dir` / `--work-tree`).
#[derive(Debug)]
pub(super) struct Question {
    pub name: &'static str,
    pub args: &'static [&'static str],
}

pub(super) const HEAD_BRANCH: Question = Question {
    name: "head-branch",
    args: &["symbolic-ref", "-q", "--short", "HEAD"],
};

pub(super) const HEAD_COMMIT: Question = Question {
    name: "head-commit",
    args: &["rev-parse", "-q", "--verify", "HEAD^{commit}"],
};

/// Full names only: the `:short` forms make git check every name for
/// ambiguity, which costs ~60% more on a repository with a thousand refs.
/// Short names are cut by the host instead. Peeled targets and upstreams
/// are asked apart (`join_refs` says why).
pub(super) const REFERENCES: Question = Question {
    name: "references",
    args: &[
        "for-each-ref",
        "--format=%(refname)%00%(objectname)",
        "refs/",
    ],
};

pub(super) const PEELED: Question = Question {
    name: "peeled",
    args: &["show-ref", "-d"],
};

pub(super) const UPSTREAM_CONFIG: Question = Question {
    name: "upstream-config",
    args: &[
        "config",
        "--null",
        "--name-only",
        "--get-regexp",
        r"^branch\..*\.merge$",
    ],
};

pub(super) const REMOTES: Question = Question {
    name: "remotes",
    args: &[
        "config",
        "--null",
        "--get-regexp",
        r"^remote\..*\.(url|pushurl)$",
    ],
};

pub(super) const STASHES: Question = Question {
    name: "stashes",
    args: &[
        "reflog",
        "show",
        "--no-show-signature",
        "--format=%H%x00%gs%x00",
        "refs/stash",
        "--",
    ],
};

pub(super) const STATUS: Question = Question {
    name: "status",
    args: &[
        "status",
        "--porcelain=v1",
        "-z",
        "--untracked-files=all",
        "--ignore-submodules=dirty",
        "--",
    ],
};

/// HEAD: its branch and its commit.
pub(super) const HEAD_ROUND: &[&Question] = &[&HEAD_BRANCH, &HEAD_COMMIT];

/// A repository's listing: what its discovery and its hash ask
/// (`references`, `remotes`, `stashes`).
pub(super) const LISTING_ROUND: &[&Question] =
    &[&REFERENCES, &PEELED, &UPSTREAM_CONFIG, &REMOTES, &STASHES];

/// A work tree's status and its repository's listing: a checkout's hash
/// asks the status, and registering or refreshing it lists its
/// repository right after.
pub(super) const STATUS_ROUND: &[&Question] = &[
    &STATUS,
    &REFERENCES,
    &PEELED,
    &UPSTREAM_CONFIG,
    &REMOTES,
    &STASHES,
];

impl GitScope {
    /// Ask those of `round` the operation's memo does not hold yet, side
    /// by side, and keep their answers (errors too, as one asked alone
    /// would be kept). Nothing without a memo, or with one question left;
    /// nothing either when the repository or its configuration cannot be
    /// read — the question asked then meets that as it always did.
    pub(super) async fn prefetch(&mut self, round: &[&Question]) {
        let Some(memo) = self.memo.clone() else {
            return;
        };
        if self.remote.is_some() {
            return;
        }
        let Ok(repo) = self.repository().await else {
            return;
        };
        let scope = format!("repo {}", repo.git_dir);
        let missing: Vec<&Question> = round
            .iter()
            .copied()
            .filter(|q| memo.get(&scope, q.name).is_none())
            .collect();
        if missing.len() < 2 {
            return;
        }
        let Ok(neutral) = self.neutral().await else {
            return;
        };
        let run_dir = repo.run_dir();
        let dir_args = repo.dir_args();
        let tools = &self.tools;
        let asked = missing.iter().map(|q| {
            let argv: Vec<&str> = dir_args
                .iter()
                .map(String::as_str)
                .chain(q.args.iter().copied())
                .collect();
            let (run_dir, neutral) = (&run_dir, &neutral);
            async move { run(tools, run_dir, &argv, neutral).await }
        });
        let answers = join_all(asked.collect()).await;
        for (question, answer) in missing.iter().zip(&answers) {
            memo.put(&scope, question.name, answer);
        }
    }
}

/// Every future of `futures` driven at once; their outputs in order.
async fn join_all<F: Future>(futures: Vec<F>) -> Vec<F::Output> {
    let mut futures: Vec<Pin<Box<F>>> = futures.into_iter().map(Box::pin).collect();
    let mut outputs: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (future, output) in futures.iter_mut().zip(outputs.iter_mut()) {
            if output.is_none() {
                match future.as_mut().poll(cx) {
                    Poll::Ready(value) => *output = Some(value),
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
    outputs.into_iter().flatten().collect()
}
