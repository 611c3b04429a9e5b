//! Part 3: `link_child` (the library call: one write transaction — the
//! lock, both lookups, the type rules, the cycle check, the insert) on a
//! graph of L links on PostgreSQL, vs the cycle check's query alone
//! through a plain client, taken in turns for the same pair.
//!
//! The graph is `benches/registry.rs`'s, bulk-loaded with SQL (the setup
//! is not what is measured): L/2 resources, each a copy of one resource
//! registered through the library (so every column is what registration
//! writes; ids are 26-character ULID text), and L random links, each from
//! a lower to a higher index. Cases as there: allowed links from near the
//! top to a random node, the reverse (a cycle, refused), and the worst
//! case — a sink below every node, so that a link below the sink walks
//! every link.

use super::{NODE_TYPE, Rng, Schema, ms, stats};
use resource_host::home::Home;
use resource_host::model::ResourceKey;
use resource_host::registry::{NewResource, RegisterTypeOptions, Registry};
use std::path::Path;
use std::time::{Duration, Instant};

const SAMPLES: usize = 200;
const WORST_SAMPLES: usize = 5;
const STAMP: &str = "2026-01-01T00:00:00.000Z";

/// Node `i`'s id: a valid ULID (Crockford base32 upper-case hex digits).
fn node_id(i: usize) -> String {
    format!("01JB{i:022X}")
}

/// [`node_id`] in SQL, of the integer expression `x`.
fn node_id_sql(x: &str) -> String {
    format!("('01JB' || lpad(upper(to_hex({x})), 22, '0'))")
}

/// The store's cycle check (`Reader::reaches`): is `to` among `from`'s
/// ancestors (or itself)? Asked for a link parent → child as
/// `reaches(child, parent)`: $1 the child, $2 the parent.
const REACHES_SQL: &str = "WITH RECURSIVE up(id) AS (
     SELECT CAST($2 AS TEXT) COLLATE \"C\"
     UNION
     SELECT l.parent_id FROM resource_links l JOIN up u ON l.child_id = u.id
 )
 SELECT EXISTS (SELECT 1 FROM up WHERE id = $1)";

fn key(id: &str) -> ResourceKey {
    ResourceKey::parse(id).expect("a resource id")
}

fn node(name: &str, dir: &Path) -> NewResource {
    NewResource {
        type_name: "bench/node".into(),
        name: Some(name.to_owned()),
        args: vec![("path".into(), dir.to_str().expect("utf-8").to_owned())],
        ..NewResource::default()
    }
}

pub fn run(server: &str, n: usize) {
    let n = n.max(20);
    let nodes = n / 2;
    let schema = Schema::new(server);
    let tmp = tempfile::tempdir().expect("temp dir");
    let home = Home::new(tmp.path().join("home"));
    let node_dir = tmp.path().join("node");
    std::fs::create_dir(&node_dir).expect("node dir");
    let mut registry = schema.registry(&home);
    registry
        .register_type_text(NODE_TYPE, "bench-node.yaml", RegisterTypeOptions::default())
        .expect("node type");
    registry
        .register_resource(node("local/model", &node_dir), Default::default())
        .expect("model");
    let mut client = schema.client();
    let start = Instant::now();
    load(&mut client, nodes, n);
    let loaded = start.elapsed();

    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let check = client.prepare(REACHES_SQL).expect("prepare");
    let mut raw_check = |client: &mut postgres::Client, child: &str, parent: &str| {
        let start = Instant::now();
        let found: bool = client
            .query_one(&check, &[&child, &parent])
            .expect("check")
            .get(0);
        (start.elapsed(), found)
    };
    let (mut allowed, mut allowed_raw) = (Vec::new(), Vec::new());
    let (mut refused, mut refused_raw) = (Vec::new(), Vec::new());
    while allowed.len() < SAMPLES {
        let a = rng.below(nodes / 10); // parents near the top: children reach a lot
        let b = a + 1 + rng.below(nodes - a - 1);
        let (pa, pb) = (node_id(a), node_id(b));
        if registry_has_link(&mut client, &pa, &pb) {
            continue;
        }
        let (took, found) = raw_check(&mut client, &pb, &pa);
        assert!(!found, "edges run low → high: no cycle");
        allowed_raw.push(took);
        let start = Instant::now();
        registry.link_child(&key(&pa), &key(&pb)).expect("link");
        allowed.push(start.elapsed());
        // Now the reverse closes a cycle.
        let (took, found) = raw_check(&mut client, &pa, &pb);
        assert!(found, "{pb} → {pa} closes a cycle");
        refused_raw.push(took);
        let start = Instant::now();
        assert!(registry.link_child(&key(&pb), &key(&pa)).is_err());
        refused.push(start.elapsed());
    }
    let (worst, worst_raw) = worst_case(&mut registry, &mut client, &node_dir, &mut raw_check);

    println!("## 3. link_child on PostgreSQL, a graph of {n} links over {nodes} resources\n");
    println!(
        "bulk-loaded with SQL in {:.1} s (not measured below)\n",
        loaded.as_secs_f64()
    );
    println!(
        "| case | samples | link_child median | mean | max | cycle-check query alone, median | ratio |\n\
         |---|---|---|---|---|---|---|"
    );
    for (case, ours, raw) in [
        ("allowed, random pair", allowed, allowed_raw),
        ("cycle refused, random pair", refused, refused_raw),
        (
            "allowed, parent's ancestors are every resource (worst case)",
            worst,
            worst_raw,
        ),
    ] {
        let count = ours.len();
        let (median, mean, max) = stats(ours);
        let (raw_median, _, _) = stats(raw);
        println!(
            "| {case} | {count} | {:.2} ms | {:.2} ms | {:.2} ms | {:.2} ms | {:.2}x |",
            ms(median),
            ms(mean),
            ms(max),
            ms(raw_median),
            ms(median) / ms(raw_median)
        );
    }
    println!("\ngoal: link_child median ≤ 5 ms (random pairs)\n");
}

