//! [`PluginRuntime`]: the one home of component lifecycles. It owns the
//! lazily created engines (one per [`Compiler`]; a component's size picks
//! which compiles it), accepts components (`describe`), loads them
//! (compile cache, `InstancePre`, kept for the runtime's life) and hands
//! out [`LoadedModule`]s (accepting and loading are in `load`); the calls
//! themselves are in `call`.
//!
//! Accepting a component checks, in order: the bytes are WebAssembly and a
//! component (not a core module, not garbage); it exports our contract's
//! `handler` interface at our version; its imports are satisfiable in the
//! sandbox; `describe()` answers acceptably.

use super::cache::{CompileCache, LoadOrigin};
use super::contract::HandlerPre;
use super::engine::{Compiler, EngineState};
use super::engines::Engines;
use super::error::PluginError;
use super::git::{GitMemo, GitSnapshot, MemoSlot};
use super::limits::Limits;
use super::types::PluginInfo;
use crate::git_env::GitTools;
use crate::model::ModuleName;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

mod load;

/// Where a component's bytes come from.
#[derive(Debug, Clone, Copy)]
pub enum ComponentSource<'a> {
    /// Built into the binary (see [`super::builtin_component`]).
    Embedded {
        module: &'a ModuleName,
        bytes: &'static [u8],
    },
    /// A file of the plugin store, registered as `module` with `sha256`;
    /// the bytes are verified on every load.
    Stored {
        module: &'a ModuleName,
        path: &'a Path,
        sha256: &'a str,
    },
}

/// What accepting a component found: everything `agents plugin add`
/// checks, as `agents plugin check` reports it.
#[derive(Debug, Clone)]
pub struct Accepted {
    /// The component's sha256 (hex).
    pub sha256: String,
    /// Its checked `describe()` answer (module, version, classes, and the
    /// contract version it was built against).
    pub info: PluginInfo,
    /// What it imports, each satisfied by the sandbox.
    pub imports: Vec<String>,
    /// How long compiling took (or reading the compile cache: `origin`).
    pub compile_time: Duration,
    pub origin: LoadOrigin,
    /// The compiler its code is from.
    pub compiler: Compiler,
}

/// Runs handler components: one engine per compiler, one compile cache,
/// one `InstancePre` per loaded component.
#[derive(Debug)]
pub struct PluginRuntime {
    pub(crate) limits: Limits,
    /// Where one-entry views of file locations are made.
    pub(crate) views: Option<PathBuf>,
    cache: CompileCache,
    /// The per-user cache the built-in components are compiled into,
    /// shared by every home (see `cache`).
    shared: Option<CompileCache>,
    /// One engine per compiler, each made on its first use.
    engines: Engines,
    loaded: Mutex<HashMap<(ModuleName, String), LoadedModule>>,
    /// The current operation's git answers (see [`PluginRuntime::git_snapshot`]).
    git_memo: MemoSlot,
    /// Which `git` the host's git interface runs (see
    /// [`PluginRuntime::with_git`]).
    pub(crate) git: Arc<GitTools>,
}

/// A component ready to be called: its registered module name, hash,
/// `describe()` answer, and its `InstancePre`.
#[derive(Clone)]
pub struct LoadedModule(pub(crate) Arc<Loaded>);

#[derive(Clone)]
pub(crate) struct Loaded {
    pub module: ModuleName,
    pub sha256: String,
    pub info: PluginInfo,
    pub origin: LoadOrigin,
    pub pre: HandlerPre,
    pub engine: Arc<EngineState>,
}

impl LoadedModule {
    /// The module name it was loaded as (errors and logs use it).
    pub fn module(&self) -> &ModuleName {
        &self.0.module
    }
    pub fn sha256(&self) -> &str {
        &self.0.sha256
    }
    /// What the component said about itself when loaded.
    pub fn info(&self) -> &PluginInfo {
        &self.0.info
    }
    /// Whether this load compiled, read the disk cache, or reused memory.
    pub fn origin(&self) -> LoadOrigin {
        self.0.origin
    }
    /// The compiler its code is from.
    pub fn compiler(&self) -> Compiler {
        self.0.engine.compiler
    }
}

impl std::fmt::Debug for LoadedModule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoadedModule")
            .field("module", &self.0.module)
            .field("sha256", &self.0.sha256)
            .field("info", &self.0.info)
            .field("origin", &self.0.origin)
            .field("compiler", &self.0.engine.compiler)
            .finish_non_exhaustive()
    }
}

impl PluginRuntime {
    /// A runtime caching compiled code under `cache_dir`. Cheap: an
    /// engine is created on the first load or call that needs it.
    pub fn new(cache_dir: PathBuf, limits: Limits) -> Self {
        Self::with_cache(Some(cache_dir), limits)
    }

    /// A runtime with no compile cache on disk (every load compiles).
    pub fn without_cache(limits: Limits) -> Self {
        Self::with_cache(None, limits)
    }

