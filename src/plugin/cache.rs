//! The on-disk compile cache: the one home of how compiled components are
//! kept and trusted.
//!
//! An entry is `<cache_dir>/<wasm sha256>-<engine compat digest>.cwasm`,
//! exactly the bytes `Component::serialize` wrote, so a component is
//! compiled once per engine configuration and an entry can be mapped
//! straight from the file (`Component::deserialize_file`: no copy, and the
//! component's initial memory image is a copy-on-write view of the file —
//! what makes an 18 MB Python component cheap to load). Deserializing
//! compiled code is `unsafe` (it is trusted machine code), so only our own
//! files are read: the exact name derived from the key, written by us via
//! temp file + rename (never changed in place, so a mapping another
//! process holds stays whole), and *sealed* (`seal`): the seal binds the
//! entry to the verified wasm it was compiled from and records the sha256
//! of the compiled bytes and the file's identity, so an entry copied over
//! from another component is refused, and one changed since it was sealed
//! is hashed again and refused unless its bytes are still the sealed ones.
//! Any unusable entry is logged and recompiled, never fatal; failing to
//! write the cache only costs speed. The cache directory must be private
//! (`trust`): code is only loaded from a directory nobody else can write,
//! and only from an entry (and seal) owned by the user or root and
//! writable by no one else — an entry that is not is recompiled over.
//!
//! There are two such caches ([`CacheKind`]): each home's, for its
//! plugins, and one per user shared by every home, for the built-in
//! components (the same bytes in every home: compiled once per user and
//! engine, not once per home). The embedder names the shared one (the CLI:
//! `$XDG_CACHE_HOME/agents`); the runtime uses the home's instead when
//! there is none or it is not private.

use super::error::PluginError;
use super::seal::{self, SealError};
use crate::atomic::write_atomic;
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use wasmtime::Engine;
use wasmtime::component::Component;

/// Where a loaded component's code came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadOrigin {
    /// Compiled now (and written to the cache).
    Compiled,
    /// Read from the on-disk compile cache.
    DiskCache,
    /// Already loaded by this runtime.
    Memory,
}

/// The bytes of the component to compile, fetched only on a cache miss.
pub(crate) type WasmSource<'a> = &'a dyn Fn() -> Result<Cow<'a, [u8]>, PluginError>;

/// Which of the two caches (for messages).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CacheKind {
    /// The home's (`<home>/cache/components`).
    Home,
    /// The user's, shared by every home (built-in components).
    Shared,
}

impl CacheKind {
    fn label(self) -> &'static str {
        match self {
            CacheKind::Home => "compile cache",
            CacheKind::Shared => "shared compile cache",
        }
    }
}

/// A compile cache: a private directory, or none (a runtime without a
/// home compiles every component it loads).
#[derive(Debug, Clone)]
pub(crate) struct CompileCache {
    dir: Option<PathBuf>,
    kind: CacheKind,
}

impl CompileCache {
    pub fn new(dir: Option<PathBuf>) -> Self {
        Self {
            dir,
            kind: CacheKind::Home,
        }
    }

    /// The per-user cache shared by every home, in `dir`.
    pub fn shared(dir: PathBuf) -> Self {
        Self {
            dir: Some(dir),
            kind: CacheKind::Shared,
        }
    }

    /// Refuse the directory unless it is private (created private when
    /// missing); no directory is fine.
    pub fn check_dir(&self) -> Result<(), PluginError> {
        self.dir
            .as_deref()
            .map_or(Ok(()), super::trust::check_private_dir)
    }

    pub fn entry_path(&self, sha256: &str, compat: &str) -> Option<PathBuf> {
        Some(self.dir.as_ref()?.join(format!("{sha256}-{compat}.cwasm")))
    }

    /// The component whose wasm hashes to `sha256`, from the cache if a
    /// sound entry exists, else compiled from `wasm()` (checked by
    /// `classify` first) and cached.
    pub fn component(
        &self,
        engine: &Engine,
        compat: &str,
        sha256: &str,
        wasm: WasmSource<'_>,
        classify: fn(&[u8]) -> Result<(), PluginError>,
    ) -> Result<(Component, LoadOrigin), PluginError> {
        if let Some(component) = self.lookup(engine, compat, sha256)? {
            return Ok((component, LoadOrigin::DiskCache));
        }
        let component = self.compile(engine, compat, sha256, wasm, classify)?;
        Ok((component, LoadOrigin::Compiled))
    }

