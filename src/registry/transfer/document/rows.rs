//! Between the document's items and the store's rows: one field to one
//! column, nothing computed, so what an export reads is what an import
//! writes. (Resources, links, settings, plugins and their provenance are
//! the store's rows themselves.)

use super::{DocumentError, PluginEntry, base64, check};
use crate::store::{PluginRow, ProvenanceRow};

impl PluginEntry {
    pub(in crate::registry) fn from_row(
        row: PluginRow,
        provenance: Option<ProvenanceRow>,
        component: Option<&[u8]>,
    ) -> Self {
        Self {
            row,
            provenance,
            component_base64: component.map(base64::encode),
        }
    }

    /// The embedded component, decoded and checked against `sha256` and
    /// `size_bytes` (`None`: not embedded).
    pub fn component(&self) -> Result<Option<Vec<u8>>, DocumentError> {
        check::component(self)
    }
}
