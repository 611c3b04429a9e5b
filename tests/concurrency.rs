//! Many `agents` processes at once against one registry — the home's
//! SQLite file, or a PostgreSQL schema when the suite runs with
//! `AGENTS_TEST_BACKEND=postgres`: registrations racing for one name and
//! for distinct names, opposing links (A → B against B → A) and
//! three-cycles (A → B, B → C, C → A) racing to close.
//!
//! The store runs every write as a single writer (SQLite's `BEGIN
//! IMMEDIATE`, PostgreSQL's advisory lock), so the races must come out as
//! if the commands had run one after another in some order: each command
//! succeeds or is refused naming what it lost to, nothing fails for the
//! lock itself, and the registry left behind holds exactly what the
//! winners wrote — a DAG.
//!
//! Processes start in waves of [`WAVE`], every member of a race in the
//! same wave, so racers really meet.

use crate::common::{Env, Run};
use std::collections::{BTreeMap, BTreeSet};

/// How many processes one wave starts at once.
const WAVE: usize = 12;
/// Opposing pairs: one process links A → B while another links B → A.
const PAIRS: usize = 15;
/// Three-cycles: three processes link A → B, B → C and C → A at once.
const TRIANGLES: usize = 4;
/// Names several processes register at once, per registration wave.
const CONTESTED_PER_WAVE: usize = 2;
/// How many processes race for each contested name.
const RACERS: usize = 3;

/// A type with no handler: its registration has no name check before the
/// write (a handler's type has one, to spare the handler's work), so a
/// race for a name of it is settled by the store's constraint alone.
pub const BARE_TYPE: &str = "name: test/bare
resource_kind: physical
user_addable: true
cli_args:
  - {name: path, type: path, required: true}
";

/// One command of a race, and who it is for the assertions.
struct Job {
    args: Vec<String>,
    what: Claim,
}

#[derive(Clone, PartialEq, Eq, Debug)]
enum Claim {
    /// Registers a name nobody else asks for.
    Distinct(String),
    /// Races for `name` from directory `dir`.
    Contested { name: String, dir: String },
    /// Links parent → child.
    Link(String, String),
}

/// Start `jobs` in waves (a group — the racers of one name, one pair, one
/// triangle — never split across waves); answer each job's run, in order.
fn run_in_waves(env: &Env, groups: Vec<Vec<Job>>) -> Vec<(Job, Run)> {
    let mut waves: Vec<Vec<Job>> = vec![Vec::new()];
    for group in groups {
        assert!(group.len() <= WAVE, "a race larger than a wave");
        if waves.last().unwrap().len() + group.len() > WAVE {
            waves.push(Vec::new());
        }
        waves.last_mut().unwrap().extend(group);
    }
    let mut out = Vec::new();
    for wave in waves {
        let args: Vec<Vec<String>> = wave.iter().map(|j| j.args.clone()).collect();
        out.extend(wave.into_iter().zip(env.race(&args)));
    }
    out
}

/// A run that either succeeded or was refused cleanly: exit 1 with one
/// `agents: error:` message, never a panic nor a failure of the lock.
#[track_caller]
fn assert_clean(job: &Job, run: &Run) {
    assert_clean_run(&format!("{:?}", job.what), run);
}

/// [`assert_clean`] for any run; `what` names it in a failure.
#[track_caller]
pub fn assert_clean_run(what: &str, run: &Run) {
    let context = format!("{what}\nstdout: {}\nstderr: {}", run.stdout, run.stderr);
    assert!(
        run.code == 0 || run.code == 1,
        "exit {}: {context}",
        run.code
    );
    for bad in [
        "panicked",
        "database is locked",
        "registry database error",
        "registry server error",
    ] {
        assert!(!run.stderr.contains(bad), "{bad:?}: {context}");
    }
    if run.code == 1 {
        assert!(run.stderr.starts_with("agents: error: "), "{context}");
        assert_eq!(run.stderr.lines().count(), 1, "one message: {context}");
    }
}

fn add_job(env: &Env, type_name: &str, name: &str, dir_name: &str, what: Claim) -> Job {
    let dir = env.mkdir(&format!("dirs/{dir_name}"));
    let dir = std::fs::canonicalize(dir).unwrap();
    let what = match what {
        Claim::Contested { name, .. } => Claim::Contested {
            name,
            dir: dir.to_str().unwrap().to_owned(),
        },
        other => other,
    };
    let args = ["resource", "add", type_name, name, "--path"]
        .into_iter()
        .map(str::to_owned)
        .chain([dir.to_str().unwrap().to_owned()])
        .collect();
    Job { args, what }
}

