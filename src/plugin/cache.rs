//! The on-disk compile cache: the one home of how compiled components are
//! kept and trusted.
//!
//! An entry is `<cache_dir>/<wasm sha256>-<engine compat digest>.cwasm`,
//! so a component is compiled once per engine configuration. Deserializing
//! compiled code is `unsafe` (it is trusted machine code), so only our own
//! files are read: the exact name derived from the key, written by us via
//! temp file + rename, with a header holding a magic tag, the sha256 of
//! the wasm it was compiled from and the sha256 of the compiled bytes,
//! checked before wasmtime sees them. The wasm digest binds the entry to
//! the verified plugin: an entry copied over from another component (a
//! sound entry under the wrong name) is refused, never run under the
//! verified plugin's hash. Any unusable entry is logged and recompiled,
//! never fatal; failing to write the cache only costs speed. The cache
//! directory must be private (`trust`): code is only loaded from a
//! directory nobody else can write.

use super::error::PluginError;
use super::files::write_atomic;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use wasmtime::Engine;
use wasmtime::component::Component;

const MAGIC: &[u8; 8] = b"rhcwasm2";
const HEADER: usize = MAGIC.len() + 32 + 32;

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

/// The compile cache of one runtime: a private directory, or none (a
/// runtime without a home compiles every component it loads).
#[derive(Debug, Clone)]
pub(crate) struct CompileCache {
    dir: Option<PathBuf>,
}

impl CompileCache {
    pub fn new(dir: Option<PathBuf>) -> Self {
        Self { dir }
    }

    pub fn entry_path(&self, sha256: &str, compat: &str) -> Option<PathBuf> {
        Some(self.dir.as_ref()?.join(format!("{sha256}-{compat}.cwasm")))
    }

    /// The component for `wasm` (whose hash is `sha256`), from the cache if
    /// a sound entry exists, else compiled and cached.
    pub fn component(
        &self,
        engine: &Engine,
        compat: &str,
        sha256: &str,
        wasm: &[u8],
    ) -> Result<(Component, LoadOrigin), PluginError> {
        let compile =
            || Component::new(engine, wasm).map_err(|e| PluginError::Invalid(format!("{e:#}")));
        let (Some(dir), Some(path)) = (&self.dir, self.entry_path(sha256, compat)) else {
            return Ok((compile()?, LoadOrigin::Compiled));
        };
        super::trust::check_private_dir(dir)?;
        match load_entry(engine, &path, sha256) {
            Ok(Some(component)) => return Ok((component, LoadOrigin::DiskCache)),
            Ok(None) => {}
            Err(why) => log::warn!(
                target: "plugin",
                "compile cache entry {} is unusable ({why}); recompiling",
                path.display()
            ),
        }
        let component = compile()?;
        match component.serialize() {
            Ok(code) => {
                if let Err(e) = write_atomic(&path, &entry_bytes(sha256, &code), false) {
                    log::warn!(target: "plugin", "cannot write compile cache {}: {e}", path.display());
                }
            }
            Err(e) => log::warn!(target: "plugin", "cannot serialize a compiled component: {e:#}"),
        }
        Ok((component, LoadOrigin::Compiled))
    }
}

/// Header (magic, the wasm's sha256, the code's sha256) + the code.
fn entry_bytes(wasm_sha256: &str, code: &[u8]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(HEADER + code.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&digest_bytes(wasm_sha256));
    bytes.extend_from_slice(&Sha256::digest(code));
    bytes.extend_from_slice(code);
    bytes
}

/// The 32 bytes of a hex sha256 (zeros for text that is not one, which
/// then matches no entry).
fn digest_bytes(hex: &str) -> [u8; 32] {
    let mut out = [0u8; 32];
    if crate::digest::is_sha256_hex(hex) {
        for (i, byte) in out.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap_or(0);
        }
    }
    out
}

/// `Ok(None)`: no entry. `Err`: an entry that must not be used.
fn load_entry(
    engine: &Engine,
    path: &Path,
    wasm_sha256: &str,
) -> Result<Option<Component>, String> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let code = verified_code(&bytes, wasm_sha256)?;
    deserialize_verified(engine, code)
        .map(Some)
        .map_err(|e| format!("{e:#}"))
}

/// The compiled code of an entry whose header is sound and names the
/// component `wasm_sha256`.
fn verified_code<'b>(bytes: &'b [u8], wasm_sha256: &str) -> Result<&'b [u8], String> {
    if bytes.len() < HEADER || &bytes[..MAGIC.len()] != MAGIC {
        return Err("not a resource-host cache file".into());
    }
    let (wasm, rest) = bytes[MAGIC.len()..].split_at(32);
    if wasm != digest_bytes(wasm_sha256) {
        return Err(format!(
            "it was compiled from another component (sha256 {}), not from {wasm_sha256}",
            crate::digest::hex(wasm)
        ));
    }
    let (digest, code) = rest.split_at(32);
    if Sha256::digest(code).as_slice() != digest {
        return Err("its checksum does not match its contents".into());
    }
    Ok(code)
}

/// Turn verified cache bytes back into a component.
#[allow(unsafe_code)]
fn deserialize_verified(engine: &Engine, code: &[u8]) -> wasmtime::Result<Component> {
    // SAFETY: `code` comes from a file under our private cache dir (no one
    // else may write it, checked) whose name is derived from the wasm's
    // sha256 and this engine's compatibility digest; we wrote it (temp file
    // + rename) from `Component::serialize` of an engine with the same
    // configuration; its header names the verified wasm it was compiled
    // from and its sha256 was just checked against the header, so these
    // are exactly the bytes wasmtime produced for this component. wasmtime
    // additionally checks its own header and engine compatibility before
    // using them.
    unsafe { Component::deserialize(engine, code) }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    const B: &str = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";

    #[test]
    fn an_entry_round_trips_through_its_header() {
        let bytes = entry_bytes(A, b"compiled code");
        assert_eq!(verified_code(&bytes, A).unwrap(), b"compiled code");
    }

    #[test]
    fn a_flipped_byte_in_an_entry_is_detected() {
        let mut bytes = entry_bytes(A, b"compiled code");
        *bytes.last_mut().unwrap() ^= 1;
        assert_eq!(
            verified_code(&bytes, A).unwrap_err(),
            "its checksum does not match its contents"
        );
    }

    #[test]
    fn an_entry_of_another_component_is_refused() {
        let bytes = entry_bytes(B, b"compiled code");
        let err = verified_code(&bytes, A).unwrap_err();
        assert!(err.contains("compiled from another component"), "{err}");
        assert!(err.contains(B), "{err}");
    }

    #[test]
    fn a_file_that_is_not_ours_is_never_trusted() {
        assert!(verified_code(b"\x7fELF....", A).is_err());
    }
}
