//! Child names: one part of a resource name (`local/repo/git/branch/<part>`)
//! made from any text — a branch, a tag, a file name — so that the same
//! text always gives the same part and two texts never give the same one,
//! and so that the part reads as the text it was made from.

/// `text` as one resource-name part: the text as it is — letters of any
/// script, digits, spaces, `_`, punctuation — except what cannot be shown
/// or typed, which becomes `%` and two uppercase hex digits per UTF-8 byte:
///
/// * control characters (C0 `U+0000`–`U+001F`, DEL, C1 `U+0080`–`U+009F`)
///   and the line and paragraph separators `U+2028`, `U+2029`;
/// * invisible characters that change how the rest reads: the bidi marks,
///   embeddings, overrides and isolates (`U+061C`, `U+200E`, `U+200F`,
///   `U+202A`–`U+202E`, `U+2066`–`U+2069`), the zero-width characters
///   (`U+200B`–`U+200D`, `U+2060`, `U+FEFF`);
/// * noncharacters (`U+FDD0`–`U+FDEF`, and `U+xFFFE`/`U+xFFFF` in every
///   plane) and the last 256 code points `U+10FF00`–`U+10FFFF`, with which
///   the host hands over the bytes of a name that are not UTF-8 (see
///   [`name_of_bytes`]);
/// * `/` (it separates parts) and `%` itself.
///
/// `my notes.txt` stays `my notes.txt`, `café.txt` stays `café.txt`,
/// `a\tb` is `a%09b`, `100%` is `100%25`. A part that would be `.` or `..`
/// is `%2E` or `%2E%2E`; the empty text is `%` alone (no other text gives
/// a `%` that is not followed by two hex digits).
pub fn name_part(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if shown(c) {
            out.push(c);
        } else if let Some(byte) = smuggled_byte(c) {
            push_escape(&mut out, byte);
        } else {
            let mut buf = [0; 4];
            for &byte in c.encode_utf8(&mut buf).as_bytes() {
                push_escape(&mut out, byte);
            }
        }
    }
    match out.as_str() {
        "" => "%".to_owned(),
        "." => "%2E".to_owned(),
        ".." => "%2E%2E".to_owned(),
        _ => out,
    }
}

/// The first of the 256 code points that stand for raw bytes.
const SMUGGLE_BASE: u32 = 0x10_FF00;

/// The byte `c` stands for, when the host handed a name that is not
/// UTF-8: byte `b` arrives as `U+10FF00 + b`.
fn smuggled_byte(c: char) -> Option<u8> {
    u8::try_from(u32::from(c).checked_sub(SMUGGLE_BASE)?).ok()
}

/// Bytes (a file name as the filesystem or git holds it) as text that
/// crosses the WIT one to one: valid UTF-8 as it is, every other byte —
/// and every byte of a character in `U+10FF00`–`U+10FFFF`, so that no two
/// byte strings meet — as `U+10FF00 + byte`. [`name_part`] shows each such
/// byte as `%XX`: a file named `b"caf\xe9.txt"` (Latin-1) is the part
/// `caf%E9.txt`.
pub fn name_of_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    let smuggle = |out: &mut String, raw: &[u8]| {
        for &b in raw {
            out.push(char::from_u32(SMUGGLE_BASE + u32::from(b)).expect("a valid code point"));
        }
    };
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if u32::from(c) >= SMUGGLE_BASE {
                let mut buf = [0; 4];
                smuggle(&mut out, c.encode_utf8(&mut buf).as_bytes());
            } else {
                out.push(c);
            }
        }
        smuggle(&mut out, chunk.invalid());
    }
    out
}

fn push_escape(out: &mut String, byte: u8) {
    out.push_str(&format!("%{byte:02X}"));
}

/// Is `c` kept as it is in a name part?
fn shown(c: char) -> bool {
    let n = u32::from(c);
    let control = c.is_control() || matches!(n, 0x2028 | 0x2029);
    let invisible = matches!(
        n,
        0x061C | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060 | 0x2066..=0x2069 | 0xFEFF
    );
    let noncharacter = matches!(n, 0xFDD0..=0xFDEF) || (n & 0xFFFE) == 0xFFFE;
    !(control || invisible || noncharacter || n >= SMUGGLE_BASE || c == '/' || c == '%')
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
    fn file_names_stay_as_they_are_where_they_can_be_shown() {
        for text in [
            "main",
            "v1.0",
            "test_10.py",
            "my notes.txt",
            "café.txt",
            "__init__.py",
        ] {
            assert_eq!(name_part(text), text);
        }
        assert_eq!(name_part("日本語 ファイル"), "日本語 ファイル");
        assert_eq!(name_path("feature/new ui"), "feature/new ui");
    }

    #[test]
    fn what_cannot_be_shown_is_escaped_per_byte_and_percent_itself() {
        assert_eq!(name_part("a\tb"), "a%09b");
        assert_eq!(name_part("bell\u{7}"), "bell%07");
        assert_eq!(name_part("del\u{7f}"), "del%7F");
        assert_eq!(name_part("c1\u{85}"), "c1%C2%85");
        assert_eq!(name_part("evil\u{202e}txt.exe"), "evil%E2%80%AEtxt.exe");
        assert_eq!(name_part("zero\u{200b}width"), "zero%E2%80%8Bwidth");
        assert_eq!(name_part("non\u{fffe}"), "non%EF%BF%BE");
        assert_eq!(name_part("100%"), "100%25");
        assert_eq!(name_part("a/b"), "a%2Fb");
    }

    #[test]
    fn dot_dotdot_and_empty_are_escaped_one_to_one() {
        assert_eq!(name_part("."), "%2E");
        assert_eq!(name_part(".."), "%2E%2E");
        assert_eq!(name_part(""), "%");
        assert_eq!(name_part("..."), "...");
        assert_ne!(name_part("%2E"), name_part("."));
    }

    #[test]
    fn bytes_that_are_not_utf8_read_back_as_percent_escapes() {
        assert_eq!(name_part(&name_of_bytes(b"caf\xe9.txt")), "caf%E9.txt");
        assert_eq!(name_part(&name_of_bytes(b"\xff")), "%FF");
        assert_eq!(name_of_bytes("café".as_bytes()), "café");
        // A real character of the smuggling range arrives as its UTF-8
        // bytes, so it never meets the byte it would stand for.
        let real = "\u{10ff41}";
        assert_eq!(name_part(&name_of_bytes(real.as_bytes())), "%F4%8F%BD%81");
        assert_ne!(name_of_bytes(real.as_bytes()), name_of_bytes(b"A"));
    }

    #[test]
    fn two_texts_never_give_one_part() {
        let texts = [
            "", ".", "..", "%", "%25", "%2E", "a b", "a_20b", "a%20b", "a\u{0}", "a%00", "é",
            "_c3_a9", "\u{ff}", "%FF",
        ];
        let parts: std::collections::BTreeSet<_> = texts.iter().map(|t| name_part(t)).collect();
        assert_eq!(parts.len(), texts.len());
    }
}
