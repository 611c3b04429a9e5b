//! The `myteam.python` handler module: class `PythonPackageHandler` for the
//! spec's `myteam/python-package` type.
//!
//! A Python package is a directory holding `pyproject.toml` or `setup.py`.
//! This module owns what that means for the registry: which arguments are
//! valid (`validate`), which children it has (its import packages, found
//! as directories holding `__init__.py` at the root or under `src/`,
//! reported as `fs-directory` children), when it changed (a hash over the
//! metadata files) and how it is described (`inspect`).
//!
//! It sees the host filesystem only through the sandbox: the resource's
//! location, preopened read-only at its own absolute path.

mod metadata;

use metadata::{METADATA_FILES, Metadata};
use resource_handler_sdk::{
    Discovered, Handler, HandlerError, Inspection, Property, Props, ResourceView, log,
};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Component, Path};

/// How many lines of a file `inspect --file` shows, and how many bytes it
/// reads at most to find them.
const PREVIEW_LINES: usize = 10;
const PREVIEW_BYTES: u64 = 8 * 1024;

pub struct PythonPackageHandler;

impl Handler for PythonPackageHandler {
    const DESCRIPTION: &'static str =
        "A Python package directory (pyproject.toml or setup.py); discovers its import packages";

    fn validate(args: &Props) -> Result<Vec<Property>, HandlerError> {
        let path = args.require("path")?;
        let root = Path::new(path);
        let files = metadata_files(root);
        if !files
            .iter()
            .any(|f| *f == "pyproject.toml" || *f == "setup.py")
        {
            return Err(HandlerError::InvalidArgs(format!(
                "{path} holds neither pyproject.toml nor setup.py; \
                 point --path at the package root"
            )));
        }
        let meta = read_metadata(root, &files)?;
        log::debug!("validated {path}: {meta:?}");
        let mut props = vec![Property::new("path", path)];
        if let Some(name) = meta.name {
            props.push(Property::new("name", name));
        }
        if let Some(version) = meta.version {
            props.push(Property::new("version", version));
        }
        props.push(Property::new("metadata", files.join(",")));
        Ok(props)
    }

    fn discover(r: &ResourceView) -> Result<Vec<Discovered>, HandlerError> {
        let root = Path::new(r.location()?);
        let children = import_packages(root)?
            .into_iter()
            .map(|rel| {
                let location = root.join(&rel).to_string_lossy().into_owned();
                Discovered::new("fs-directory").named(&rel).at(location)
            })
            .collect::<Vec<_>>();
        log::info!(
            "{} import packages under {}",
            children.len(),
            root.display()
        );
        Ok(children)
    }

    fn content_hash(r: &ResourceView) -> Result<String, HandlerError> {
        let root = Path::new(r.location()?);
        let mut hasher = Sha256::new();
        for file in metadata_files(root) {
            let bytes = std::fs::read(root.join(file)).map_err(|e| io_error(file, &e))?;
            // Name and length frame each file, so moving bytes between
            // files changes the hash.
            hasher.update(file.as_bytes());
            hasher.update([0]);
            hasher.update((bytes.len() as u64).to_le_bytes());
            hasher.update(&bytes);
        }
        Ok(format!("sha256:{}", hex(&hasher.finalize())))
    }

    fn inspect(r: &ResourceView, file: Option<&str>) -> Result<Inspection, HandlerError> {
        let root = Path::new(r.location()?);
        match file {
            None => describe_package(r, root),
            Some(file) => describe_file(root, file),
        }
    }
}

resource_handler_sdk::export_plugin!(
    module: "myteam.python",
    version: env!("CARGO_PKG_VERSION"),
    classes: [PythonPackageHandler],
);

// The type this module's class handles travels inside the component.
resource_handler_sdk::embed_types!("../python-package.yaml");

/// The metadata files present in `root`, in [`METADATA_FILES`] order.
fn metadata_files(root: &Path) -> Vec<&'static str> {
    METADATA_FILES
        .into_iter()
        .filter(|f| root.join(f).is_file())
        .collect()
}

