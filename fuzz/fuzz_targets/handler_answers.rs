//! The host's checking of handler answers: what a component answered to
//! `discover`, `validate`, `describe`, `content-hash`, `inspect` — or the
//! error it raised — is checked by `plugin`'s answer rules (bounds, names,
//! containment of child locations), and `discover`'s children then by the
//! registry's rules (registered child type allowed below the parent's,
//! discovery rules, virtual children without a location, child names
//! under the parent's, given once). The input is structured with
//! `arbitrary` into such answers; locations point into a small real tree
//! (directories, a file, symlinks in and out) made once.
//!
//! Beyond "no panic": an accepted child's location lies inside the
//! parent's; a child named by an accepted answer has a valid name under
//! the parent's, given once; every refusal says something.

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use resource_host::builtin;
use resource_host::model::ResourceName;
use resource_host::plugin::fuzzing::{self, RawChild, RawInfo};
use resource_host::plugin::{AnswerBounds, HandlerError};
use resource_host::registry::Registry;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

#[derive(Debug, Arbitrary)]
struct Input {
    /// Small bounds (to reach every bound), else the defaults.
    bounds: Option<Bounds>,
    parent_type: Pick,
    parent_name: Option<Pick>,
    parent_location: Option<Place>,
    children: Vec<Child>,
    describe: Option<Describe>,
    properties: Vec<(String, String)>,
    content_hash: String,
    inspect: (String, Vec<(String, String)>),
    error: (u8, String),
}

#[derive(Debug, Arbitrary)]
struct Bounds {
    max_children: u8,
    max_properties: u8,
    max_string_bytes: u8,
    max_hash_bytes: u8,
    max_text_bytes: u8,
    max_classes: u8,
}

#[derive(Debug, Arbitrary)]
struct Child {
    type_name: Pick,
    name: Option<Pick>,
    location: Option<Place>,
    properties: Vec<(String, String)>,
    content_hash: Option<String>,
}

#[derive(Debug, Arbitrary)]
struct Describe {
    module: Pick,
    version: String,
    classes: Vec<(Pick, String)>,
}

/// Text likely to matter (a built-in type name, a name suffix, a module,
/// a class), or any text.
#[derive(Debug, Arbitrary)]
enum Pick {
    Known(u8),
    Text(String),
}

/// A location: a path of the tree, joined below its root, or any text.
#[derive(Debug, Arbitrary)]
enum Place {
    Tree(u8),
    Below(String),
    Text(String),
}

const NAMES: [&str; 14] = [
    "local/repo",
    "local/repo/git",
    "src",
    "pkg/src",
    "../sibling",
    "..",
    "../",
    "../a/b",
    "",
    ".",
    "a b",
    "cleveragents.resource.handlers.git",
    "myteam.python",
    "PythonPackageHandler",
];

const TREE: [&str; 14] = [
    "",
    "pkg",
    "pkg/src",
    "pkg/setup.py",
    "file.txt",
    "link-out",
    "link-out/passwd",
    "link-in",
    "link-in/src",
    "pkg/up",
    "pkg/up/pkg",
    "missing",
    "missing/deeper",
    "pkg/../file.txt",
];

fn builtin_names() -> &'static [String] {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    NAMES.get_or_init(|| {
        builtin::specs()
            .into_iter()
            .map(|s| s.name.to_string())
            .collect()
    })
}

impl Pick {
    /// A type name: a built-in one, or the text.
    fn type_name(&self) -> String {
        match self {
            Self::Known(i) => {
                let names = builtin_names();
                names[usize::from(*i) % names.len()].clone()
            }
            Self::Text(t) => t.clone(),
        }
    }

    fn text(&self) -> String {
        match self {
            Self::Known(i) => NAMES[usize::from(*i) % NAMES.len()].to_owned(),
            Self::Text(t) => t.clone(),
        }
    }
}

/// The tree: directories, a file, a symlink out (to /etc), one in, and
/// one up (`pkg/up` → `..`).
fn tree() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let held = tempfile::tempdir().expect("a temp dir");
        let root = std::fs::canonicalize(held.path()).expect("canonical");
        std::fs::create_dir_all(root.join("pkg/src")).expect("mkdir");
        std::fs::write(root.join("pkg/setup.py"), "").expect("write");
        std::fs::write(root.join("file.txt"), "").expect("write");
        std::os::unix::fs::symlink("/etc", root.join("link-out")).expect("symlink");
        std::os::unix::fs::symlink("pkg", root.join("link-in")).expect("symlink");
        std::os::unix::fs::symlink("..", root.join("pkg/up")).expect("symlink");
        // Kept for the whole run (a fuzz process ends by exit or abort).
        let _ = held.keep();
        root
    })
}

