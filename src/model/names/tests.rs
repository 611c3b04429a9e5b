use super::*;

#[test]
fn type_names_accept_bare_and_namespaced_forms() {
    assert!(TypeName::parse("git-checkout").unwrap().is_builtin_form());
    let custom = TypeName::parse("myteam/python-package").unwrap();
    assert!(!custom.is_builtin_form());
    assert_eq!(custom.namespace(), "myteam");
    assert_eq!(TypeName::parse("fs-file").unwrap().namespace(), "builtin");
}

#[test]
fn type_names_refuse_malformed_text() {
    for bad in [
        "",
        "Git",
        "a/b/c",
        "my team/x",
        "x-",
        "a--b",
        "/x",
        "x/",
        "1abc",
        "builtin/x",
    ] {
        assert!(TypeName::parse(bad).is_err(), "{bad:?} was accepted");
    }
}

#[test]
fn custom_type_names_must_be_namespaced() {
    let err = TypeName::parse_custom("python-package").unwrap_err();
    assert!(err.to_string().contains("namespace/name"), "{err}");
}

#[test]
fn resource_names_are_namespaced_and_never_look_like_ulids() {
    assert!(ResourceName::parse("local/api-repo").is_ok());
    assert!(ResourceName::parse("local/pkg/src/my_mod.v2").is_ok());
    for bad in [
        "api-repo",
        "local/",
        "local/a\tb",
        "local/evil\u{202e}txt",
        "local/..",
        "Local/x",
        "01J0000000000000000000000A",
    ] {
        assert!(ResourceName::parse(bad).is_err(), "{bad:?} was accepted");
    }
}

#[test]
fn discovered_names_may_hold_spaces_unicode_and_percent_escapes() {
    for good in [
        "local/repo/my notes.txt",
        "local/repo/café.txt",
        "local/repo/test_10.py",
        "local/repo/caf%E9.txt",
        "local/repo/%2E%2E",
        "local/repo/%",
    ] {
        assert!(ResourceName::parse(good).is_ok(), "{good:?} was refused");
    }
}

#[test]
fn chosen_names_take_letters_of_any_script_normalised_to_nfc() {
    let decomposed = "local/cafe\u{301}";
    let name = ResourceName::parse_chosen(decomposed).unwrap();
    assert_eq!(name.as_str(), "local/caf\u{e9}");
    assert!(ResourceName::parse_chosen("local/日本").is_ok());
    let err = ResourceName::parse_chosen("local/my repo").unwrap_err();
    assert!(
        err.to_string().contains("letters and digits (any script)"),
        "{err}"
    );
    assert!(ResourceName::parse_chosen("local/a%20b").is_err());
}

#[test]
fn resource_ids_round_trip_as_ulid_text() {
    let id = ResourceId::from_ulid(ulid::Ulid::from_parts(1_700_000_000_000, 42));
    let text = id.to_string();
    assert_eq!(text.len(), 26);
    assert_eq!(ResourceId::parse(&text).unwrap(), id);
    assert!(ResourceId::parse("local/x").is_err());
}

#[test]
fn a_resource_key_is_an_id_or_a_name_and_nothing_else() {
    let id = ResourceId::from_ulid(ulid::Ulid::from_parts(1_700_000_000_000, 7));
    assert_eq!(
        ResourceKey::parse(&id.to_string()).unwrap(),
        ResourceKey::Id(id)
    );
    assert!(matches!(
        ResourceKey::parse("local/api-repo").unwrap(),
        ResourceKey::Name(_)
    ));
    let err = ResourceKey::parse("api-repo").unwrap_err();
    assert!(err.to_string().contains("neither a resource id"), "{err}");
}

#[test]
fn a_chosen_name_that_shows_as_nothing_is_refused() {
    for (name, code) in [
        ("local/\u{3164}", "U+3164"),
        ("local/api\u{FFA0}repo", "U+FFA0"),
        ("local/\u{115F}x", "U+115F"),
        ("local/a\u{FE0F}", "U+FE0F"),
        // Refused before already: it cannot be shown or typed.
        ("local/api\u{200B}", "U+200B"),
    ] {
        let err = ResourceName::parse_chosen(name).unwrap_err().to_string();
        assert!(err.contains(code), "{name:?}: {err}");
        if code != "U+200B" {
            assert!(err.contains("shows as nothing"), "{name:?}: {err}");
        }
    }
    // Discovered names keep their file's characters (escaped only where
    // they cannot be shown or typed, as before).
    assert!(ResourceName::parse("local/dir/\u{3164}").is_ok());
}

#[test]
fn a_look_alike_in_another_script_is_confusable_and_a_same_script_one_is_not() {
    let name = |t: &str| ResourceName::parse_chosen(t).unwrap();
    let latin = name("local/api");
    let cyrillic_a = name("local/\u{0430}pi");
    assert!(cyrillic_a.confusable_with(&latin));
    assert!(latin.confusable_with(&cyrillic_a));
    assert!(!latin.confusable_with(&latin));
    // Whole-script: every letter Cyrillic.
    assert!(
        name("local/\u{0455}\u{0441}\u{043E}\u{0440}\u{0435}")
            .confusable_with(&name("local/scope"))
    );
    // Both Latin: read apart.
    assert!(!name("local/rn").confusable_with(&name("local/m")));
    assert!(!name("local/api").confusable_with(&name("local/apl")));
}