    /// The cached component of `sha256` for the engine `compat`, if a
    /// sound entry exists (an unusable one is logged and ignored).
    pub fn lookup(
        &self,
        engine: &Engine,
        compat: &str,
        sha256: &str,
    ) -> Result<Option<Component>, PluginError> {
        let (Some(dir), Some(path)) = (&self.dir, self.entry_path(sha256, compat)) else {
            return Ok(None);
        };
        super::trust::check_private_dir(dir)?;
        let label = self.kind.label();
        match load_entry(engine, &path, sha256) {
            Ok(Some(component)) => {
                log::debug!(target: "plugin", "read {} from the {label}", path.display());
                Ok(Some(component))
            }
            Ok(None) => Ok(None),
            Err(why) => {
                log::warn!(
                    target: "plugin",
                    "{label} entry {} is unusable ({why}); recompiling",
                    path.display()
                );
                Ok(None)
            }
        }
    }

    /// Compile `wasm()` (checked by `classify` first) with `engine` and
    /// write it to the cache entry of (`sha256`, `compat`), if there is a
    /// cache; failing to write only costs speed.
    pub fn compile(
        &self,
        engine: &Engine,
        compat: &str,
        sha256: &str,
        wasm: WasmSource<'_>,
        classify: fn(&[u8]) -> Result<(), PluginError>,
    ) -> Result<Component, PluginError> {
        let compile = || -> Result<Component, PluginError> {
            let bytes = wasm()?;
            classify(&bytes)?;
            Component::new(engine, &bytes).map_err(|e| PluginError::Invalid(format!("{e:#}")))
        };
        let (Some(dir), Some(path)) = (&self.dir, self.entry_path(sha256, compat)) else {
            return compile();
        };
        super::trust::check_private_dir(dir)?;
        let label = self.kind.label();
        log::debug!(target: "plugin", "compiling {} into the {label}", path.display());
        let component = compile()?;
        match component.serialize() {
            Ok(code) => match write_atomic(&path, &code, false) {
                Ok(()) => seal::seal(&path, sha256, &crate::digest::sha256_hex(&code)),
                Err(e) => {
                    log::warn!(target: "plugin", "cannot write {label} {}: {e}", path.display());
                }
            },
            Err(e) => log::warn!(target: "plugin", "cannot serialize a compiled component: {e:#}"),
        }
        Ok(component)
    }
}

impl CompileCache {
    /// Whether an entry of `sha256` for an engine other than `compat` is
    /// there (a directory listing: no engine needed to ask).
    pub fn has_entry_besides(&self, sha256: &str, compat: &str) -> bool {
        let Some(dir) = &self.dir else { return false };
        let (prefix, ours) = (format!("{sha256}-"), format!("{sha256}-{compat}.cwasm"));
        std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .any(|entry| {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                name.starts_with(&prefix) && name.ends_with(".cwasm") && name != ours
            })
    }

    /// Remove every entry compiled from the wasm `sha256`, whatever engine
    /// compiled it (best effort: a leftover entry only costs disk).
    pub fn forget(&self, sha256: &str) {
        let Some(dir) = &self.dir else { return };
        if !crate::digest::is_sha256_hex(sha256) {
            return;
        }
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let prefix = format!("{sha256}-");
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with(&prefix)
                && (name.ends_with(".cwasm") || name.ends_with(".cwasm.seal"))
                && let Err(e) = std::fs::remove_file(entry.path())
            {
                log::warn!(target: "plugin", "cannot remove compile cache entry {name}: {e}");
            }
        }
    }
}