fn registry_has_link(client: &mut postgres::Client, parent: &str, child: &str) -> bool {
    client
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM resource_links WHERE parent_id = $1 AND child_id = $2)",
            &[&parent, &child],
        )
        .expect("link exists")
        .get(0)
}

/// `nodes` copies of `local/model` and `links` random links low → high.
fn load(client: &mut postgres::Client, nodes: usize, links: usize) {
    let ids = node_id_sql("i");
    client
        .execute(
            &format!(
                "INSERT INTO resources (resource_id, namespaced_name, namespace, type_name,
                   resource_kind, location, description, read_only, auto_discovered,
                   sandbox_strategy, content_hash, properties_json, metadata_json,
                   created_at, updated_at, discovered_at, stale_reason)
                 SELECT {ids}, 'local/d' || i, m.namespace, m.type_name,
                   m.resource_kind, m.location, m.description, m.read_only, m.auto_discovered,
                   m.sandbox_strategy, m.content_hash, m.properties_json, m.metadata_json,
                   m.created_at, m.updated_at, m.discovered_at, m.stale_reason
                 FROM generate_series(0, CAST($1 AS BIGINT) - 1) AS i, resources m
                 WHERE m.namespaced_name = 'local/model'"
            ),
            &[&(nodes as i64)],
        )
        .expect("resources");
    client.batch_execute("SELECT setseed(0.5)").expect("seed");
    let (parent, child) = (node_id_sql("p"), node_id_sql("c"));
    let mut made = 0;
    while made < links {
        // OFFSET 0 keeps each subquery's random() per row, as written.
        made += client
            .execute(
                &format!(
                    "INSERT INTO resource_links (parent_id, child_id, auto_discovered, created_at)
                     SELECT {parent}, {child}, 0, $3 FROM (
                       SELECT c, floor(random() * c)::bigint AS p FROM (
                         SELECT 1 + floor(random() * (CAST($1 AS BIGINT) - 1))::bigint AS c
                         FROM generate_series(1, CAST($2 AS BIGINT)) OFFSET 0) s OFFSET 0) t
                     ON CONFLICT DO NOTHING"
                ),
                &[&(nodes as i64), &((links - made) as i64), &STAMP],
            )
            .expect("links") as usize;
    }
    client.batch_execute("ANALYZE").expect("analyze");
}

/// A sink below every node; then new children below the sink, each
/// check walking every link.
fn worst_case(
    registry: &mut Registry,
    client: &mut postgres::Client,
    node_dir: &Path,
    raw_check: &mut impl FnMut(&mut postgres::Client, &str, &str) -> (Duration, bool),
) -> (Vec<Duration>, Vec<Duration>) {
    let sink = registry
        .register_resource(node("local/sink", node_dir), Default::default())
        .expect("sink")
        .resource_id
        .to_string();
    client
        .execute(
            "INSERT INTO resource_links (parent_id, child_id, auto_discovered, created_at)
             SELECT resource_id, $1, 0, $2 FROM resources WHERE resource_id <> $1",
            &[&sink, &STAMP],
        )
        .expect("sink links");
    client.batch_execute("ANALYZE").expect("analyze");
    let (mut ours, mut raw) = (Vec::new(), Vec::new());
    for k in 0..WORST_SAMPLES {
        let child = registry
            .register_resource(
                node(&format!("local/fresh{k}"), node_dir),
                Default::default(),
            )
            .expect("fresh")
            .resource_id
            .to_string();
        let (took, found) = raw_check(client, &child, &sink);
        assert!(!found);
        raw.push(took);
        let start = Instant::now();
        registry
            .link_child(&key(&sink), &key(&child))
            .expect("link");
        ours.push(start.elapsed());
    }
    (ours, raw)
}
