//! Embedding the registry in an agent runtime: no CLI, the same operations.
//!
//! Opens a registry on a home directory, adds the example plugin, registers
//! its plugin-backed type and a resource (the handler validates it and
//! discovers its children), and prints the tree.
//!
//! Run: `cargo run --example embed [HOME]` (a temporary home by default).

use resource_host::home::Home;
use resource_host::registry::{
    AddPluginOptions, NewResource, RegisterTypeOptions, Registry, TreeView,
};
use std::error::Error;
use std::path::{Path, PathBuf};

fn main() -> Result<(), Box<dyn Error>> {
    let scratch = tempfile::tempdir()?;
    let home = std::env::args_os()
        .nth(1)
        .map_or_else(|| scratch.path().join("home"), PathBuf::from);
    let mut registry = Registry::open(&Home::new(&home))?;

    // 1. The handler component and the type it backs.
    let wasm = Path::new(env!("RESOURCE_HOST_WASM_DIR")).join("python_package.wasm");
    let plugin = registry.add_plugin(&wasm, AddPluginOptions::replacing())?;
    let type_file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("plugins/examples/python-package/python-package.yaml");
    let ty = registry.register_type(&type_file, RegisterTypeOptions::replacing())?;
    println!(
        "plugin {} {} backs type {}",
        plugin.module, plugin.version, ty.name
    );

    // 2. A package on disk, registered as a resource.
    let pkg = scratch.path().join("acme");
    std::fs::create_dir_all(pkg.join("src/acme"))?;
    std::fs::write(
        pkg.join("pyproject.toml"),
        "[project]\nname = \"acme\"\nversion = \"0.3.0\"\n",
    )?;
    std::fs::write(pkg.join("src/acme/__init__.py"), "")?;
    let resource = registry.register_resource(
        NewResource {
            type_name: ty.name.to_string(),
            name: Some("local/acme".into()),
            args: vec![("path".into(), pkg.display().to_string())],
            ..NewResource::default()
        },
        Default::default(),
    )?;
    println!(
        "registered {} ({}), version {}",
        resource.label(),
        resource.resource_id,
        resource.properties["version"].as_str().unwrap_or("?")
    );

    // 3. What the handler discovered.
    print(
        &registry.get_resource_tree(&"local/acme".parse()?, None, None)?,
        0,
    );
    Ok(())
}

fn print(node: &TreeView, depth: usize) {
    let label = node
        .name
        .as_ref()
        .map_or_else(|| node.resource_id.to_string(), ToString::to_string);
    println!(
        "{}{label} ({})",
        "  ".repeat(depth),
        node.resource_type_name
    );
    for child in &node.children {
        print(child, depth + 1);
    }
}