    fn with_cache(cache_dir: Option<PathBuf>, limits: Limits) -> Self {
        Self {
            limits,
            views: None,
            cache: CompileCache::new(cache_dir),
            shared: None,
            engines: Engines::new(),
            loaded: Mutex::new(HashMap::new()),
            git_memo: MemoSlot::default(),
            git: Arc::default(),
        }
    }

    /// Compile every component with `compiler`, whatever its size (tests
    /// and benchmarks compare the two this way; Winch where it is not
    /// available fails to start its engine).
    pub fn with_compiler(mut self, compiler: Compiler) -> Self {
        self.engines.forced = Some(compiler);
        self
    }

    /// The compiler this runtime compiles a component of `size` bytes
    /// with: the forced one, else [`Compiler::for_size`].
    pub fn compiler_for(&self, size: u64) -> Compiler {
        self.engines.compiler_for(size)
    }

    /// Begin one operation's git snapshot: until the answer is dropped,
    /// calls answer the repository-wide git questions (which repository,
    /// HEAD, refs, remotes, stashes, submodules, status) once per
    /// repository. A registry takes one around each registration and
    /// discovery; nested, the outer one holds.
    pub fn git_snapshot(&self) -> GitSnapshot {
        GitSnapshot::begin(&self.git_memo)
    }

    /// The current operation's memo, if one was begun.
    pub(crate) fn git_memo(&self) -> Option<Arc<GitMemo>> {
        self.git_memo
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Make one-entry views of file locations under `dir` (created private
    /// when needed; best on the filesystem of the resources, so a view is a
    /// hard link rather than a copy). Without it, each view is a private
    /// temp directory.
    pub fn with_views_dir(mut self, dir: PathBuf) -> Self {
        self.views = Some(dir);
        self
    }

    /// Answer handlers' git questions with the `git` that `git` finds
    /// (default: on the system's standard directories,
    /// [`crate::git_env::STANDARD_PATH`]); the library reads no `PATH`.
    pub fn with_git(mut self, git: GitTools) -> Self {
        self.git = Arc::new(git);
        self
    }

    /// Compile the built-in components into `dir`, a per-user cache
    /// shared by every home (created private when missing), instead of
    /// each home's: a new home then starts without compiling them. A
    /// directory that is not private is not used (logged), the home's
    /// cache is.
    pub fn with_shared_cache(mut self, dir: Option<PathBuf>) -> Self {
        self.shared = dir.map(CompileCache::shared);
        self
    }

    /// The cache a component is compiled into: a built-in's goes to the
    /// shared cache when there is a usable one.
    fn cache_for(&self, embedded: bool) -> &CompileCache {
        match self.shared.as_ref().filter(|_| embedded) {
            Some(shared) => match shared.check_dir() {
                Ok(()) => shared,
                Err(e) => {
                    log::warn!(target: "plugin", "not using the shared compile cache: {e}");
                    &self.cache
                }
            },
            None => &self.cache,
        }
    }

    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Where the compiled form of the component `sha256`, of `size`
    /// bytes (which pick its compiler), is cached (none without a cache).
    /// Creates that compiler's engine.
    pub fn cache_entry_path(
        &self,
        sha256: &str,
        size: u64,
    ) -> Result<Option<PathBuf>, PluginError> {
        let engine = self.engines.get(self.compiler_for(size), &self.limits)?;
        Ok(self.cache.entry_path(sha256, &engine.compat))
    }

    /// Remove the compiled forms of the component `sha256` from the
    /// on-disk cache (when no plugin uses it any more).
    pub fn forget_compiled(&self, sha256: &str) {
        self.cache.forget(sha256);
    }

    /// Whether `engine` is one of this runtime's (never creates one).
    pub(crate) fn owns(&self, engine: &Arc<EngineState>) -> bool {
        self.engines.owns(engine)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runtime_and_its_modules_can_be_shared_across_threads() {
        fn shareable<T: Send + Sync>() {}
        shareable::<PluginRuntime>();
        shareable::<LoadedModule>();
    }

    #[test]
    fn a_new_runtime_creates_no_engine() {
        let rt = PluginRuntime::new(PathBuf::from("/nonexistent"), Limits::default());
        assert!(rt.engines.none_made());
    }

    #[test]
    fn a_component_from_the_threshold_up_is_winchs_where_winch_is_built_in() {
        let rt = PluginRuntime::without_cache(Limits::default());
        let big = if Compiler::WINCH_AVAILABLE {
            Compiler::Winch
        } else {
            Compiler::Cranelift
        };
        assert_eq!(rt.compiler_for(Compiler::WINCH_THRESHOLD), big);
        assert_eq!(rt.compiler_for(18 << 20), big);
        assert_eq!(
            rt.compiler_for(Compiler::WINCH_THRESHOLD - 1),
            Compiler::Cranelift
        );
        let forced = rt.with_compiler(Compiler::Cranelift);
        assert_eq!(forced.compiler_for(18 << 20), Compiler::Cranelift);
    }
}
