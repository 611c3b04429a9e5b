//! Contract `cleveragents:resource@0.2.0` (`wit/v0.2.0/`): its host-side
//! bindings — the `host` interface (log, mount point, lstat, read-dir,
//! sha256-file) and the
//! read-only `git` interface, answered by `plugin::git` and the call's
//! view — and the conversions between its generated types and the plain
//! mirrors. Frozen once released: a change is a new version.

use super::{Answer, Call, RawChild, RawInfo};
use crate::plugin::git as host_git;
use crate::plugin::location::EntryStat;
use crate::plugin::sandbox::CallState;
use crate::plugin::types::{HandlerError, ResourceView};
use wasmtime::Store;
use wasmtime::component::{HasSelf, Linker};

wasmtime::component::bindgen!({
    path: "wit/v0.2.0",
    world: "resource-handler",
    imports: { default: async },
    exports: { default: async },
});

use cleveragents::resource::git as wgit;
use cleveragents::resource::host as whost;
use cleveragents::resource::types as wit;

impl wit::Host for CallState {}

impl whost::Host for CallState {
    async fn log(&mut self, level: whost::LogLevel, message: String) {
        let level = match level {
            whost::LogLevel::Trace => log::Level::Trace,
            whost::LogLevel::Debug => log::Level::Debug,
            whost::LogLevel::Info => log::Level::Info,
            whost::LogLevel::Warn => log::Level::Warn,
            whost::LogLevel::Error => log::Level::Error,
        };
        self.host_log(level, message);
    }

    async fn location_is_mount_point(&mut self) -> bool {
        self.view().is_some_and(|v| v.is_mount_point())
    }

    async fn lstat(&mut self, path: String) -> Option<whost::EntryStat> {
        Some(entry_stat(self.view()?.entry_stat(&path)?))
    }

    async fn sha256_file(&mut self, path: String) -> Result<String, String> {
        let view = self
            .view()
            .ok_or_else(|| "the call has no location".to_owned())?;
        view.sha256_file(&path, MAX_HASHED_FILE)
    }

    async fn read_dir(&mut self, path: String) -> Result<Vec<whost::DirEntry>, String> {
        let view = self
            .view()
            .ok_or_else(|| "the call has no location".to_owned())?;
        Ok(view
            .dir_entries(&path, MAX_DIR_ENTRIES)?
            .into_iter()
            .map(|(name, stat)| whost::DirEntry {
                name,
                stat: entry_stat(stat),
            })
            .collect())
    }
}

/// The largest file `sha256-file` reads (the WIT says so).
const MAX_HASHED_FILE: u64 = 64 * 1024 * 1024;

/// The most entries `read-dir` answers with (the WIT says so).
const MAX_DIR_ENTRIES: usize = 100_000;

fn entry_stat(stat: EntryStat) -> whost::EntryStat {
    whost::EntryStat {
        mode: stat.mode,
        links: stat.links,
        inode: stat.inode,
        device: stat.device,
        size: stat.size,
        modified_ns: stat.modified_ns,
    }
}

type GitResult<T> = Result<T, wgit::GitError>;

fn git_error(e: host_git::GitError) -> wgit::GitError {
    match e {
        host_git::GitError::NotARepository(m) => wgit::GitError::NotARepository(m),
        host_git::GitError::NotFound(m) => wgit::GitError::NotFound(m),
        host_git::GitError::Invalid(m) => wgit::GitError::Invalid(m),
        host_git::GitError::Failed(m) => wgit::GitError::Failed(m),
    }
}

fn commit(c: host_git::Commit) -> wgit::Commit {
    wgit::Commit {
        id: c.id,
        tree: c.tree,
        parents: c.parents,
        author_name: c.author_name,
        author_email: c.author_email,
        author_time: c.author_time,
        committer_time: c.committer_time,
        summary: c.summary,
    }
}

impl wgit::Host for CallState {
    async fn repository(&mut self) -> GitResult<wgit::RepositoryInfo> {
        let r = self.git().repository().await.map_err(git_error)?;
        Ok(wgit::RepositoryInfo {
            git_dir: r.git_dir,
            work_tree: r.work_tree,
            id_length: r.id_length,
        })
    }

    async fn head(&mut self) -> GitResult<wgit::HeadInfo> {
        let h = self.git().head().await.map_err(git_error)?;
        Ok(wgit::HeadInfo {
            branch: h.branch,
            commit: h.commit,
        })
    }

    async fn references(&mut self) -> GitResult<Vec<wgit::Reference>> {
        let refs = self.git().references().await.map_err(git_error)?;
        Ok(refs
            .into_iter()
            .map(|r| wgit::Reference {
                name: r.name,
                short_name: r.short_name,
                kind: match r.kind {
                    host_git::RefKind::Branch => wgit::RefKind::Branch,
                    host_git::RefKind::RemoteBranch => wgit::RefKind::RemoteBranch,
                    host_git::RefKind::Tag => wgit::RefKind::Tag,
                    host_git::RefKind::Other => wgit::RefKind::Other,
                },
                target: r.target,
                peeled: r.peeled,
                upstream: r.upstream,
            })
            .collect())
    }

