//! `agents registry export` and `agents registry info`: what a registry
//! holds, read in one snapshot.
//!
//! **One read transaction.** The export reads every section — types,
//! plugins, resources, links, settings, the schema version — inside one
//! [`Store::read`](crate::store::Store::read), so a registry written by
//! another process meanwhile is exported as it was at one moment, never
//! as a resource without its links. Embedded components
//! (`--with-plugins`) are read from the plugin store in the same
//! closure, each verified against the sha256 of the snapshot's row.

use crate::registry::document::{Header, PluginEntry, RegistryDocument, TypeEntry, VERSION};
use crate::registry::plugins::plugin_store::stored_component;
use crate::registry::types::CATALOGUE_KEY;
use crate::registry::{Registry, RegistryError};
use crate::store::{Counts, EventRow, SCHEMA_VERSION};
use crate::typespec::render_type_file;
use serde::Serialize;
use std::path::PathBuf;

/// What `agents registry info` shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RegistryInfo {
    /// `sqlite` or `postgres`.
    pub backend: &'static str,
    /// Where: the file, or the server, database and schema (without a
    /// password).
    pub location: String,
    /// The database file (`None`: in memory, or on a server).
    pub database: Option<PathBuf>,
    /// The schema version the database records.
    pub schema_version: i64,
    /// The schema version this binary writes.
    pub supported_schema_version: i64,
    /// The newest registry document version this binary reads and writes.
    pub document_version: u64,
    /// The database file's size (on PostgreSQL: what the registry's
    /// tables take on the server), and its write-ahead log's (SQLite: not
    /// yet folded into the file).
    pub size_bytes: Option<u64>,
    pub wal_bytes: Option<u64>,
    /// The fingerprint of the built-in catalogue last bootstrapped.
    pub builtin_catalogue: Option<String>,
    pub counts: Counts,
}

/// What [`Registry::export_document`] puts in the document.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExportOptions {
    /// Embed each plugin component (base64), not only its record.
    pub with_plugins: bool,
    /// Carry the event log (`events`).
    pub with_events: bool,
}

impl ExportOptions {
    /// Embed each plugin component.
    pub fn with_plugins() -> Self {
        Self {
            with_plugins: true,
            ..Self::default()
        }
    }
}

/// The work of [`Registry::export_document`].
pub(crate) fn export_document(
    reg: &Registry,
    options: ExportOptions,
) -> Result<RegistryDocument, RegistryError> {
    let ExportOptions {
        with_plugins,
        with_events,
    } = options;
    let files = match with_plugins {
        true => Some(reg.plugins.files("cannot embed the plugin components")?),
        false => None,
    };
    let exported_at = reg.now();
    reg.store.read(|r| {
        let types = r
            .types()?
            .into_iter()
            .filter(|row| !row.spec.built_in)
            .map(|row| TypeEntry {
                name: row.spec.name.clone(),
                spec: render_type_file(&row.spec),
                origin: row.origin,
            })
            .collect();
        let mut plugins = Vec::new();
        for row in r.plugins()? {
            let bytes = match files {
                // This machine's copy, else the registry's (a plugin
                // added on another machine), verified either way.
                Some(files) if files.path_of(&row.sha256).is_ok_and(|p| p.exists()) => Some(
                    files
                        .read(&row.sha256)
                        .map_err(RegistryError::plugin_load(&row.module))?,
                ),
                Some(_) => Some(stored_component(r, &row)?),
                None => None,
            };
            let provenance = r.plugin_provenance(&row.module)?;
            plugins.push(PluginEntry::from_row(row, provenance, bytes.as_deref()));
        }
        let header = Header {
            format: crate::registry::document::FORMAT.to_owned(),
            version: VERSION,
            schema_version: r.schema_version()?,
            exported_at,
            produced_by: concat!("agents ", env!("CARGO_PKG_VERSION")).to_owned(),
            builtin_catalogue: r.meta(CATALOGUE_KEY)?,
        };
        Ok(RegistryDocument {
            header,
            types,
            plugins,
            resources: r.resources(None)?,
            links: r.link_rows()?,
            environment_settings: r.settings()?,
            events: match with_events {
                true => all_events(r)?,
                false => Vec::new(),
            },
        })
    })
}

/// The work of [`Registry::info`].
pub(crate) fn info(reg: &Registry) -> Result<RegistryInfo, RegistryError> {
    let (schema_version, builtin_catalogue, counts, server_bytes) = reg.store.read(|r| {
        Ok::<_, RegistryError>((
            r.schema_version()?,
            r.meta(CATALOGUE_KEY)?,
            r.counts()?,
            r.server_bytes()?,
        ))
    })?;
    let database = reg.store.path().map(ToOwned::to_owned);
    let size = |path: PathBuf| std::fs::metadata(path).ok().map(|m| m.len());
    let wal = |db: &PathBuf| {
        let mut name = db.clone().into_os_string();
        name.push("-wal");
        PathBuf::from(name)
    };
    Ok(RegistryInfo {
        backend: reg.store.backend(),
        location: reg.store.describe(),
        size_bytes: database
            .clone()
            .and_then(size)
            .or(server_bytes.and_then(|n| u64::try_from(n).ok())),
        wal_bytes: database.as_ref().map(wal).and_then(size),
        database,
        schema_version,
        supported_schema_version: SCHEMA_VERSION,
        document_version: VERSION,
        builtin_catalogue,
        counts,
    })
}

/// Every event of the log, oldest first (read in pages).
fn all_events(r: &crate::store::Reader<'_>) -> Result<Vec<EventRow>, RegistryError> {
    let mut out = Vec::new();
    let mut select = crate::store::EventSelect {
        limit: 10_000,
        ..Default::default()
    };
    loop {
        let page = r.events(&select)?;
        let Some(last) = page.last() else { break };
        select.after_seq = Some(last.seq);
        out.extend(page);
    }
    Ok(out)
}
