//! Build the guest components in `plugins/` (their own cargo workspace,
//! target `wasm32-wasip2`) and hand their directory to the crate as
//! `RESOURCE_HOST_WASM_DIR`, so the library (built-in handlers), tests,
//! benches and examples find `python_package.wasm`, `faulty.wasm`, … with
//! `env!("RESOURCE_HOST_WASM_DIR")`.
//!
//! The nested cargo builds into `plugins/target` (its own lock, never the
//! outer target dir's, and the same place an author's manual build uses),
//! so it is reused by every outer profile and a no-op build of it takes a
//! fraction of a second. This script reruns only when `wit/` or a source
//! under `plugins/` changes, so a no-op outer `cargo build` does not run it.

use std::path::{Path, PathBuf};
use std::process::Command;

const WASM_TARGET: &str = "wasm32-wasip2";

/// Environment an outer build sets that must not leak into the nested one:
/// flags and targets meant for the host crate, wrappers (clippy), and the
/// outer target dir (whose lock the outer cargo holds).
const CLEARED_VARS: &[&str] = &[
    "CARGO_ENCODED_RUSTFLAGS",
    "RUSTFLAGS",
    "RUSTDOCFLAGS",
    "CARGO_BUILD_RUSTFLAGS",
    "CARGO_TARGET_DIR",
    "CARGO_BUILD_TARGET",
    "CARGO_BUILD_TARGET_DIR",
    "RUSTC_WRAPPER",
    "RUSTC_WORKSPACE_WRAPPER",
    "CARGO_PRIMARY_PACKAGE",
    "CARGO_MANIFEST_DIR",
    "CARGO_MANIFEST_PATH",
    "TARGET",
    "HOST",
    "OUT_DIR",
    "PROFILE",
    "OPT_LEVEL",
    "DEBUG",
];
const CLEARED_PREFIXES: &[&str] = &[
    "CARGO_CFG_",
    "CARGO_FEATURE_",
    "CARGO_PKG_",
    "CARGO_PROFILE_",
    "CARGO_TARGET_",
];

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo"));
    let plugins = root.join("plugins");
    watch_sources(&root, &plugins);

    if !wasm_target_installed() && !add_wasm_target() {
        println!("cargo::error={WASM_TARGET} target missing: run rustup target add {WASM_TARGET}");
        return;
    }

    let plugins_target = plugins.join("target");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut nested = Command::new(cargo);
    nested
        .current_dir(&plugins)
        .args(["build", "--release", "--workspace", "--target", WASM_TARGET])
        .arg("--manifest-path")
        .arg(plugins.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&plugins_target);
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy();
        if CLEARED_VARS.contains(&key.as_ref())
            || CLEARED_PREFIXES.iter().any(|p| key.starts_with(p))
        {
            nested.env_remove(key.as_ref());
        }
    }
    match nested.status() {
        Ok(status) if status.success() => {}
        Ok(status) => {
            println!(
                "cargo::error=building the plugins/ workspace for {WASM_TARGET} failed ({status}); \
                 its errors are above"
            );
            return;
        }
        Err(e) => {
            println!("cargo::error=could not run cargo to build plugins/: {e}");
            return;
        }
    }

    let built = plugins_target.join(WASM_TARGET).join("release");
    let wasm_dir = out_dir.join("wasm");
    if let Err(e) = copy_components(&built, &wasm_dir) {
        println!(
            "cargo::error=copying the built components to {}: {e}",
            wasm_dir.display()
        );
        return;
    }
    println!(
        "cargo:rustc-env=RESOURCE_HOST_WASM_DIR={}",
        wasm_dir.display()
    );
}

/// Rerun on changes to the contract and to `plugins/` sources; never on
/// `plugins/target` (a directory is watched recursively, so the top-level
/// entries of `plugins/` are listed one by one, leaving `target` out).
fn watch_sources(root: &Path, plugins: &Path) {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={}", root.join("wit").display());
    if let Ok(entries) = std::fs::read_dir(plugins) {
        for entry in entries.flatten() {
            if entry.file_name() != "target" {
                println!("cargo:rerun-if-changed={}", entry.path().display());
            }
        }
    }
}

/// Is the standard library for [`WASM_TARGET`] in the compiler's sysroot?
fn wasm_target_installed() -> bool {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let Ok(output) = Command::new(rustc).args(["--print", "sysroot"]).output() else {
        return false;
    };
    let sysroot = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    Path::new(&sysroot)
        .join("lib/rustlib")
        .join(WASM_TARGET)
        .join("lib")
        .is_dir()
}

/// Add [`WASM_TARGET`] through rustup when this build runs under it
/// (`RUSTUP_TOOLCHAIN` names the toolchain rustup chose): rustup installs
/// the `targets` of `rust-toolchain.toml` only when it installs the
/// toolchain, so a machine that already had the pinned toolchain lacks
/// it. True when the target is there afterwards.
fn add_wasm_target() -> bool {
    let Some(toolchain) = std::env::var_os("RUSTUP_TOOLCHAIN") else {
        return false;
    };
    println!("cargo::warning={WASM_TARGET} target missing: adding it with rustup");
    let added = Command::new("rustup")
        .args(["target", "add", WASM_TARGET, "--toolchain"])
        .arg(toolchain)
        .stdout(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    added && wasm_target_installed()
}

/// Copy every `*.wasm` the nested build produced into `to`.
fn copy_components(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "wasm") {
            let name = path.file_name().expect("a file in a directory");
            std::fs::copy(&path, to.join(name))?;
        }
    }
    Ok(())
}
