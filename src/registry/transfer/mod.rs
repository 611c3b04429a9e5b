//! Transfer: the one home of moving a registry — `export` writes the
//! registry document, `import` reads one, all or nothing, and `info`
//! says what a registry holds. The public operations are here; the rooms
//! below keep the work, and the document's format is
//! [`registry::document`](super::document), shared with the refusals:
//!
//! | room | holds |
//! |---|---|
//! | `export` | `agents registry export` (one read snapshot) and `info` |
//! | `import` | `agents registry import`: a document in, all or nothing |

pub(super) mod export;
pub(super) mod import;

use super::{ExportOptions, ImportOptions, ImportReport, RegistryDocument, RegistryInfo};
use super::{Registry, RegistryError};

impl Registry {
    /// Everything worth moving, as one document (see
    /// [`document`](super::document)); [`ExportOptions::with_plugins`]
    /// embeds each plugin component (base64), so the document alone can
    /// fill a new home.
    pub fn export_document(
        &self,
        options: ExportOptions,
    ) -> Result<RegistryDocument, RegistryError> {
        export::export_document(self, options)
    }

    /// Import `document` (see [`document`](super::document) for the format and the `import`
    /// room for what is checked); [`ImportOptions::dry_run`] checks and
    /// rehearses everything and writes nothing.
    pub fn import_document(
        &mut self,
        document: &RegistryDocument,
        options: ImportOptions,
    ) -> Result<ImportReport, RegistryError> {
        import::import_document(self, document, options)
    }

    /// Which backend, where, which schema, how much (`agents registry info`).
    pub fn info(&self) -> Result<RegistryInfo, RegistryError> {
        export::info(self)
    }
}
