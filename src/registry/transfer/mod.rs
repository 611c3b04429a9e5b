//! Transfer: the one home of moving a registry — `export` writes the
//! registry document, `import` reads one, all or nothing, and `info`
//! says what a registry holds. Each room below holds its public
//! operations and their work:
//!
//! | room | holds |
//! |---|---|
//! | [`document`] | the registry document: the format `export` writes and `import` reads |
//! | `export` | `agents registry export` (one read snapshot) and `info` |
//! | `import` | `agents registry import`: a document in, all or nothing |

pub mod document;
pub(super) mod export;
pub(super) mod import;
