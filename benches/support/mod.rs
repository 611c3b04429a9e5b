//! What several benches share: the median they report and the small
//! registry the front-end benches (`mcp`, `python`) time `show_resource`
//! on. A bench takes it with `mod support;` (a directory module, so cargo
//! does not take it for a bench of its own).

#![allow(dead_code)] // each bench uses its own part

use resource_host::home::Home;
use resource_host::model::ResourceKey;
use resource_host::registry::{NewResource, Registry};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The median of `xs` (the upper one of an even count).
pub fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

/// A home under `tmp` holding `local/dir`, a directory of 20
/// subdirectories with a file each, registered with its children; the
/// home's path, the open registry and the key of `local/dir`.
pub fn show_fixture(tmp: &Path) -> (PathBuf, Registry, ResourceKey) {
    let home = tmp.join("home");
    let dir = tmp.join("dir");
    for i in 0..20 {
        std::fs::create_dir_all(dir.join(format!("d{i}"))).expect("dir");
        std::fs::write(dir.join(format!("d{i}/f.txt")), "f\n").expect("file");
    }
    let mut registry = Registry::open(&Home::new(&home)).expect("open");
    registry
        .register_resource(NewResource {
            type_name: "fs-directory".into(),
            name: Some("local/dir".into()),
            args: vec![("path".into(), dir.to_str().expect("utf-8").into())],
            ..NewResource::default()
        })
        .expect("register");
    let key = "local/dir".parse().expect("key");
    (home, registry, key)
}
