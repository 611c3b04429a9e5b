//! What a trapped guest last said went wrong: the one home of reading a
//! handler's captured stderr for the line an author can act on.
//!
//! A trap itself says little (`wasm unreachable instruction executed`);
//! the guest's runtime usually wrote why just before. Which line that is
//! depends on the language, so [`last_error`] reads the text for the last
//! *error event*:
//!
//! * a Python traceback: its final exception line
//!   (`ValueError: bad package.json`), the first unindented line after the
//!   `Traceback (most recent call last):` frames;
//! * a Rust panic: `panicked at src/lib.rs:10:5: message` (the message
//!   lines joined, the `note: run with RUST_BACKTRACE` boilerplate left
//!   out), in both the current and the pre-1.73 format;
//! * otherwise the last non-empty line.
//!
//! The last event wins, with one exception: componentize-py's runtime
//! reacts to an escaped Python exception by panicking with
//! [`PYTHON_RUNTIME_PANIC`]; that panic says nothing the traceback before
//! it does not, so the traceback is quoted instead.
//!
//! Guest output is attacker-controlled: the answer is one line, every
//! control character escaped (`text::escape_line`), cut to
//! [`GUEST_ERROR_BYTES`]; the scan is one linear pass over text the
//! capture already bounds.

use crate::text::escape_line;

/// Bytes of the guest's error quoted in a trap message.
pub(crate) const GUEST_ERROR_BYTES: usize = 300;

/// What componentize-py's runtime panics with when Python code raises
/// anything but `Err(...)`.
const PYTHON_RUNTIME_PANIC: &str = "Python function threw an unexpected exception";

const TRACEBACK: &str = "Traceback (most recent call last):";

/// One error the guest reported, in the order it wrote them.
#[derive(Debug, PartialEq, Eq)]
enum Event {
    /// A Python exception line.
    Raised(String),
    /// A Rust panic: location and message.
    Panicked(String),
}

/// The guest's own last error in `stderr`, as one safe line; `None` when
/// it wrote nothing but blank lines.
pub(crate) fn last_error(stderr: &str) -> Option<String> {
    let lines: Vec<&str> = stderr.lines().collect();
    let mut events = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_end();
        if line == TRACEBACK {
            // The frames are indented; the exception line is not.
            let end = (i + 1..lines.len()).find(|&j| !is_indented(lines[j]));
            if let Some(j) = end {
                if let Some(text) = Some(lines[j].trim()).filter(|t| !t.is_empty()) {
                    events.push(Event::Raised(text.to_owned()));
                }
                i = j + 1;
                continue;
            }
        } else if let Some((panic, next)) = panic_at(&lines, i) {
            events.push(Event::Panicked(panic));
            i = next;
            continue;
        }
        i += 1;
    }
    let chosen = match events.as_slice() {
        [.., Event::Raised(raised), Event::Panicked(panic)]
            if panic.ends_with(PYTHON_RUNTIME_PANIC) =>
        {
            raised.clone()
        }
        [.., Event::Raised(text) | Event::Panicked(text)] => text.clone(),
        [] => lines
            .iter()
            .rev()
            .map(|l| l.trim())
            .find(|l| !l.is_empty() && !is_backtrace_note(l))?
            .to_owned(),
    };
    Some(cut(&escape_line(&chosen)))
}

/// A Rust panic starting at line `i`: `panicked at …` with its message,
/// and the index of the first line after it.
fn panic_at(lines: &[&str], i: usize) -> Option<(String, usize)> {
    let line = lines[i].trim();
    // `thread 'main' panicked at`; newer Rust adds the thread's id:
    // `thread 'main' (1) panicked at`.
    let at = line
        .find(" panicked at ")
        .filter(|_| line.starts_with("thread '"))?;
    let rest = &line[at + " panicked at ".len()..];
    // Before Rust 1.73: `panicked at 'message', src/lib.rs:10:5`, one line.
    if rest.starts_with('\'') {
        return Some((format!("panicked at {rest}"), i + 1));
    }
    // Since: `panicked at src/lib.rs:10:5:` and the message below.
    let location = rest.trim_end_matches(':');
    let mut message = Vec::new();
    let mut j = i + 1;
    while j < lines.len() {
        let text = lines[j].trim();
        if text.is_empty() || is_backtrace_note(text) || text.starts_with("thread '") {
            break;
        }
        message.push(text);
        j += 1;
    }
    Some((
        format!("panicked at {location}: {}", message.join(" | ")),
        j,
    ))
}

fn is_indented(line: &str) -> bool {
    line.starts_with([' ', '\t']) || line.trim().is_empty()
}

