//! `plugins` rows: the plugin store's index (the files are `plugin`'s).

use super::columns::Columns;
use super::db::args;
use super::{Reader, StoreError, Writer, to_json};
use crate::model::{ClassName, ModuleName};
use crate::plugin::ClassInfo;

/// One added plugin module. It is also the fields of a registry
/// document's plugin item (`registry::transfer::document`), under the
/// same names, so what an export reads is what an import writes.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PluginRow {
    pub module: ModuleName,
    pub version: String,
    pub sha256: String,
    /// The classes it exports.
    pub classes: Vec<ClassInfo>,
    pub size_bytes: i64,
    pub source: String,
    pub added_at: String,
}

impl PluginRow {
    /// Does the module export `class`?
    pub fn exports(&self, class: &ClassName) -> bool {
        self.classes.iter().any(|c| c.name == *class)
    }

    /// The class names, for messages that list what exists.
    pub fn class_names(&self) -> Vec<ClassName> {
        self.classes.iter().map(|c| c.name.clone()).collect()
    }
}

macro_rules! columns {
    () => {
        "module, version, sha256, classes_json, size_bytes, source, added_at"
    };
}

const TABLE: &str = "plugins";

/// `classes_json` holds `[name, description]` pairs: the form every
/// binary that shares the registry reads.
fn class_pairs(classes: &[ClassInfo]) -> Vec<(&ClassName, &String)> {
    classes.iter().map(|c| (&c.name, &c.description)).collect()
}

fn decode(c: &Columns<'_>) -> Result<PluginRow, StoreError> {
    Ok(PluginRow {
        module: c.parsed(0, ModuleName::parse)?,
        version: c.get(1)?,
        sha256: c.get(2)?,
        classes: c
            .json::<Vec<(ClassName, String)>>(3)?
            .into_iter()
            .map(|(name, description)| ClassInfo { name, description })
            .collect(),
        size_bytes: c.get(4)?,
        source: c.get(5)?,
        added_at: c.get(6)?,
    })
}

impl Reader<'_> {
    pub fn plugins(&self) -> Result<Vec<PluginRow>, StoreError> {
        self.tx.rows(
            concat!("SELECT ", columns!(), " FROM plugins ORDER BY module"),
            args![],
            TABLE,
            0,
            decode,
        )
    }

    pub fn plugin(&self, module: &ModuleName) -> Result<Option<PluginRow>, StoreError> {
        self.tx.row(
            concat!("SELECT ", columns!(), " FROM plugins WHERE module = ?1"),
            args![module.as_str()],
            TABLE,
            0,
            decode,
        )
    }
}

impl Writer<'_> {
    /// Insert the plugin, or replace the row of the same module.
    pub fn upsert_plugin(&self, row: &PluginRow) -> Result<(), StoreError> {
        self.tx.execute(
            concat!(
                "INSERT INTO plugins (",
                columns!(),
                ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                 ON CONFLICT (module) DO UPDATE SET version = excluded.version,
                   sha256 = excluded.sha256, classes_json = excluded.classes_json,
                   size_bytes = excluded.size_bytes, source = excluded.source,
                   added_at = excluded.added_at"
            ),
            args![
                row.module.as_str(),
                &row.version,
                &row.sha256,
                to_json(&class_pairs(&row.classes)),
                row.size_bytes,
                &row.source,
                &row.added_at
            ],
        )?;
        Ok(())
    }

    pub fn delete_plugin(&self, module: &ModuleName) -> Result<bool, StoreError> {
        Ok(self.tx.execute(
            "DELETE FROM plugins WHERE module = ?1",
            args![module.as_str()],
        )? == 1)
    }
}

impl Reader<'_> {
    /// The component bytes stored under `sha256` (not yet verified: the
    /// caller hashes them before trusting them).
    pub fn plugin_component(&self, sha256: &str) -> Result<Option<Vec<u8>>, StoreError> {
        self.tx.row(
            "SELECT component FROM plugin_components WHERE sha256 = ?1",
            args![sha256],
            "plugin_components",
            usize::MAX,
            |c| c.get(0),
        )
    }

    pub fn has_plugin_component(&self, sha256: &str) -> Result<bool, StoreError> {
        self.tx.value(
            "SELECT EXISTS (SELECT 1 FROM plugin_components WHERE sha256 = ?1)",
            args![sha256],
        )
    }
}

