//! A chain-shaped `registry import`: N resources, each
//! the child of the one before, imported into an empty home through the
//! library, for N = 2,000, 4,000 and 8,000 (`BENCH_SIZES=…` to choose).
//! The threat model promises an import linear in its document, so each
//! doubling should about double the time; the ratios are printed.
//! A link per resource is the worst shape for a cycle check that walks
//! from each new link (one walk per link is quadratic on a chain).
//!
//! Run: `cargo bench --bench import_chain`.

use resource_host::home::Home;
use resource_host::model::ResourceId;
use resource_host::registry::{ImportOptions, Registry, RegistryDocument};
use std::time::Instant;

/// A document of a chain of `n` links: fs-directory resources r0 → r1 →
/// … → rn, each link in the order a walk from the top meets it (the order
/// that made every link's cycle check walk the whole chain above it).
pub fn chain_document(n: usize, schema_version: i64) -> String {
    let id = |i: usize| {
        ResourceId::from_ulid(ulid::Ulid::from_parts(1_700_000_000_000, i as u128)).to_string()
    };
    let at = "2026-01-01T00:00:00Z";
    let resources: Vec<serde_json::Value> = (0..=n)
        .map(|i| {
            serde_json::json!({
                "resource_id": id(i),
                "name": format!("local/chain/r{i}"),
                "resource_type_name": "fs-directory",
                "classification": "physical",
                "location": format!("/nonexistent/chain/r{i}"),
                "description": null,
                "read_only": false,
                "auto_discovered": false,
                "sandbox_strategy": null,
                "content_hash": null,
                "properties": {},
                "created_at": at,
                "updated_at": at,
                "discovered_at": null,
                "stale": null,
            })
        })
        .collect();
    let links: Vec<serde_json::Value> = (0..n)
        .map(|i| {
            serde_json::json!({
                "parent_id": id(i),
                "child_id": id(i + 1),
                "auto_discovered": false,
                "derived": false,
                "created_at": at,
            })
        })
        .collect();
    serde_json::json!({
        "format": "agents-registry",
        "version": 1,
        "schema_version": schema_version,
        "exported_at": at,
        "produced_by": "import_chain bench",
        "builtin_catalogue": null,
        "types": [],
        "plugins": [],
        "resources": resources,
        "links": links,
        "environment_settings": [],
    })
    .to_string()
}

fn main() {
    let sizes: Vec<usize> = std::env::var("BENCH_SIZES")
        .ok()
        .map(|v| v.split(',').filter_map(|s| s.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![2_000, 4_000, 8_000]);
    println!("# chain-shaped registry import (library, SQLite home)\n");
    println!("| links | import | per link | vs the size before |");
    println!("|---:|---:|---:|---:|");
    let mut before: Option<f64> = None;
    for n in sizes {
        let tmp = tempfile::tempdir().expect("temp dir");
        let home = Home::new(tmp.path().join("home"));
        let mut registry = Registry::open(&home).expect("open");
        let schema = registry.info().expect("info").schema_version;
        let text = chain_document(n, schema);
        let document = RegistryDocument::parse(&text).expect("the document reads");
        let start = Instant::now();
        let report = registry
            .import_document(&document, ImportOptions::default())
            .expect("the chain imports");
        let took = start.elapsed().as_secs_f64();
        assert_eq!(report.links.added, n);
        let ratio = before.map_or("—".to_owned(), |b| format!("{:.2}×", took / b));
        println!(
            "| {n} | {:.3} s | {:.1} µs | {ratio} |",
            took,
            took * 1e6 / n as f64
        );
        before = Some(took);
    }
}
