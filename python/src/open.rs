//! Which registry a Python `Registry` opens, and the few open ones it
//! keeps. The home and the registry URL are the caller's (else
//! `$AGENTS_HOME`, `$AGENTS_REGISTRY`, the XDG data directory, as for
//! `agents`); everything else is read from the environment by
//! `resource_host::front_end`, as for the CLI: the `PATH` for `git` and
//! the container tools, `AGENTS_OVERLAY`, `AGENTS_MACHINE_ID`, the
//! per-user cache and the person (the OS user) whose trust decisions
//! apply.
//!
//! A library `Registry` is one connection with `&mut self` operations,
//! so calls from several Python threads each take an idle one from the
//! pool (opening another when all are busy, as `agents mcp` does) and
//! give it back: no call waits for another's handler. A registry reads
//! the store at every call, so each sees what the others wrote.

use resource_host::RegistryLocation;
use resource_host::front_end;
use resource_host::home::Home;
use resource_host::model::{Actor, Face};
use resource_host::plugin::Limits;
use resource_host::registry::{Registry, RegistryError};
use resource_host::roots::Roots;
use std::path::PathBuf;
use std::sync::Mutex;

/// At most this many idle registries are kept; more are closed.
const KEPT: usize = 4;

/// How to open the registry again, and the idle ones.
#[derive(Debug)]
pub struct Pool {
    home: Home,
    location: Option<RegistryLocation>,
    limits: Limits,
    /// Who the registry acts as (face `python`).
    actor: Actor,
    /// Where the registry may act (`roots=`; none: anywhere).
    roots: Option<Roots>,
    idle: Mutex<Vec<Registry>>,
}

impl Pool {
    /// Open the first registry (so a bad home or URL is refused at once).
    pub fn open(
        home: Option<PathBuf>,
        registry: Option<String>,
        limits: Limits,
        actor: Option<String>,
        roots: Option<Roots>,
    ) -> Result<Self, RegistryError> {
        let home = match home.or_else(|| env_path("AGENTS_HOME")) {
            Some(dir) => Home::new(dir),
            None => Home::new(front_end::default_home().ok_or_else(no_home)?),
        };
        let url = registry.or_else(|| std::env::var("AGENTS_REGISTRY").ok());
        let url = url.as_deref().filter(|u| !u.is_empty());
        let location = url.map(RegistryLocation::parse).transpose()?;
        let name = actor.unwrap_or_else(|| front_end::person().user);
        let pool = Self {
            home,
            location,
            limits,
            actor: Actor::new(Face::Python, name),
            roots,
            idle: Mutex::new(Vec::new()),
        };
        let first = pool.open_one()?;
        pool.give(first);
        Ok(pool)
    }

    pub fn home(&self) -> &Home {
        &self.home
    }

    /// Run `work` with a registry no other call is using.
    pub fn with<T>(
        &self,
        work: impl FnOnce(&mut Registry) -> Result<T, RegistryError>,
    ) -> Result<T, RegistryError> {
        let idle = self.idle.lock().ok().and_then(|mut idle| idle.pop());
        let mut registry = match idle {
            Some(registry) => registry,
            None => self.open_one()?,
        };
        let outcome = work(&mut registry);
        self.give(registry);
        outcome
    }

    fn give(&self, registry: Registry) {
        if let Ok(mut idle) = self.idle.lock()
            && idle.len() < KEPT
        {
            idle.push(registry);
        }
    }

    /// A registry of its own (an `EventStream` keeps one).
    pub fn open_one(&self) -> Result<Registry, RegistryError> {
        let mut options = front_end::options(self.location.clone(), self.limits.clone());
        options.actor = self.actor.clone();
        options.roots = self.roots.clone();
        Registry::open_with(&self.home, options)
    }
}

fn no_home() -> RegistryError {
    RegistryError::Home {
        path: PathBuf::from("~/.local/share/agents"),
        source: std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "no home directory: pass home=DIR or set AGENTS_HOME",
        ),
    }
}

fn env_path(key: &str) -> Option<PathBuf> {
    std::env::var_os(key)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}
