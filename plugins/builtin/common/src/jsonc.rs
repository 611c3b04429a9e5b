//! JSON with comments, as `devcontainer.json` is written: the one parser
//! that decides what a devcontainer configuration says, for detection
//! (inside the built-in handlers' WebAssembly sandbox) and for activation
//! (on the host, which compiles this very file into its
//! `devcontainer::jsonc` with `#[path]`: one source, one set of tests,
//! nothing to keep equal by hand).
//!
//! `//` and `/* */` comments and one trailing comma before `]` or `}` are
//! accepted, as VS Code and the Dev Containers CLI write them. The CLI
//! reads the file with Microsoft's `jsonc-parser`, which is error-tolerant:
//! it reports a syntax error and goes on, building *some* value. Where the
//! two could read a file differently, this parser refuses instead of
//! guessing which value was meant:
//!
//! * anything that is not JSON once comments and the one trailing comma
//!   are gone (text after the value, a missing value, two commas, a comma
//!   right after `[` or `{`) — the CLI would skip the bad token and read
//!   on;
//! * a `/*` comment with no `*/` (the CLI reads the value before it, then
//!   reports it; whatever it hid is nobody's to guess);
//! * a key given twice in one object (the CLI keeps the last, other
//!   readers the first);
//! * a key `__proto__` (the CLI's `object[key] = value` makes it the
//!   object's prototype: its members would be read as the object's own).
//!
//! A `//` comment ends at a line feed *or* a carriage return, as in the
//! CLI's scanner (a comment ending only at `\n` would hide from this
//! parser what the CLI reads after a lone `\r`). A byte-order mark before
//! the value is skipped (both read the same value past it). Nesting is
//! bounded by serde_json's recursion limit (128).

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// `text` parsed as JSON with comments and one trailing comma per list;
/// the error says where (line and column) and what was refused.
pub fn parse_jsonc(text: &str) -> Result<Value, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let plain = strip_jsonc(text)?;
    let mut de = serde_json::Deserializer::from_str(&plain);
    let value = Strict
        .deserialize(&mut de)
        .and_then(|v| de.end().map(|()| v))
        .map_err(|e| format!("not valid JSON with comments: {e}"))?;
    Ok(value)
}

