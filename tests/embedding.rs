//! The library without the CLI: what `examples/embed.rs` shows, checked.

use resource_host::home::Home;
use resource_host::plugin::Limits;
use resource_host::registry::{
    AddPluginOptions, NewResource, Options, RegisterTypeOptions, Registry, RegistryError,
};
use std::path::Path;
use std::time::Duration;

fn wasm(name: &str) -> std::path::PathBuf {
    Path::new(env!("RESOURCE_HOST_WASM_DIR")).join(name)
}

#[test]
fn an_embedder_registers_a_plugin_backed_type_and_a_resource() {
    let dir = tempfile::tempdir().unwrap();
    let mut registry = Registry::open(&Home::new(dir.path().join("home"))).unwrap();
    registry
        .add_plugin(&wasm("python_package.wasm"), AddPluginOptions::default())
        .unwrap();
    let type_file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("plugins/examples/python-package/python-package.yaml");
    let ty = registry
        .register_type(&type_file, RegisterTypeOptions::default())
        .unwrap();
    let pkg = dir.path().join("pkg");
    std::fs::create_dir_all(pkg.join("acme")).unwrap();
    std::fs::write(
        pkg.join("setup.py"),
        "from setuptools import setup\nsetup(name='acme')\n",
    )
    .unwrap();
    std::fs::write(pkg.join("acme/__init__.py"), "").unwrap();
    let resource = registry
        .register_resource(
            NewResource {
                type_name: ty.name.to_string(),
                name: Some("local/acme".into()),
                args: vec![("path".into(), pkg.display().to_string())],
                ..NewResource::default()
            },
            Default::default(),
        )
        .unwrap();
    assert_eq!(resource.children.len(), 1);
    let tree = registry
        .get_resource_tree(&"local/acme".parse().unwrap(), None, None)
        .unwrap();
    assert_eq!(
        tree.children[0].name.as_ref().unwrap().as_str(),
        "local/acme/acme"
    );
}

#[test]
fn limits_are_the_embedders_to_set() {
    let dir = tempfile::tempdir().unwrap();
    let options = Options {
        limits: Limits {
            timeout: Duration::from_millis(300),
            ..Limits::default()
        },
        ..Options::default()
    };
    let mut registry = Registry::open_with(&Home::new(dir.path()), options).unwrap();
    registry
        .add_plugin(&wasm("faulty.wasm"), AddPluginOptions::default())
        .unwrap();
    registry
        .register_type_text(
            "name: t/loop\nresource_kind: physical\nuser_addable: true\nhandler: test.faulty:Loop\n",
            "loop.yaml",
            RegisterTypeOptions::default(),)
        .unwrap();
    let err = registry
        .register_resource(
            NewResource {
                type_name: "t/loop".into(),
                ..NewResource::default()
            },
            Default::default(),
        )
        .unwrap_err();
    assert!(matches!(err, RegistryError::Handler(_)), "{err}");
    assert!(
        err.to_string()
            .contains("timed out after 300ms during validate"),
        "{err}"
    );
}

#[test]
fn an_embedder_watches_on_its_own_thread_and_hears_each_refresh() {
    use resource_host::registry::{WatchEvent, WatchOptions};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let home = Home::new(dir.path().join("home"));
    let watched = dir.path().join("d");
    std::fs::create_dir_all(&watched).unwrap();
    let mut registry = Registry::open(&home).unwrap();
    registry
        .register_resource(
            NewResource {
                type_name: "fs-directory".into(),
                name: Some("local/d".into()),
                args: vec![("path".into(), watched.display().to_string())],
                ..NewResource::default()
            },
            Default::default(),
        )
        .unwrap();
    drop(registry);
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, events) = std::sync::mpsc::channel();
    let watcher = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut registry = Registry::open(&home).unwrap();
            registry
                .watch(&[], WatchOptions::default(), &stop, &mut |e| {
                    let _ = tx.send(e);
                })
                .map_err(|e| e.to_string())
        })
    };
    let next = |events: &std::sync::mpsc::Receiver<WatchEvent>| {
        events
            .recv_timeout(Duration::from_secs(60))
            .expect("an event")
    };
    assert!(matches!(next(&events), WatchEvent::Watching { .. }));
    std::fs::write(watched.join("x.txt"), "x\n").unwrap();
    let report = loop {
        if let WatchEvent::Refreshed { report, .. } = next(&events) {
            break report;
        }
    };
    assert_eq!(report.changed[0].added, ["local/d/x.txt"]);
    stop.store(true, Ordering::Relaxed);
    watcher.join().unwrap().unwrap();
}