impl Writer<'_> {
    /// Store a component's bytes under their sha256 (kept if already
    /// there: the name says what the content is).
    pub fn put_plugin_component(&self, sha256: &str, component: &[u8]) -> Result<(), StoreError> {
        self.tx.execute(
            "INSERT INTO plugin_components (sha256, component, size_bytes) VALUES (?1, ?2, ?3)
             ON CONFLICT (sha256) DO NOTHING",
            args![sha256, component, component.len() as i64],
        )?;
        Ok(())
    }

    /// Drop the component `sha256` when no plugin row names it.
    pub fn drop_unused_plugin_component(&self, sha256: &str) -> Result<(), StoreError> {
        self.tx.execute(
            "DELETE FROM plugin_components WHERE sha256 = ?1
               AND NOT EXISTS (SELECT 1 FROM plugins WHERE sha256 = ?1)",
            args![sha256],
        )?;
        Ok(())
    }
}

/// Where an installed plugin's bytes came from and what vouched for them:
/// the part of its provenance a lock file pins (no machine's install
/// time in it). Embedded (flattened) in [`ProvenanceRow`] and in the lock
/// file's entries, so each field is declared once.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PluginOrigin {
    /// `HOST[:PORT]`, or `oci-layout:DIR`.
    pub registry: String,
    pub repository: String,
    pub tag: Option<String>,
    /// `sha256:<hex>`.
    pub manifest_digest: String,
    pub layer_digest: String,
    /// The contract version the component was built against.
    pub contract: String,
    /// The signing key's id (16 hex digits), when it was signed (none:
    /// installed unsigned).
    pub signer: Option<String>,
}

/// Where an installed plugin came from (`plugin_provenance`, keyed by
/// its module). It is also a registry document's `provenance` item and,
/// with its reference, what `plugin show` says.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ProvenanceRow {
    #[serde(flatten)]
    pub origin: PluginOrigin,
    /// Installed without a trusted signature, on `--allow-unsigned`.
    pub unsigned_allowed: bool,
    pub installed_at: String,
}

macro_rules! provenance_columns {
    () => {
        "module, registry, repository, tag, manifest_digest, layer_digest, contract, signer, \
         unsigned_allowed, installed_at"
    };
}

fn decode_provenance(c: &Columns<'_>) -> Result<(ModuleName, ProvenanceRow), StoreError> {
    let origin = PluginOrigin {
        registry: c.get(1)?,
        repository: c.get(2)?,
        tag: c.get(3)?,
        manifest_digest: c.get(4)?,
        layer_digest: c.get(5)?,
        contract: c.get(6)?,
        signer: c.get(7)?,
    };
    let row = ProvenanceRow {
        origin,
        unsigned_allowed: c.get(8)?,
        installed_at: c.get(9)?,
    };
    Ok((c.parsed(0, ModuleName::parse)?, row))
}

impl Reader<'_> {
    pub fn plugin_provenance(
        &self,
        module: &ModuleName,
    ) -> Result<Option<ProvenanceRow>, StoreError> {
        self.tx.row(
            concat!(
                "SELECT ",
                provenance_columns!(),
                " FROM plugin_provenance WHERE module = ?1"
            ),
            args![module.as_str()],
            "plugin_provenance",
            0,
            |c| Ok(decode_provenance(c)?.1),
        )
    }

    /// Every installed plugin's provenance, by module.
    pub fn plugin_provenances(&self) -> Result<Vec<(ModuleName, ProvenanceRow)>, StoreError> {
        self.tx.rows(
            concat!(
                "SELECT ",
                provenance_columns!(),
                " FROM plugin_provenance ORDER BY module"
            ),
            args![],
            "plugin_provenance",
            0,
            decode_provenance,
        )
    }
}

impl Writer<'_> {
    /// Record where `module` came from, or (`None`) that it came from no
    /// registry, replacing what was recorded.
    pub fn set_plugin_provenance(
        &self,
        module: &ModuleName,
        row: Option<&ProvenanceRow>,
    ) -> Result<(), StoreError> {
        self.tx.execute(
            "DELETE FROM plugin_provenance WHERE module = ?1",
            args![module.as_str()],
        )?;
        let Some(row) = row else { return Ok(()) };
        self.tx.execute(
            concat!(
                "INSERT INTO plugin_provenance (",
                provenance_columns!(),
                ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
            ),
            args![
                module.as_str(),
                &row.origin.registry,
                &row.origin.repository,
                &row.origin.tag,
                &row.origin.manifest_digest,
                &row.origin.layer_digest,
                &row.origin.contract,
                &row.origin.signer,
                row.unsigned_allowed,
                &row.installed_at
            ],
        )?;
        Ok(())
    }
}
