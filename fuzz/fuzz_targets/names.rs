//! Names and ids: any text through every parser in `model` (type,
//! resource and handler names, resource and sandbox ids, resource keys).
//!
//! Beyond "no panic": an accepted value reads back as itself (its text
//! parses to an equal value, and names keep the text they were given),
//! serde's reading agrees with `parse` (documents and YAML go through
//! it), and a refusal says something.

#![no_main]

use libfuzzer_sys::fuzz_target;
use resource_host::model::{
    ClassName, HandlerRef, ModuleName, NameError, ResourceId, ResourceKey, ResourceName, SandboxId,
    TypeName,
};
use serde::de::DeserializeOwned;
use std::fmt::{Debug, Display};

/// `parse` and serde agree on `text`; an accepted value's text parses to
/// an equal value.
fn check<T>(text: &str, parse: fn(&str) -> Result<T, NameError>) -> Option<T>
where
    T: Display + Debug + PartialEq + DeserializeOwned,
{
    let parsed = parse(text);
    let via_serde: Result<T, _> = serde_json::from_value(serde_json::Value::from(text));
    assert_eq!(
        parsed.is_ok(),
        via_serde.is_ok(),
        "parse and serde disagree on {text:?}"
    );
    match parsed {
        Ok(value) => {
            let shown = value.to_string();
            let again =
                parse(&shown).unwrap_or_else(|e| panic!("{shown:?} does not read back: {e}"));
            assert_eq!(again, value);
            Some(value)
        }
        Err(e) => {
            assert!(!e.to_string().is_empty());
            None
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Some(name) = check(text, TypeName::parse) {
        assert_eq!(name.as_str(), text);
        assert!(!name.namespace().is_empty());
        let custom = TypeName::parse_custom(text);
        assert_eq!(custom.is_ok(), !name.is_builtin_form());
    } else {
        assert!(TypeName::parse_custom(text).is_err());
    }
    if let Some(name) = check(text, ResourceName::parse) {
        assert_eq!(name.as_str(), text);
        assert!(!name.namespace().is_empty());
    }
    let id = check(text, ResourceId::parse);
    let _ = check(text, SandboxId::parse);
    let key = ResourceKey::parse(text);
    match (&key, id) {
        (Ok(ResourceKey::Id(k)), Some(id)) => assert_eq!(*k, id),
        (Ok(ResourceKey::Id(_)), None) => panic!("{text:?} is a key id but not an id"),
        (Ok(ResourceKey::Name(n)), None) => assert_eq!(n.as_str(), text),
        (Ok(ResourceKey::Name(_)), Some(_)) => panic!("{text:?} is an id read as a name"),
        (Ok(ResourceKey::Location { path, type_name }), None) => {
            assert!(type_name.is_none() && text.starts_with('/'));
            assert_eq!(path.to_str(), Some(text));
        }
        (Ok(ResourceKey::Location { .. }), Some(_)) => panic!("{text:?} is an id read as a path"),
        (Err(e), _) => assert!(!e.to_string().is_empty()),
    }
    if let Ok(key) = key {
        assert_eq!(ResourceKey::parse(&key.to_string()).ok(), Some(key));
    }
    if let Some(module) = check(text, ModuleName::parse) {
        assert_eq!(module.as_str(), text);
    }
    if let Some(class) = check(text, ClassName::parse) {
        assert_eq!(class.as_str(), text);
    }
    match HandlerRef::parse(text) {
        Ok(handler) => {
            assert_eq!(handler.to_string(), text);
            assert_eq!(HandlerRef::parse(&handler.to_string()).ok(), Some(handler));
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
});
