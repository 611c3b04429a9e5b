//! JSON with comments, as `devcontainer.json` is written: `//` and `/* */`
//! comments and trailing commas, read as the Dev Containers CLI reads them.
//!
//! The host's copy of the built-in handlers' reader
//! (`plugins/builtin/common/src/devcontainer.rs`, which detection uses
//! inside the WebAssembly sandbox): the same rules, kept equal by the same
//! tests. The two cannot share code today (the guest crate builds for
//! `wasm32` against the handler SDK); a small shared crate would end the
//! copy.

use serde_json::Value;

/// `text` parsed as JSON with comments and trailing commas; the error
/// says where (line and column), as serde_json does.
pub fn parse_jsonc(text: &str) -> Result<Value, String> {
    serde_json::from_str(&strip_jsonc(text))
        .map_err(|e| format!("not valid JSON with comments: {e}"))
}

/// `text` without comments and trailing commas; strings untouched, and
/// line structure kept (comments become nothing but their line feeds) so
/// errors point at the right line.
pub fn strip_jsonc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
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
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut last = ' ';
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                    }
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
            }
            '}' | ']' => {
                // A trailing comma: the last non-blank output before it.
                let end = out.trim_end().len();
                if out[..end].ends_with(',') {
                    out.remove(end - 1);
                }
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
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
    fn only_one_trailing_comma_is_forgiven() {
        assert!(parse_jsonc("{\"a\": 1,, }").is_err());
        assert!(parse_jsonc("[1,,]").is_err());
    }
}
