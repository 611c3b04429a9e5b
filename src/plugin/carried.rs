//! The type files a component carries: the one home of where they sit in
//! the bytes and how they are framed.
//!
//! A plugin ships as one file (or one registry artifact) that brings its
//! handler *and* the types naming its classes. They travel in custom
//! sections named [`TYPES_SECTION`], which every WebAssembly tool keeps
//! and ignores, so the file stays one valid, ordinary component
//! (`wasm-tools component wit` reads it, a registry stores it). A
//! section's payload is a run of files, each framed as its length (4
//! bytes, little-endian) then its UTF-8 text, so sections a linker
//! concatenates stay readable file by file.
//!
//! Two places hold them, and both are read: the component's own top level
//! (where [`carry_types`] — `agents plugin pack` — appends one to any
//! built component, a Python one included), and a core module directly
//! inside it (where a Rust guest's `resource_handler_sdk::embed_types!`
//! puts them at compile time). Nothing deeper is read: a nested
//! component's types are its own business.
//!
//! The text is a plugin's, so it is bounded here ([`MAX_FILES`],
//! [`MAX_BYTES`]) and a frame that runs past its section is refused, not
//! cut; what the files *say* is checked by `typespec` like any type file.

use thiserror::Error;
use wasmparser::{Encoding, Parser, Payload};

/// The custom section's name (the SDK's `TYPES_SECTION` is the same).
pub const TYPES_SECTION: &str = "cleveragents:resource-types";

/// At most this many type files in one component.
pub const MAX_FILES: usize = 100;

/// At most this many bytes of type files in one component, together.
pub const MAX_BYTES: usize = 1024 * 1024;

/// Why a component's carried type files cannot be read.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum CarriedTypesError {
    #[error("its {TYPES_SECTION} section is cut short: a type file's frame runs past the section")]
    Truncated,
    #[error("it carries more than {MAX_FILES} type files")]
    TooMany,
    #[error("it carries more than {} KiB of type files", MAX_BYTES / 1024)]
    TooBig,
    #[error("carried type file {index} is not UTF-8 text")]
    NotText { index: usize },
    #[error("not a WebAssembly component: {0}")]
    Invalid(String),
    #[error("it already carries type files; pack the component as it was built, not a packed one")]
    AlreadyCarries,
}

/// The type files `component` carries, in the order they sit in it (none
/// for a component without them).
pub fn carried_types(component: &[u8]) -> Result<Vec<String>, CarriedTypesError> {
    let mut payloads = Vec::new();
    // The stack of what encloses each payload: the top-level component,
    // then modules and components nested in it.
    let mut depth: Vec<Encoding> = Vec::new();
    for payload in Parser::new(0).parse_all(component) {
        let payload = payload.map_err(|e| CarriedTypesError::Invalid(e.to_string()))?;
        match payload {
            Payload::Version { encoding, .. } => depth.push(encoding),
            Payload::End(_) => {
                depth.pop();
            }
            Payload::CustomSection(section) if section.name() == TYPES_SECTION => {
                let readable = matches!(
                    depth.as_slice(),
                    [Encoding::Component] | [Encoding::Component, Encoding::Module]
                );
                if readable {
                    payloads.push(section.data().to_vec());
                }
            }
            _ => {}
        }
    }
    let mut files = Vec::new();
    let mut total = 0usize;
    for payload in &payloads {
        let mut rest = payload.as_slice();
        while !rest.is_empty() {
            let (len, tail) = rest
                .split_first_chunk::<4>()
                .ok_or(CarriedTypesError::Truncated)?;
            let len = u32::from_le_bytes(*len) as usize;
            if len > tail.len() {
                return Err(CarriedTypesError::Truncated);
            }
            total += len;
            if files.len() == MAX_FILES {
                return Err(CarriedTypesError::TooMany);
            }
            if total > MAX_BYTES {
                return Err(CarriedTypesError::TooBig);
            }
            let (text, tail) = tail.split_at(len);
            let text = std::str::from_utf8(text).map_err(|_| CarriedTypesError::NotText {
                index: files.len() + 1,
            })?;
            files.push(text.to_owned());
            rest = tail;
        }
    }
    Ok(files)
}

