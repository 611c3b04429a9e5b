//! The registry document reader: any text, as `agents registry import`
//! reads it (`RegistryDocument::parse`: format and version first, every
//! section item by item, then the document's agreement with itself).
//!
//! Beyond "no panic": a document that was accepted is one `export` can
//! write, in both of its forms, and that text reads back to an equal
//! document — so what passes the reader survives a move.

#![no_main]

use libfuzzer_sys::fuzz_target;
use resource_host::registry::RegistryDocument;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let document = match RegistryDocument::parse(text) {
        Ok(document) => document,
        Err(e) => {
            assert!(!e.to_string().is_empty());
            return;
        }
    };
    for written in [document.to_json(), document.to_yaml()] {
        let again = RegistryDocument::parse(&written)
            .unwrap_or_else(|e| panic!("a written document does not read back: {e}\n{written}"));
        assert_eq!(again, document, "writing changed the document:\n{written}");
    }
});
