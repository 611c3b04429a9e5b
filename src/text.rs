//! Untrusted text: the one home of how text that came from outside (a
//! handler's answer, a name someone typed, a path on disk) is quoted in a
//! message and shown on a terminal.
//!
//! * [`quote`] puts a value into an error message: Debug-quoted (so
//!   control characters are escaped) and cut to [`QUOTE_CHARS`]
//!   characters, saying how much was cut — a refused 1 MiB key is named,
//!   not printed.
//! * [`escape_line`] and [`escape_block`] make text safe to print for
//!   people: every control character (C0, DEL, C1) and every bidirectional
//!   override is shown escaped (`\u{1b}`), so no text can clear a screen,
//!   set a window title, move the cursor back over a line or reorder what
//!   is read. `escape_block` keeps line feeds and tabs (multi-line text
//!   such as `inspect`'s); `escape_line` escapes them too (one-line text:
//!   an error, a table cell). Programs get exact data through `-o json` /
//!   `-o yaml`, never through these.

use std::borrow::Cow;

/// Characters of a value quoted in a message.
pub const QUOTE_CHARS: usize = 80;

/// `text` Debug-quoted, cut to [`QUOTE_CHARS`] characters.
pub fn quote(text: &str) -> String {
    match text.char_indices().nth(QUOTE_CHARS) {
        None => format!("{text:?}"),
        Some((cut, _)) => format!("{:?}… ({} more bytes)", &text[..cut], text.len() - cut),
    }
}

/// Characters of handler prose (an error message) kept in a message.
pub const EXCERPT_CHARS: usize = 1_000;

/// `text` cut to `max` characters, saying how much was cut.
pub fn excerpt(text: &str, max: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max) {
        None => Cow::Borrowed(text),
        Some((cut, _)) => Cow::Owned(format!(
            "{}… ({} more bytes)",
            &text[..cut],
            text.len() - cut
        )),
    }
}

/// Is `c` shown escaped on a terminal (with `keep` passing through)?
fn unsafe_char(c: char, keep: &[char]) -> bool {
    !keep.contains(&c)
        && (c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'))
}

fn escape<'t>(text: &'t str, keep: &[char]) -> Cow<'t, str> {
    if !text.chars().any(|c| unsafe_char(c, keep)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if unsafe_char(c, keep) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// One line for a terminal: every control character escaped, line feeds
/// and tabs included.
pub fn escape_line(text: &str) -> Cow<'_, str> {
    escape(text, &[])
}

/// Lines for a terminal: control characters escaped except line feeds and
/// tabs.
pub fn escape_block(text: &str) -> Cow<'_, str> {
    escape(text, &['\n', '\t'])
}

/// An error and its causes as one line, as the front ends show a
/// refusal. Most of the library's errors already quote their cause in
/// their own message (`cannot add plugin x.wasm: not a WebAssembly file
/// …`), so a cause is added only when its text is not there yet — which
/// is why this is a walk of our own and not `anyhow`'s `{:#}`, which
/// would print such causes twice. Not escaped: see [`escape_line`].
pub fn error_chain(err: &dyn std::error::Error) -> String {
    let mut message = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        source = cause.source();
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_cannot_reach_the_terminal() {
        let evil = "ok\x1b[2J\x1b]0;pwned\x07\rforged\u{202e}txt\u{9b}";
        let line = escape_line(evil);
        assert!(!line.chars().any(|c| c.is_control()), "{line}");
        assert_eq!(
            line,
            "ok\\u{1b}[2J\\u{1b}]0;pwned\\u{7}\\rforged\\u{202e}txt\\u{9b}"
        );
        assert_eq!(escape_block("a\n\tb\r"), "a\n\tb\\r");
        assert_eq!(escape_line("a\nb"), "a\\nb");
        assert!(matches!(escape_line("plain ünïcode"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_quoted_value_is_cut_and_says_how_much() {
        let huge = "k".repeat(1 << 20);
        let q = quote(&huge);
        assert!(q.len() < 120, "{q}");
        assert!(
            q.ends_with(&format!("({} more bytes)", (1 << 20) - QUOTE_CHARS)),
            "{q}"
        );
        assert_eq!(quote("short\x1b"), "\"short\\u{1b}\"");
    }
}
