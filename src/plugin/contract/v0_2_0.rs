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
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use wasmtime::Store;
use wasmtime::component::{ComponentExportIndex, HasSelf, InstancePre, Linker, TypedFunc};

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

/// A component of this version, prepared: the generated bindings (which
/// type-check every export of an instance) and the index of each export,
/// looked up once, so a call fetches only the function it runs.
#[derive(Clone)]
pub(crate) struct Prepared {
    bindings: ResourceHandlerPre<CallState>,
    exports: Exports,
    /// Set once an instance of this component had all five exports
    /// type-checked (the first call, at load: `describe`). An export's
    /// type is the component's, the same in every instance, so later calls
    /// skip the check (see `typed`).
    checked: Arc<AtomicBool>,
}

#[derive(Clone, Copy)]
struct Exports {
    describe: ComponentExportIndex,
    validate: ComponentExportIndex,
    discover: ComponentExportIndex,
    content_hash: ComponentExportIndex,
    inspect: ComponentExportIndex,
}

impl Prepared {
    /// Bind `pre` (refused when the handler's exports are missing).
    pub fn new(pre: InstancePre<CallState>) -> wasmtime::Result<Self> {
        let bindings = ResourceHandlerPre::new(pre)?;
        let component = bindings.instance_pre().component();
        let handler = component
            .get_export_index(None, "cleveragents:resource/handler@0.2.0")
            .ok_or_else(|| wasmtime::format_err!("no handler export"))?;
        let export = |name: &str| {
            component
                .get_export_index(Some(&handler), name)
                .ok_or_else(|| wasmtime::format_err!("no export {name:?}"))
        };
        let exports = Exports {
            describe: export("describe")?,
            validate: export("validate")?,
            discover: export("discover")?,
            content_hash: export("content-hash")?,
            inspect: export("inspect")?,
        };
        Ok(Self {
            bindings,
            exports,
            checked: Arc::default(),
        })
    }
}

/// The export `index` of `instance` as a function of `Params` to
/// `Return`, unchecked: only called once `Prepared::checked` is set, that
/// is once the generated bindings' `load` checked every export of this
/// component against exactly these types (the types below are theirs).
#[allow(unsafe_code)]
fn typed<Params, Return>(
    store: &mut Store<CallState>,
    instance: &wasmtime::component::Instance,
    index: &ComponentExportIndex,
) -> wasmtime::Result<TypedFunc<Params, Return>>
where
    Params: wasmtime::component::ComponentNamedList + wasmtime::component::Lower,
    Return: wasmtime::component::ComponentNamedList + wasmtime::component::Lift,
{
    // Debug builds (the test suite) check anyway: a signature below that
    // drifted from the bindings' fails every test that calls it.
    if cfg!(debug_assertions) {
        return instance.get_typed_func::<Params, Return>(&mut *store, index);
    }
    let func = instance
        .get_func(&mut *store, index)
        .ok_or_else(|| wasmtime::format_err!("the handler export is gone"))?;
    // SAFETY: `TypedFunc::new_unchecked` requires that the function has
    // this signature. The export at `index` is the same function of the
    // same component in every instance, and the bindings' `load` (run on
    // an instance of this component before `checked` was set) type-checked
    // it against the very `Params`/`Return` each caller below names (the
    // signatures `bindgen!` generates for this WIT).
    Ok(unsafe { TypedFunc::new_unchecked(func) })
}

/// Instantiate `pre` in `store` and run `call`.
pub(super) async fn call(
    pre: &Prepared,
    store: &mut Store<CallState>,
    call: Call<'_>,
) -> wasmtime::Result<Answer> {
    if !pre.checked.load(Ordering::Acquire) {
        return call_checked(pre, store, call).await;
    }
    let instance = pre
        .bindings
        .instance_pre()
        .instantiate_async(&mut *store)
        .await?;
    let e = &pre.exports;
    Ok(match call {
        Call::Describe => {
            let f = typed::<(), (wit::PluginInfo,)>(store, &instance, &e.describe)?;
            Answer::Info(info(f.call_async(&mut *store, ()).await?.0))
        }
        Call::Validate { class, args } => {
            let args = properties_to_wit(args);
            let f = typed::<(&str, &[wit::Property]), (WitResult<Vec<wit::Property>>,)>(
                store,
                &instance,
                &e.validate,
            )?;
            let (answer,) = f.call_async(&mut *store, (class, &args)).await?;
            Answer::Properties(answer.map(properties_from_wit).map_err(error))
        }
        Call::Discover { class, view } => {
            let f = typed::<(&str, &wit::ResourceView), (WitResult<Vec<wit::Discovered>>,)>(
                store,
                &instance,
                &e.discover,
            )?;
            let (answer,) = f
                .call_async(&mut *store, (class, &view_to_wit(view)))
                .await?;
            Answer::Children(
                answer
                    .map(|children| children.into_iter().map(child).collect())
                    .map_err(error),
            )
        }
        Call::ContentHash { class, view } => {
            let f = typed::<(&str, &wit::ResourceView), (WitResult<String>,)>(
                store,
                &instance,
                &e.content_hash,
            )?;
            let (answer,) = f
                .call_async(&mut *store, (class, &view_to_wit(view)))
                .await?;
            Answer::Text(answer.map_err(error))
        }
        Call::Inspect { class, view, file } => {
            let f = typed::<(&str, &wit::ResourceView, Option<&str>), (WitResult<wit::Inspection>,)>(
                store, &instance, &e.inspect,
            )?;
            let (answer,) = f
                .call_async(&mut *store, (class, &view_to_wit(view), file))
                .await?;
            Answer::Inspection(
                answer
                    .map(|i| (i.text, properties_from_wit(i.fields)))
                    .map_err(error),
            )
        }
    })
}

/// What an operation answers, as the WIT has it.
type WitResult<T> = Result<T, wit::HandlerError>;

/// The first call of a component: through the generated bindings, which
/// type-check all five exports; then later calls may skip the check.
async fn call_checked(
    pre: &Prepared,
    store: &mut Store<CallState>,
    call: Call<'_>,
) -> wasmtime::Result<Answer> {
    let instance = pre.bindings.instantiate_async(&mut *store).await?;
    pre.checked.store(true, Ordering::Release);
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