fn link_job(parent: &str, child: &str) -> Job {
    Job {
        args: ["resource", "link-child", parent, child]
            .into_iter()
            .map(str::to_owned)
            .collect(),
        what: Claim::Link(parent.to_owned(), child.to_owned()),
    }
}

fn pair(i: usize) -> [String; 2] {
    ["a", "b"].map(|end| format!("local/pair-{i}-{end}"))
}

fn triangle(i: usize) -> [String; 3] {
    ["a", "b", "c"].map(|corner| format!("local/tri-{i}-{corner}"))
}

/// The registry as `resource list -o json` shows it: name by id, location
/// by name, and the links (by name) read from both ends.
pub struct Graph {
    pub names: BTreeMap<String, String>,
    pub locations: BTreeMap<String, String>,
    pub links: BTreeSet<(String, String)>,
}

pub fn read_graph(env: &Env) -> Graph {
    let list = env.run(&["resource", "list", "-o", "json"]).json();
    let resources = list.as_array().unwrap();
    let names: BTreeMap<String, String> = resources
        .iter()
        .map(|r| {
            let id = r["resource_id"].as_str().unwrap().to_owned();
            let name = r["name"].as_str().unwrap_or(&id).to_owned();
            (id, name)
        })
        .collect();
    assert_eq!(names.len(), resources.len(), "ids are unique");
    let locations = resources
        .iter()
        .map(|r| {
            let id = r["resource_id"].as_str().unwrap();
            let location = r["location"].as_str().unwrap_or_default().to_owned();
            (names[id].clone(), location)
        })
        .collect();
    let ends = |r: &serde_json::Value, field: &str| -> Vec<String> {
        r[field]
            .as_array()
            .unwrap_or_else(|| panic!("no {field} in {r}"))
            .iter()
            .map(|id| names[id.as_str().unwrap()].clone())
            .collect()
    };
    let mut down = BTreeSet::new();
    let mut up = BTreeSet::new();
    for r in resources {
        let me = &names[r["resource_id"].as_str().unwrap()];
        down.extend(ends(r, "children").into_iter().map(|c| (me.clone(), c)));
        up.extend(ends(r, "parents").into_iter().map(|p| (p, me.clone())));
    }
    assert_eq!(down, up, "children and parents tell the same links");
    Graph {
        names,
        locations,
        links: down,
    }
}

/// Kahn's algorithm: `links` form no cycle.
pub fn assert_acyclic(links: &BTreeSet<(String, String)>) {
    let mut incoming: BTreeMap<&str, usize> = BTreeMap::new();
    for (p, c) in links {
        incoming.entry(p.as_str()).or_default();
        *incoming.entry(c.as_str()).or_default() += 1;
    }
    let mut ready: Vec<&str> = incoming
        .iter()
        .filter(|(_, n)| **n == 0)
        .map(|(k, _)| *k)
        .collect();
    let mut seen = 0;
    while let Some(node) = ready.pop() {
        seen += 1;
        for (_, c) in links.iter().filter(|(p, _)| p == node) {
            let n = incoming.get_mut(c.as_str()).unwrap();
            *n -= 1;
            if *n == 0 {
                ready.push(c.as_str());
            }
        }
    }
    assert_eq!(seen, incoming.len(), "the links hold a cycle: {links:?}");
}