    async fn remotes(&mut self) -> GitResult<Vec<wgit::Remote>> {
        let remotes = self.git().remotes().await.map_err(git_error)?;
        Ok(remotes
            .into_iter()
            .map(|r| wgit::Remote {
                name: r.name,
                url: r.url,
                push_url: r.push_url,
            })
            .collect())
    }

    async fn stashes(&mut self) -> GitResult<Vec<wgit::Stash>> {
        let stashes = self.git().stashes().await.map_err(git_error)?;
        Ok(stashes
            .into_iter()
            .map(|s| wgit::Stash {
                index: s.index,
                commit: s.commit,
                message: s.message,
            })
            .collect())
    }

    async fn submodules(&mut self) -> GitResult<Vec<wgit::Submodule>> {
        let subs = self.git().submodules().await.map_err(git_error)?;
        Ok(subs
            .into_iter()
            .map(|s| wgit::Submodule {
                name: s.name,
                path: s.path,
                url: s.url,
                commit: s.commit,
            })
            .collect())
    }

    async fn read_commit(&mut self, id: String) -> GitResult<wgit::Commit> {
        self.git()
            .read_commit(&id)
            .await
            .map(commit)
            .map_err(git_error)
    }

    async fn read_tree(&mut self, id: String) -> GitResult<Vec<wgit::TreeEntry>> {
        let entries = self.git().read_tree(&id).await.map_err(git_error)?;
        Ok(entries
            .into_iter()
            .map(|e| wgit::TreeEntry {
                name: e.name,
                mode: e.mode,
                id: e.id,
                kind: match e.kind {
                    host_git::EntryKind::Blob => wgit::EntryKind::Blob,
                    host_git::EntryKind::Tree => wgit::EntryKind::Tree,
                    host_git::EntryKind::Commit => wgit::EntryKind::Commit,
                },
            })
            .collect())
    }

    async fn blob_id(&mut self, path: String) -> GitResult<Option<String>> {
        self.git().blob_id(&path).await.map_err(git_error)
    }

    async fn status(&mut self, path: Option<String>) -> GitResult<Vec<wgit::PathStatus>> {
        let found = self
            .git()
            .status(path.as_deref())
            .await
            .map_err(git_error)?;
        Ok(found
            .into_iter()
            .map(|s| wgit::PathStatus {
                path: s.path,
                index: s.index,
                worktree: s.worktree,
            })
            .collect())
    }

    async fn divergence(&mut self, branch: String) -> GitResult<Option<wgit::AheadBehind>> {
        let d = self.git().divergence(&branch).await.map_err(git_error)?;
        Ok(d.map(|(ahead, behind)| wgit::AheadBehind { ahead, behind }))
    }

    async fn last_commit(&mut self, path: String) -> GitResult<Option<wgit::Commit>> {
        let c = self.git().last_commit(&path).await.map_err(git_error)?;
        Ok(c.map(commit))
    }
}

pub(super) fn add_to_linker(linker: &mut Linker<CallState>) -> wasmtime::Result<()> {
    ResourceHandler::add_to_linker::<CallState, HasSelf<CallState>>(linker, |s| s)
}

/// Instantiate `pre` in `store` and run `call`.
pub(super) async fn call(
    pre: &ResourceHandlerPre<CallState>,
    store: &mut Store<CallState>,
    call: Call<'_>,
) -> wasmtime::Result<Answer> {
    let instance = pre.instantiate_async(&mut *store).await?;
    let h = instance.cleveragents_resource_handler();
    Ok(match call {
        Call::Describe => Answer::Info(info(h.call_describe(&mut *store).await?)),
        Call::Validate { class, args } => {
            let args = properties_to_wit(args);
            Answer::Properties(
                h.call_validate(&mut *store, class, &args)
                    .await?
                    .map(properties_from_wit)
                    .map_err(error),
            )
        }
        Call::Discover { class, view } => Answer::Children(
            h.call_discover(&mut *store, class, &view_to_wit(view))
                .await?
                .map(|children| children.into_iter().map(child).collect())
                .map_err(error),
        ),
        Call::ContentHash { class, view } => Answer::Text(
            h.call_content_hash(&mut *store, class, &view_to_wit(view))
                .await?
                .map_err(error),
        ),
        Call::Inspect { class, view, file } => Answer::Inspection(
            h.call_inspect(&mut *store, class, &view_to_wit(view), file)
                .await?
                .map(|i| (i.text, properties_from_wit(i.fields)))
                .map_err(error),
        ),
    })
}

super::plain_conversions!();
