//! Child names: one part of a resource name (`local/repo/git/branch/<part>`)
//! made from any text — a branch, a tag, a file name — so that the same
//! text always gives the same part and two texts never give the same one.

/// `text` as one resource-name part: letters, digits, `-`, `.` and `_`
/// are kept; every other byte (`/`, spaces, non-ASCII, …) becomes `_` and
/// two lowercase hex digits (`a b` → `a_20b`, `é` → `_c3_a9`). A `_` that
/// is itself followed by two hex digits is escaped too (`a_20b` → `a_5f20b`),
/// so the mapping stays one to one while `__init__.py` stays as it is. A
/// part that would be `.` or `..` is escaped the same way; the empty text
/// is `_5f`.
pub fn name_part(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    for (i, &byte) in bytes.iter().enumerate() {
        let hex_follows = bytes.len() > i + 2
            && bytes[i + 1].is_ascii_hexdigit()
            && bytes[i + 2].is_ascii_hexdigit();
        let keep = byte.is_ascii_alphanumeric()
            || byte == b'-'
            || byte == b'.'
            || (byte == b'_' && !hex_follows);
        if keep {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("_{byte:02x}"));
        }
    }
    match out.as_str() {
        // `_5f` alone is what no other text gives (an escaped `_` is
        // always followed by the two hex digits that made it escaped).
        "" => "_5f".to_owned(),
        "." => "_2e".to_owned(),
        ".." => "_2e_2e".to_owned(),
        _ => out,
    }
}

/// A `/`-separated text (a branch `feature/x`) as resource-name parts, one
/// per segment, each made by [`name_part`]: `feature/x` stays readable.
pub fn name_path(text: &str) -> String {
    text.split('/').map(name_part).collect::<Vec<_>>().join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_readable_where_they_can_be_and_one_to_one_everywhere() {
        assert_eq!(name_part("main"), "main");
        assert_eq!(name_part("v1.0"), "v1.0");
        assert_eq!(name_part("a b"), "a_20b");
        assert_eq!(name_part("a_b"), "a_b");
        assert_eq!(name_part("__init__.py"), "__init__.py");
        assert_eq!(name_part("a_20b"), "a_5f20b");
        assert_eq!(name_part("é"), "_c3_a9");
        assert_eq!(name_part(".."), "_2e_2e");
        assert_ne!(name_part("a_20b"), name_part("a b"));
        assert_eq!(name_part("_"), "_");
        assert_eq!(name_part(""), "_5f");
        assert_ne!(name_part(""), name_part("_5f"));
        assert_eq!(name_path("feature/new ui"), "feature/new_20ui");
    }
}