#[test]
fn racing_registrations_and_opposing_links_leave_exactly_the_winners_in_a_dag() {
    let env = Env::new();
    let bare = env.write("bare.yaml", BARE_TYPE);
    env.run(&["resource", "type", "add", bare.to_str().unwrap()])
        .ok();

    // Registrations: every link end once (distinct names), and names that
    // several processes ask for at once (of a type with a handler, and of
    // one without).
    let mut ends: Vec<String> = (0..PAIRS).flat_map(pair).collect();
    ends.extend((0..TRIANGLES).flat_map(triangle));
    let per_wave = WAVE - CONTESTED_PER_WAVE * RACERS;
    let mut groups = Vec::new();
    let mut contested = Vec::new();
    for (w, chunk) in ends.chunks(per_wave).enumerate() {
        for k in 0..CONTESTED_PER_WAVE {
            let name = format!("local/contested-{w}-{k}");
            let type_name = ["fs-directory", "test/bare"][k % 2];
            groups.push(
                (0..RACERS)
                    .map(|r| {
                        let what = Claim::Contested {
                            name: name.clone(),
                            dir: String::new(),
                        };
                        let dir = format!("contested-{w}-{k}-{r}");
                        add_job(&env, type_name, &name, &dir, what)
                    })
                    .collect(),
            );
            contested.push(name);
        }
        for name in chunk {
            let dir = name.trim_start_matches("local/");
            let what = Claim::Distinct(name.clone());
            groups.push(vec![add_job(&env, "fs-directory", name, dir, what)]);
        }
    }
    let registered = run_in_waves(&env, groups);
    let mut winners: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (job, run) in &registered {
        assert_clean(job, run);
        match &job.what {
            Claim::Distinct(name) => {
                assert_eq!(run.code, 0, "{name} is nobody else's: {}", run.stderr);
            }
            Claim::Contested { name, dir } if run.code == 0 => {
                winners.entry(name.clone()).or_default().push(dir.clone());
            }
            Claim::Contested { name, .. } => {
                assert!(
                    run.stderr.contains(name) && run.stderr.contains("already exists"),
                    "a lost race for {name} says so: {}",
                    run.stderr
                );
            }
            Claim::Link(..) => unreachable!(),
        }
    }
    for name in &contested {
        let won = winners.get(name).map_or(0, Vec::len);
        assert_eq!(won, 1, "exactly one process registers {name}: {winners:?}");
    }

    // Links: both directions of every pair, all three sides of every
    // triangle, each group started at once.
    let mut groups: Vec<Vec<Job>> = (0..PAIRS)
        .map(|i| {
            let [a, b] = pair(i);
            vec![link_job(&a, &b), link_job(&b, &a)]
        })
        .collect();
    groups.extend((0..TRIANGLES).map(|i| {
        let [a, b, c] = triangle(i);
        vec![link_job(&a, &b), link_job(&b, &c), link_job(&c, &a)]
    }));
    let linked = run_in_waves(&env, groups);
    let mut made = BTreeSet::new();
    for (job, run) in &linked {
        assert_clean(job, run);
        let Claim::Link(parent, child) = &job.what else {
            unreachable!()
        };
        if run.code == 0 {
            made.insert((parent.clone(), child.clone()));
        } else {
            for part in [parent.as_str(), child.as_str(), "cycle"] {
                assert!(
                    run.stderr.contains(part),
                    "a refused link names {part:?}: {}",
                    run.stderr
                );
            }
        }
    }
    for i in 0..PAIRS {
        let [a, b] = pair(i);
        let won = [(&a, &b), (&b, &a)]
            .iter()
            .filter(|(p, c)| made.contains(&((*p).clone(), (*c).clone())))
            .count();
        assert_eq!(won, 1, "exactly one of {a} ⇄ {b} is linked: {made:?}");
    }
    for i in 0..TRIANGLES {
        let [a, b, c] = triangle(i);
        let won = [(&a, &b), (&b, &c), (&c, &a)]
            .iter()
            .filter(|(p, c)| made.contains(&((*p).clone(), (*c).clone())))
            .count();
        assert_eq!(won, 2, "two sides of {a} → {b} → {c} are linked: {made:?}");
    }

    // What is left: exactly the winners, as a DAG.
    let graph = read_graph(&env);
    let expected: BTreeSet<&String> = ends.iter().chain(&contested).collect();
    let present: BTreeSet<&String> = graph.names.values().collect();
    assert_eq!(present, expected, "exactly the registered resources");
    assert_eq!(graph.names.len(), ends.len() + contested.len());
    for (name, dirs) in &winners {
        assert_eq!(graph.locations[name], dirs[0], "{name} is the winner's");
    }
    assert_eq!(graph.links, made, "exactly the links that succeeded");
    assert_eq!(graph.links.len(), PAIRS + 2 * TRIANGLES);
    assert_acyclic(&graph.links);
}

#[test]
fn several_processes_writing_one_home_all_succeed() {
    let env = Env::new();
    env.run(&["resource", "type", "list"]).ok(); // create the home
    concurrent_adds(&env);
}

#[test]
fn several_processes_racing_to_create_a_fresh_home_all_succeed() {
    // Migration and built-in bootstrap race too: each runs in BEGIN
    // IMMEDIATE (PostgreSQL: under the migration lock) and re-checks.
    concurrent_adds(&Env::new());
}

/// Eight registrations of distinct names at once: all succeed.
fn concurrent_adds(env: &Env) {
    let dir = env.mkdir("d");
    let dir = dir.to_str().unwrap();
    let commands: Vec<Vec<String>> = (0..8)
        .map(|i| {
            [
                "resource",
                "add",
                "fs-directory",
                &format!("local/p{i}"),
                "--path",
                dir,
            ]
            .map(String::from)
            .to_vec()
        })
        .collect();
    for run in env.race(&commands) {
        run.ok();
    }
    let list = env.run(&["resource", "list", "-o", "json"]).json();
    assert_eq!(list.as_array().unwrap().len(), 8);
}