/// `component` with `files` appended in one top-level [`TYPES_SECTION`]
/// (still one valid component); refused when it carries some already, so
/// no type is carried twice.
pub fn carry_types(component: &[u8], files: &[String]) -> Result<Vec<u8>, CarriedTypesError> {
    if !carried_types(component)?.is_empty() {
        return Err(CarriedTypesError::AlreadyCarries);
    }
    if files.len() > MAX_FILES {
        return Err(CarriedTypesError::TooMany);
    }
    if files.iter().map(String::len).sum::<usize>() > MAX_BYTES {
        return Err(CarriedTypesError::TooBig);
    }
    let mut payload = Vec::new();
    write_name(&mut payload, TYPES_SECTION);
    for file in files {
        payload.extend_from_slice(&(file.len() as u32).to_le_bytes());
        payload.extend_from_slice(file.as_bytes());
    }
    let mut out = component.to_vec();
    out.push(0); // a custom section
    write_leb(&mut out, payload.len());
    out.extend_from_slice(&payload);
    Ok(out)
}

fn write_name(out: &mut Vec<u8>, name: &str) {
    write_leb(out, name.len());
    out.extend_from_slice(name.as_bytes());
}

fn write_leb(out: &mut Vec<u8>, mut n: usize) {
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The smallest component: the preamble alone.
    const EMPTY_COMPONENT: &[u8] = b"\0asm\x0d\0\x01\0";

    fn files(texts: &[&str]) -> Vec<String> {
        texts.iter().map(|t| (*t).to_owned()).collect()
    }

    #[test]
    fn a_component_without_a_section_carries_no_types() {
        assert_eq!(
            carried_types(EMPTY_COMPONENT).unwrap(),
            Vec::<String>::new()
        );
    }

    #[test]
    fn packed_files_are_read_back_in_order_and_the_component_stays_valid() {
        let packed = carry_types(EMPTY_COMPONENT, &files(&["name: a/b\n", "name: a/c\n"])).unwrap();
        assert_eq!(
            carried_types(&packed).unwrap(),
            files(&["name: a/b\n", "name: a/c\n"])
        );
        wasmparser::Validator::new_with_features(wasmparser::WasmFeatures::all())
            .validate_all(&packed)
            .expect("still a valid component");
    }

    #[test]
    fn packing_a_packed_component_is_refused() {
        let packed = carry_types(EMPTY_COMPONENT, &files(&["name: a/b\n"])).unwrap();
        assert_eq!(
            carry_types(&packed, &files(&["name: a/c\n"])).unwrap_err(),
            CarriedTypesError::AlreadyCarries
        );
    }

    #[test]
    fn a_frame_running_past_its_section_is_refused_not_cut() {
        let mut payload = Vec::new();
        write_name(&mut payload, TYPES_SECTION);
        payload.extend_from_slice(&100u32.to_le_bytes());
        payload.extend_from_slice(b"name: a/b");
        let mut bytes = EMPTY_COMPONENT.to_vec();
        bytes.push(0);
        write_leb(&mut bytes, payload.len());
        bytes.extend_from_slice(&payload);
        assert_eq!(
            carried_types(&bytes).unwrap_err(),
            CarriedTypesError::Truncated
        );
    }

    #[test]
    fn text_that_is_not_utf8_is_refused_naming_the_file() {
        let packed = carry_types(EMPTY_COMPONENT, &files(&["name: a/b\n"])).unwrap();
        let mut bytes = packed.clone();
        let at = bytes.len() - 2;
        bytes[at] = 0xff;
        assert_eq!(
            carried_types(&bytes).unwrap_err(),
            CarriedTypesError::NotText { index: 1 }
        );
    }
}