fn is_backtrace_note(line: &str) -> bool {
    line.starts_with("note: run with `RUST_BACKTRACE=")
        || line.starts_with("note: Some details are omitted")
        || line == "stack backtrace:"
}

fn cut(text: &str) -> String {
    if text.len() <= GUEST_ERROR_BYTES {
        return text.to_owned();
    }
    let mut end = GUEST_ERROR_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    const PYTHON: &str = "\
Traceback (most recent call last):
  File \"/0/app.py\", line 11, in validate
    raise ValueError(\"bad package.json\")
ValueError: bad package.json
thread '<unnamed>' (1) panicked at runtime/src/lib.rs:1293:29:
Python function threw an unexpected exception
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace
";

    #[test]
    fn a_python_traceback_is_quoted_by_its_exception_line_not_the_runtime_panic() {
        assert_eq!(
            last_error(PYTHON).as_deref(),
            Some("ValueError: bad package.json")
        );
    }

    #[test]
    fn a_chained_python_exception_quotes_the_last_one() {
        let text = "\
Traceback (most recent call last):
  File \"/0/app.py\", line 3, in read
KeyError: 'name'

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File \"/0/app.py\", line 5, in validate
    ^^^^^^^^^^^
ModuleNotFoundError: No module named 'json'
";
        assert_eq!(
            last_error(text).as_deref(),
            Some("ModuleNotFoundError: No module named 'json'")
        );
    }

    #[test]
    fn a_rust_panic_is_quoted_by_its_location_and_message() {
        let text = "\
some log line
thread '<unnamed>' panicked at src/lib.rs:108:5:
deliberate panic during validate
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace
";
        assert_eq!(
            last_error(text).as_deref(),
            Some("panicked at src/lib.rs:108:5: deliberate panic during validate")
        );
        let multi = "thread 'main' panicked at src/a.rs:1:2:\nassertion `left == right` failed\n  left: 1\n right: 2\n";
        assert_eq!(
            last_error(multi).as_deref(),
            Some("panicked at src/a.rs:1:2: assertion `left == right` failed | left: 1 | right: 2")
        );
        let old = "thread 'main' panicked at 'boom', src/main.rs:2:5\n";
        assert_eq!(
            last_error(old).as_deref(),
            Some("panicked at 'boom', src/main.rs:2:5")
        );
    }

    #[test]
    fn a_real_panic_after_a_python_traceback_is_not_hidden_by_it() {
        let text = "\
Traceback (most recent call last):
  File \"/0/app.py\", line 3, in read
KeyError: 'name'
thread '<unnamed>' (1) panicked at runtime/src/lib.rs:80:5:
expected a list
";
        assert_eq!(
            last_error(text).as_deref(),
            Some("panicked at runtime/src/lib.rs:80:5: expected a list")
        );
    }

    #[test]
    fn plain_text_is_quoted_by_its_last_line() {
        assert_eq!(
            last_error("starting\nerror: config missing\n\n").as_deref(),
            Some("error: config missing")
        );
        assert_eq!(last_error(""), None);
        assert_eq!(last_error("\n  \n"), None);
    }

    #[test]
    fn hostile_control_characters_never_reach_the_answer() {
        let evil = "Traceback (most recent call last):\n  x\n\
                    ValueError: \x1b[2J\x1b]0;pwned\x07\rforged\u{202e}\n";
        let got = last_error(evil).unwrap();
        assert!(!got.chars().any(|c| c.is_control()), "{got:?}");
        assert!(got.starts_with("ValueError: \\u{1b}[2J"), "{got}");
        let panic = "thread 'x' panicked at a.rs:1:1:\n\x1b[31mred\x1b[0m\n";
        assert!(!last_error(panic).unwrap().chars().any(|c| c.is_control()));
    }

    #[test]
    fn huge_input_gives_a_bounded_answer() {
        let mut text = "x".repeat(10 << 20);
        text.push_str("\nthread 'a' panicked at a.rs:1:1:\n");
        text.push_str(&"é".repeat(10_000));
        let got = last_error(&text).unwrap();
        assert!(
            got.len() <= GUEST_ERROR_BYTES + '…'.len_utf8(),
            "{}",
            got.len()
        );
        assert!(got.starts_with("panicked at a.rs:1:1: éé"), "{got}");
        assert!(got.ends_with('…'));
        // One enormous line, no event: the line itself, cut.
        let got = last_error(&"y".repeat(10 << 20)).unwrap();
        assert_eq!(got.len(), GUEST_ERROR_BYTES + '…'.len_utf8());
        // A traceback that never reaches its exception line.
        let open = format!("{TRACEBACK}\n{}", "  frame\n".repeat(100_000));
        assert_eq!(last_error(&open).as_deref(), Some("frame"));
    }
}