fn read_metadata(root: &Path, files: &[&str]) -> Result<Metadata, HandlerError> {
    let mut meta = Metadata::default();
    for file in files {
        let text = std::fs::read_to_string(root.join(file)).map_err(|e| io_error(file, &e))?;
        meta = meta.or(metadata::parse(file, &text));
    }
    Ok(meta)
}

/// Directories holding `__init__.py`, directly in `root` or in `root/src`,
/// as paths relative to `root` (`pkg`, `src/pkg`), sorted. Symlinks are not
/// followed: a package is a real directory inside the resource.
fn import_packages(root: &Path) -> Result<Vec<String>, HandlerError> {
    let mut found = Vec::new();
    for base in ["", "src"] {
        let dir = root.join(base);
        if base == "src" && !dir.is_dir() {
            continue;
        }
        let entries = std::fs::read_dir(&dir).map_err(|e| io_error(dir.display(), &e))?;
        for entry in entries {
            let entry = entry.map_err(|e| io_error(dir.display(), &e))?;
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            if is_dir && entry.path().join("__init__.py").is_file() {
                let name = entry.file_name().to_string_lossy().into_owned();
                found.push(if base.is_empty() {
                    name
                } else {
                    format!("{base}/{name}")
                });
            }
        }
    }
    found.sort();
    Ok(found)
}

fn describe_package(r: &ResourceView, root: &Path) -> Result<Inspection, HandlerError> {
    let files = metadata_files(root);
    let meta = read_metadata(root, &files)?;
    let packages = import_packages(root)?;
    let name = meta.name.as_deref().or(r.property("name"));
    let listed = |items: &[String]| {
        if items.is_empty() {
            "(none)".to_owned()
        } else {
            items.join(", ")
        }
    };
    let files: Vec<String> = files.into_iter().map(str::to_owned).collect();
    // Text for people; the same facts as fields for `-o json`.
    let mut out = Inspection::new()
        .line(format!(
            "Python package {} {}",
            name.unwrap_or("(unnamed)"),
            meta.version.as_deref().unwrap_or("(no static version)"),
        ))
        .line(format!("location: {}", root.display()))
        .line(format!("metadata: {}", listed(&files)))
        .line(format!("import packages: {}", listed(&packages)))
        .data("location", root.display().to_string())
        .data("metadata", files.join(","))
        .data("import-packages", packages.join(","));
    if let Some(name) = name {
        out = out.data("name", name);
    }
    if let Some(version) = &meta.version {
        out = out.data("version", version.as_str());
    }
    Ok(out)
}

fn describe_file(root: &Path, file: &str) -> Result<Inspection, HandlerError> {
    let rel = Path::new(file);
    if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
        return Err(HandlerError::InvalidArgs(format!(
            "file {file:?} must be a path relative to the package, without `..`"
        )));
    }
    let path = root.join(rel);
    let meta = std::fs::metadata(&path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            HandlerError::NotFound(format!("{file} does not exist in the package"))
        }
        _ => io_error(file, &e),
    })?;
    if meta.is_dir() {
        return Err(HandlerError::InvalidArgs(format!(
            "{file} is a directory, not a file"
        )));
    }
    let mut head = Vec::new();
    std::fs::File::open(&path)
        .and_then(|f| f.take(PREVIEW_BYTES).read_to_end(&mut head))
        .map_err(|e| io_error(file, &e))?;
    let text = String::from_utf8_lossy(&head);
    let mut out = Inspection::new()
        .line(format!("file: {file}"))
        .line(format!("size: {} bytes", meta.len()))
        .line(format!("first lines (up to {PREVIEW_LINES}):"))
        .data("file", file)
        .data("size", meta.len().to_string());
    for line in text.lines().take(PREVIEW_LINES) {
        out = out.line(format!("  {line}"));
    }
    Ok(out)
}

fn io_error(what: impl std::fmt::Display, e: &std::io::Error) -> HandlerError {
    HandlerError::Io(format!("{what}: {e}"))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