impl Place {
    fn path(&self) -> String {
        match self {
            Self::Tree(i) => {
                let rel = TREE[usize::from(*i) % TREE.len()];
                tree().join(rel).to_string_lossy().into_owned()
            }
            Self::Below(rel) => tree().join(rel).to_string_lossy().into_owned(),
            Self::Text(t) => t.clone(),
        }
    }
}

thread_local! {
    /// One in-memory registry (the built-in types) for the whole run.
    static REGISTRY: Registry = Registry::open_in_memory().expect("an in-memory registry opens");
}

fn refusal(why: &impl std::fmt::Display) {
    let why = why.to_string();
    assert!(!why.trim().is_empty(), "a refusal that says nothing");
}

fuzz_target!(|input: Input| {
    let bounds = match &input.bounds {
        None => AnswerBounds::default(),
        Some(b) => AnswerBounds {
            max_children: usize::from(b.max_children),
            max_properties: usize::from(b.max_properties),
            max_string_bytes: usize::from(b.max_string_bytes),
            max_hash_bytes: usize::from(b.max_hash_bytes),
            max_text_bytes: usize::from(b.max_text_bytes),
            max_classes: usize::from(b.max_classes),
        },
    };

    if let Some(d) = &input.describe {
        let raw = RawInfo {
            module: d.module.text(),
            version: d.version.clone(),
            classes: d
                .classes
                .iter()
                .map(|(c, desc)| (c.text(), desc.clone()))
                .collect(),
        };
        match fuzzing::plugin_info(raw, &bounds) {
            Ok(info) => {
                assert!(!info.classes.is_empty());
                assert!(info.classes.len() <= bounds.max_classes);
                let distinct: BTreeSet<_> = info.classes.iter().map(|c| c.name.as_str()).collect();
                assert_eq!(distinct.len(), info.classes.len(), "a class twice");
            }
            Err(why) => refusal(&why),
        }
    }
    match fuzzing::properties(input.properties.clone(), &bounds) {
        Ok(props) => assert!(props.len() <= bounds.max_properties),
        Err(why) => refusal(&why),
    }
    match fuzzing::content_hash(input.content_hash.clone(), &bounds) {
        Ok(hash) => assert!(!hash.is_empty() && hash.len() <= bounds.max_hash_bytes),
        Err(why) => refusal(&why),
    }
    if let Err(why) = fuzzing::inspection(input.inspect.0.clone(), input.inspect.1.clone(), &bounds)
    {
        refusal(&why);
    }
    let (kind, message) = (input.error.0 % 5, input.error.1.clone());
    let error = match kind {
        0 => HandlerError::InvalidArgs(message),
        1 => HandlerError::NotFound(message),
        2 => HandlerError::Unsupported(message),
        3 => HandlerError::Io(message),
        _ => HandlerError::Failed(message),
    };
    match fuzzing::handler_error(error, &bounds) {
        Ok(e) => {
            let _ = e.to_string();
        }
        Err(why) => refusal(&why),
    }

    let location = input.parent_location.as_ref().map(Place::path);
    let raw: Vec<RawChild> = input
        .children
        .iter()
        .map(|c| RawChild {
            type_name: c.type_name.type_name(),
            name: c.name.as_ref().map(Pick::text),
            location: c.location.as_ref().map(Place::path),
            properties: c.properties.clone(),
            content_hash: c.content_hash.clone(),
        })
        .collect();
    let found = match fuzzing::children(raw, location.as_deref(), &bounds) {
        Ok(found) => found,
        Err(why) => return refusal(&why),
    };
    assert_eq!(found.len(), input.children.len());
    for child in &found {
        if let Some(at) = &child.location {
            let parent = location
                .as_deref()
                .expect("a child location needs the parent's");
            assert!(
                Path::new(at).starts_with(parent),
                "child location {at:?} is outside the parent's {parent:?}"
            );
        }
    }

    let parent_type = input.parent_type.type_name();
    let parent_name = input
        .parent_name
        .as_ref()
        .and_then(|p| ResourceName::parse(&p.text()).ok());
    let named = parent_name.is_some();
    let kids: Vec<_> = found.iter().map(|c| c.name.is_some()).collect();
    REGISTRY.with(|registry| {
        match registry.fuzz_child_rows(&parent_type, parent_name, location, found) {
            Ok(names) => {
                let mut seen = BTreeSet::new();
                for (name, had_name) in names.iter().zip(kids) {
                    assert_eq!(name.is_some(), named && had_name);
                    if let Some(name) = name {
                        assert!(seen.insert(name.clone()), "{name} given twice");
                    }
                }
            }
            Err(e) => refusal(&e.to_string()),
        }
    });
});
