//! The type-spec reader and validator: any text, as `agents resource type
//! add FILE` reads it (`typespec::parse_type_file`, then the registry's
//! checks in `Registry::register_type_text`), and as the built-in
//! catalogue is read (`typespec::parse_catalogue`).
//!
//! Beyond "no panic": a spec that parses renders back to type-file text
//! that parses to an equal spec (what `agents registry export` relies
//! on), and a type the registry accepted can be removed again, leaving
//! the registry as it was for the next input.

#![no_main]

use libfuzzer_sys::fuzz_target;
use resource_host::registry::{RegisterTypeOptions, Registry};
use resource_host::typespec;
use std::cell::RefCell;

thread_local! {
    /// One in-memory registry (built-in types only) for the whole run.
    static REGISTRY: RefCell<Registry> =
        RefCell::new(Registry::open_in_memory().expect("an in-memory registry opens"));
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(e) = typespec::parse_catalogue(text, "fuzz-catalogue.yaml") {
        assert!(!e.reason().is_empty(), "a refusal without a reason: {e:?}");
    }
    let spec = match typespec::parse_type_file(text, "fuzz.yaml") {
        Ok(spec) => spec,
        Err(e) => {
            assert!(!e.reason().is_empty(), "a refusal without a reason: {e:?}");
            return;
        }
    };
    let rendered = typespec::render_type_file(&spec);
    let again = typespec::parse_type_file(&rendered, "rendered.yaml").unwrap_or_else(|e| {
        panic!("a rendered spec does not parse: {e}\n--- rendered:\n{rendered}")
    });
    assert_eq!(again, spec, "rendering changed the spec:\n{rendered}");
    let _ = typespec::references(&spec);

    REGISTRY.with_borrow_mut(|registry| {
        match registry.register_type_text(text, "fuzz.yaml", RegisterTypeOptions::default()) {
            Ok(view) => {
                assert_eq!(view.name, spec.name);
                registry
                    .remove_type(spec.name.as_str())
                    .unwrap_or_else(|e| panic!("a type just added cannot be removed: {e}"));
            }
            Err(e) => assert!(!e.to_string().is_empty()),
        }
    });
});