/// `text` without comments and trailing commas; strings untouched, and
/// line structure kept (a comment becomes nothing but its line breaks) so
/// errors point at the right line. Refuses an unterminated `/*` comment
/// and a comma with no value before it.
pub fn strip_jsonc(text: &str) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    let mut line = 1usize;
    while let Some(c) = chars.next() {
        if c == '\n' {
            line += 1;
        }
        if in_string {
            out.push(c);
            match c {
                '\\' => {
                    if let Some(next) = chars.next() {
                        out.push(next);
                    }
                }
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '/' if chars.peek() == Some(&'/') => {
                // To the line break, which stays (a `\r` ends it too).
                while chars.next_if(|&c| c != '\n' && c != '\r').is_some() {}
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let from = line;
                let mut last = ' ';
                let mut closed = false;
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        line += 1;
                    }
                    if last == '*' && c == '/' {
                        closed = true;
                        break;
                    }
                    last = c;
                }
                if !closed {
                    return Err(format!(
                        "not valid JSON with comments: the /* comment on line {from} is never \
                         closed (*/); what it hides cannot be read"
                    ));
                }
            }
            '}' | ']' => {
                // A trailing comma: the last non-blank output before it.
                let end = out.trim_end().len();
                if out[..end].ends_with(',') {
                    let before = out[..end - 1].trim_end();
                    if before.ends_with([',', '[', '{']) {
                        return Err(format!(
                            "not valid JSON with comments: a comma with no value before it, \
                             before the {c:?} on line {line}"
                        ));
                    }
                    out.remove(end - 1);
                }
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    Ok(out)
}

/// A `Value`, refusing what [`parse_jsonc`]'s doc says.
struct Strict;

impl<'de> DeserializeSeed<'de> for Strict {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Strict)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if key == "__proto__" {
                return Err(de::Error::custom(
                    "the key \"__proto__\" is refused (the Dev Containers CLI would read it as \
                     the object's prototype, not as a key)",
                ));
            }
            if out.contains_key(&key) {
                return Err(de::Error::custom(format!(
                    "the key {key:?} is given twice in one object (the Dev Containers CLI would \
                     take the last, other readers the first); keep one"
                )));
            }
            let value = map.next_value_seed(Strict)?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_trailing_commas_are_what_devcontainer_json_allows() {
        let text = r#"{
            // The name people see.
            "name": "api // not a comment",
            /* an image,
               pinned */
            "image": "mcr.microsoft.com/devcontainers/rust:1",
            "features": { "a": 1, },
            "forwardPorts": [3000, 8080,], // after a value
        }"#;
        let json = parse_jsonc(text).unwrap();
        assert_eq!(json["name"], "api // not a comment");
        assert_eq!(json["image"], "mcr.microsoft.com/devcontainers/rust:1");
        assert_eq!(json["forwardPorts"][1], 8080);
        assert_eq!(json["features"]["a"], 1);
    }

    #[test]
    fn strings_keep_comment_markers_commas_and_escaped_quotes() {
        let text = r#"{"a": "x /* y */ z", "b": "say \"//\",]", "c": "http://h/p",}"#;
        let json = parse_jsonc(text).unwrap();
        assert_eq!(json["a"], "x /* y */ z");
        assert_eq!(json["b"], "say \"//\",]");
        assert_eq!(json["c"], "http://h/p");
    }

    #[test]
    fn a_comment_between_the_last_comma_and_the_brace_still_ends_cleanly() {
        let json = parse_jsonc("[1, 2, // two\n /* end */ ]").unwrap();
        assert_eq!(json, serde_json::json!([1, 2]));
    }

    #[test]
    fn a_broken_configuration_says_which_line() {
        let err = parse_jsonc("{\n  // a comment keeps its line\n  \"image\": \n}").unwrap_err();
        assert!(err.contains("line 4"), "{err}");
    }

    #[test]
    fn a_byte_order_mark_before_the_value_is_skipped() {
        assert_eq!(
            parse_jsonc("\u{feff}{\"image\": \"x\"}").unwrap()["image"],
            "x"
        );
    }

    #[test]
    fn only_one_trailing_comma_is_forgiven() {
        for text in [
            "{\"a\": 1,, }",
            "[1,,]",
            "[,]",
            "{,}",
            "{\"a\": 1,,\"b\": 2}",
            "[1,,2]",
        ] {
            assert!(parse_jsonc(text).is_err(), "{text}");
        }
    }

    #[test]
    fn text_after_the_value_is_refused() {
        for text in [
            "{\"image\": \"a\"} {\"image\": \"b\"}",
            "{\"image\": \"a\"},",
            "{\"image\": \"a\"} x",
            "{} // fine\n]",
        ] {
            let err = parse_jsonc(text).unwrap_err();
            assert!(err.contains("trailing"), "{text}: {err}");
        }
        assert!(parse_jsonc("{} // a comment after the value is fine\n").is_ok());
    }

    #[test]
    fn an_unterminated_block_comment_is_refused_saying_where_it_starts() {
        let text = "{\"image\": \"debian\"}\n/* unterminated\n,\"runArgs\": [\"--privileged\"]}";
        let err = parse_jsonc(text).unwrap_err();
        assert!(
            err.contains("line 2") && err.contains("never closed"),
            "{err}"
        );
        assert!(parse_jsonc("{\"a\": 1 /* x").is_err());
        assert!(parse_jsonc("{\"a\": 1} /*/").is_err());
        assert!(parse_jsonc("{\"a\": 1} /**/").is_ok());
    }

    #[test]
    fn a_key_given_twice_is_refused_at_any_depth() {
        let err = parse_jsonc("{\"image\": \"a\", \"image\": \"b\"}").unwrap_err();
        assert!(err.contains("\"image\" is given twice"), "{err}");
        assert!(parse_jsonc("{\"build\": {\"args\": {\"A\": \"1\", \"A\": \"2\"}}}").is_err());
        // The same key in two objects is two keys.
        assert!(parse_jsonc("[{\"a\": 1}, {\"a\": 2}]").is_ok());
        // Escapes are decoded before keys are compared.
        assert!(parse_jsonc("{\"image\": \"a\", \"im\\u0061ge\": \"b\"}").is_err());
    }

    #[test]
    fn a_proto_key_is_refused() {
        let err = parse_jsonc("{\"__proto__\": {\"image\": \"x\"}}").unwrap_err();
        assert!(err.contains("__proto__"), "{err}");
        assert!(parse_jsonc("{\"a\": {\"__proto__\": 1}}").is_err());
        assert!(parse_jsonc("{\"a\": \"__proto__\"}").is_ok());
    }

    #[test]
    fn a_line_comment_ends_at_a_carriage_return_as_in_the_clis_scanner() {
        // The CLI reads "runArgs" after the lone \r; so must this parser.
        let text = "{\"image\": \"a\" // note\r, \"runArgs\": [\"--privileged\"]}";
        let json = parse_jsonc(text).unwrap();
        assert_eq!(json["runArgs"][0], "--privileged");
    }

    #[test]
    fn nesting_is_bounded() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let err = parse_jsonc(&deep).unwrap_err();
        assert!(err.contains("recursion limit"), "{err}");
    }

    #[test]
    fn what_is_not_json_is_refused() {
        for text in [
            "",
            "{'image': 'x'}",
            "{image: \"x\"}",
            "{\"a\": NaN}",
            "{\"a\": 01}",
            "{\"a\": \"line\nbreak\"}",
            "{\"a\": \"\\x41\"}",
            "{\"a\": 1} \u{a0}",
            "/",
        ] {
            assert!(parse_jsonc(text).is_err(), "{text:?}");
        }
    }
}