/// `Ok(None)`: no usable entry (none, or never sealed). `Err`: an entry
/// that must not be used.
fn load_entry(
    engine: &Engine,
    path: &Path,
    wasm_sha256: &str,
) -> Result<Option<Component>, String> {
    for file in [path.to_owned(), seal::seal_path(path)] {
        match std::fs::symlink_metadata(&file) {
            Ok(meta) => {
                if let Some(exposed) = crate::private_dir::exposed(&meta) {
                    return Err(
                        exposed.explain(&file, "they could swap in code the host would run")
                    );
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e.to_string()),
        }
    }
    match seal::check(path, wasm_sha256, None) {
        Ok(_) => {}
        Err(SealError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(SealError::Unsealed) => return Ok(None),
        Err(SealError::Io(e)) => return Err(e.to_string()),
        Err(SealError::Mismatch { .. }) => {
            return Err("its contents changed since it was written".into());
        }
    }
    deserialize_verified(engine, path)
        .map(Some)
        .map_err(|e| format!("{e:#}"))
}

/// Map a verified cache entry as a component.
#[allow(unsafe_code)]
fn deserialize_verified(engine: &Engine, path: &Path) -> wasmtime::Result<Component> {
    // SAFETY: `path` is a file under our private cache dir (no one else
    // may write it, checked) whose name is derived from the wasm's sha256
    // and this engine's compatibility digest; we wrote it (temp file +
    // rename, never in place) from `Component::serialize` of an engine
    // with the same configuration; its seal, checked just now, binds it to
    // the verified wasm and vouches that its bytes are the ones written
    // (or they were hashed again), so these are exactly the bytes wasmtime
    // produced for this component. wasmtime additionally checks its own
    // header and engine compatibility before using them. The file is
    // mapped: it is never modified in place (replacing it is a rename,
    // which leaves this mapping on the old file).
    unsafe { Component::deserialize_file(engine, path) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine() -> Engine {
        let mut config = wasmtime::Config::new();
        config.wasm_component_model(true);
        Engine::new(&config).unwrap()
    }

    /// The smallest component there is.
    const EMPTY: &[u8] = b"\0asm\x0d\0\x01\0";

    fn ok(_: &[u8]) -> Result<(), PluginError> {
        Ok(())
    }

    #[test]
    fn an_entry_is_written_sealed_and_then_mapped_from_disk() {
        let dir = tempfile::tempdir().unwrap();
        let cache = CompileCache::new(Some(dir.path().join("cache")));
        let engine = engine();
        let sha = crate::digest::sha256_hex(EMPTY);
        let wasm = || Ok(Cow::Borrowed(EMPTY));
        let (_, origin) = cache.component(&engine, "c", &sha, &wasm, ok).unwrap();
        assert_eq!(origin, LoadOrigin::Compiled);
        let never = || -> Result<Cow<'_, [u8]>, PluginError> { panic!("the wasm was read") };
        let (_, origin) = cache.component(&engine, "c", &sha, &never, ok).unwrap();
        assert_eq!(origin, LoadOrigin::DiskCache);
    }

    #[test]
    fn an_entry_of_another_component_or_changed_in_place_is_recompiled() {
        let dir = tempfile::tempdir().unwrap();
        let cache = CompileCache::new(Some(dir.path().join("cache")));
        let engine = engine();
        let sha = crate::digest::sha256_hex(EMPTY);
        let wasm = || Ok(Cow::Borrowed(EMPTY));
        cache.component(&engine, "c", &sha, &wasm, ok).unwrap();
        let entry = cache.entry_path(&sha, "c").unwrap();
        // Entry and seal copied under another component's name.
        let other = "0".repeat(64);
        let copy = cache.entry_path(&other, "c").unwrap();
        std::fs::copy(&entry, &copy).unwrap();
        std::fs::copy(
            entry.with_extension("cwasm.seal"),
            copy.with_extension("cwasm.seal"),
        )
        .unwrap();
        assert!(load_entry(&engine, &copy, &other).unwrap().is_none());
        // A byte flipped in place.
        let mut bytes = std::fs::read(&entry).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&entry, &bytes).unwrap();
        let err = load_entry(&engine, &entry, &sha).unwrap_err();
        assert!(err.contains("changed since it was written"), "{err}");
        let (_, origin) = cache.component(&engine, "c", &sha, &wasm, ok).unwrap();
        assert_eq!(origin, LoadOrigin::Compiled);
    }
}
