//! The shape limits of YAML and JSON that came from outside (a type file,
//! a registry document): the one home of how deep a text may nest and how
//! far its aliases may expand, checked before serde sees the text so that
//! reading a hostile one costs time linear in its size.
//!
//! Why a check of our own before `serde_yaml`: it refuses nesting past 128
//! levels only while it *deserializes*, after libyaml has parsed the whole
//! text into events; and libyaml's scanner keeps one possible "simple key"
//! per open flow collection and looks at all of them at every token, so a
//! text of `{a: {a: {a: …` costs time quadratic in its depth — 100 KB took
//! 13 s. Here the same parser is pulled one event at a time and stopped
//! at the first level past [`MAX_DEPTH`], so it never holds more than that
//! many. Aliases are counted the same pass: each one adds the nodes of
//! what it names (aliases inside that included), and all of them together
//! may add no more nodes than the text has bytes, plus [`ALIAS_SLACK`] —
//! a "billion laughs" is refused at its first few aliases. (serde_yaml's
//! own guard allows a hundred jumps per event, which still lets a 100 KB
//! text expand to billions of nodes.) JSON has no aliases, and
//! `serde_json` is linear, but its depth limit is 128; the same
//! [`MAX_DEPTH`] holds for it, by a scan that skips strings.
//!
//! A text libyaml cannot parse passes here unchanged: serde_yaml then
//! reports the syntax error with its line and column, having done no more
//! work than this pass did up to that point.

use std::collections::HashMap;

/// The deepest nesting accepted (mappings and lists inside each other): a
/// registry document needs 5 levels, a type file 4.
pub const MAX_DEPTH: usize = 64;

/// Nodes aliases may add beyond the text's length in bytes.
pub const ALIAS_SLACK: u64 = 10_000;

/// Refuse a YAML text nested deeper than [`MAX_DEPTH`] or whose aliases
/// expand past their bound; the reason, with the line, for a refusal.
pub fn check_yaml(text: &str) -> Result<(), String> {
    let Some(mut parser) = libyaml::Parser::new(text.as_bytes()) else {
        return Ok(()); // out of memory setting up: serde_yaml will say
    };
    let alias_budget = text.len() as u64 + ALIAS_SLACK;
    let mut added = 0u64;
    // Each open collection: its anchor and the nodes it holds so far.
    let mut open: Vec<(Option<Vec<u8>>, u64)> = Vec::new();
    let mut anchors: HashMap<Vec<u8>, u64> = HashMap::new();
    loop {
        let Ok((event, line)) = parser.next() else {
            return Ok(()); // a syntax error: serde_yaml reports it
        };
        let nodes = match event {
            libyaml::Event::StreamEnd => return Ok(()),
            libyaml::Event::Other => continue,
            libyaml::Event::Start(anchor) => {
                if open.len() == MAX_DEPTH {
                    return Err(format!(
                        "it nests deeper than {MAX_DEPTH} levels (line {line})"
                    ));
                }
                open.push((anchor, 1));
                continue;
            }
            libyaml::Event::End => {
                let Some((anchor, nodes)) = open.pop() else {
                    continue;
                };
                if let Some(anchor) = anchor {
                    anchors.insert(anchor, nodes);
                }
                nodes
            }
            libyaml::Event::Scalar(anchor) => {
                if let Some(anchor) = anchor {
                    anchors.insert(anchor, 1);
                }
                1
            }
            libyaml::Event::Alias(anchor) => {
                // An unknown anchor is serde_yaml's to report.
                let nodes = anchors.get(&anchor).copied().unwrap_or(1);
                added = added.saturating_add(nodes);
                if added > alias_budget {
                    return Err(format!(
                        "its aliases expand to more than {alias_budget} nodes (line {line}); a \
                         text may repeat through aliases no more than its own size"
                    ));
                }
                nodes
            }
        };
        if let Some((_, count)) = open.last_mut() {
            *count = count.saturating_add(nodes);
        }
    }
}

/// Refuse a JSON text nested deeper than [`MAX_DEPTH`] (strings skipped;
/// anything else malformed is serde_json's to report).
pub fn check_json(text: &str) -> Result<(), String> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (at, byte) in text.bytes().enumerate() {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(format!(
                        "it nests deeper than {MAX_DEPTH} levels (at byte {at})"
                    ));
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// libyaml's parser (the one serde_yaml drives), pulled one event at a
/// time. The only unsafe code here: the C API's pointers, each use
/// justified where it is.
#[allow(unsafe_code)]
mod libyaml {
    use std::ffi::CStr;
    use std::marker::PhantomData;
    use std::mem::MaybeUninit;
    use unsafe_libyaml as unsafe_sys;

    /// What the checks need of an event.
    pub(super) enum Event {
        /// A mapping or sequence starts (with its anchor).
        Start(Option<Vec<u8>>),
        End,
        Scalar(Option<Vec<u8>>),
        Alias(Vec<u8>),
        StreamEnd,
        Other,
    }

    /// A parser over borrowed text. Boxed, so it never moves once
    /// initialised (libyaml keeps pointers into its own buffers).
    pub(super) struct Parser<'t> {
        raw: Box<MaybeUninit<unsafe_sys::yaml_parser_t>>,
        _text: PhantomData<&'t [u8]>,
    }

    impl<'t> Parser<'t> {
        pub(super) fn new(text: &'t [u8]) -> Option<Self> {
            let mut raw = Box::new(MaybeUninit::<unsafe_sys::yaml_parser_t>::uninit());
            let parser = raw.as_mut_ptr();
            // SAFETY: `parser` points at memory the box owns, sized and
            // aligned for a `yaml_parser_t`; `yaml_parser_initialize`
            // initialises it (or fails, and then it is never used or
            // deleted). The input is `text`, which outlives the parser
            // (`'t`), read through the pointer and length given.
            unsafe {
                if unsafe_sys::yaml_parser_initialize(parser).fail {
                    return None;
                }
                unsafe_sys::yaml_parser_set_encoding(parser, unsafe_sys::YAML_UTF8_ENCODING);
                unsafe_sys::yaml_parser_set_input_string(parser, text.as_ptr(), text.len() as u64);
            }
            Some(Self {
                raw,
                _text: PhantomData,
            })
        }

        /// The next event and its line (1-based); `Err` on a syntax error.
        pub(super) fn next(&mut self) -> Result<(Event, u64), ()> {
            let parser = self.raw.as_mut_ptr();
            let mut event = MaybeUninit::<unsafe_sys::yaml_event_t>::uninit();
            // SAFETY: the parser was initialised in `new` and is only used
            // from `&mut self`. After a successful `yaml_parser_parse` the
            // event is initialised; its anchors are NUL-terminated strings
            // libyaml owns until `yaml_event_delete`, which is called once,
            // after they were copied. The union field read is the one the
            // event's type says is live. After a failure the event is not
            // initialised and not touched.
            unsafe {
                if (&*parser).error != unsafe_sys::YAML_NO_ERROR
                    || unsafe_sys::yaml_parser_parse(parser, event.as_mut_ptr()).fail
                {
                    return Err(());
                }
                let e = &*event.as_ptr();
                let anchor = |ptr: *mut u8| {
                    (!ptr.is_null()).then(|| {
                        CStr::from_ptr(ptr.cast::<std::ffi::c_char>())
                            .to_bytes()
                            .to_vec()
                    })
                };
                let out = match e.type_ {
                    unsafe_sys::YAML_SEQUENCE_START_EVENT => {
                        Event::Start(anchor(e.data.sequence_start.anchor))
                    }
                    unsafe_sys::YAML_MAPPING_START_EVENT => {
                        Event::Start(anchor(e.data.mapping_start.anchor))
                    }
                    unsafe_sys::YAML_SEQUENCE_END_EVENT | unsafe_sys::YAML_MAPPING_END_EVENT => {
                        Event::End
                    }
                    unsafe_sys::YAML_SCALAR_EVENT => Event::Scalar(anchor(e.data.scalar.anchor)),
                    unsafe_sys::YAML_ALIAS_EVENT => {
                        Event::Alias(anchor(e.data.alias.anchor).unwrap_or_default())
                    }
                    unsafe_sys::YAML_STREAM_END_EVENT => Event::StreamEnd,
                    _ => Event::Other,
                };
                let line = e.start_mark.line + 1;
                unsafe_sys::yaml_event_delete(event.as_mut_ptr());
                Ok((out, line))
            }
        }
    }

    impl Drop for Parser<'_> {
        fn drop(&mut self) {
            // SAFETY: a `Parser` exists only once `new` initialised it;
            // this is the one delete.
            unsafe { unsafe_sys::yaml_parser_delete(self.raw.as_mut_ptr()) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_past_the_limit_is_refused_in_yaml_flow_block_and_json() {
        let flow = format!(
            "{}1{}",
            "{a: ".repeat(MAX_DEPTH + 1),
            "}".repeat(MAX_DEPTH + 1)
        );
        assert!(
            check_yaml(&flow)
                .unwrap_err()
                .contains("deeper than 64 levels")
        );
        let block = format!("{}x\n", "- ".repeat(MAX_DEPTH + 1));
        assert!(check_yaml(&block).is_err());
        let ok = format!("{}1{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert_eq!(check_yaml(&ok), Ok(()));
        assert_eq!(check_json(&ok), Ok(()));
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert!(check_json(&deep).unwrap_err().contains("deeper than 64"));
        assert_eq!(
            check_json(
                r#"{"a": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\"["}"#
            ),
            Ok(())
        );
    }

    #[test]
    fn aliases_may_repeat_what_they_name_only_up_to_the_texts_size() {
        let mut laughs = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        for (from, to) in ["ab", "bc", "cd", "de", "ef", "fg", "gh", "hi"]
            .iter()
            .map(|p| (&p[..1], &p[1..]))
        {
            laughs.push_str(&format!(
                "{to}: &{to} [*{from}, *{from}, *{from}, *{from}, *{from}, *{from}, *{from}, *{from}, *{from}, *{from}]\n"
            ));
        }
        let err = check_yaml(&laughs).unwrap_err();
        assert!(err.contains("aliases expand to more than"), "{err}");
        assert_eq!(check_yaml("a: &a [1, 2]\nb: *a\nc: *a\n"), Ok(()));
    }

    #[test]
    fn a_syntax_error_is_left_for_serde_to_report() {
        assert_eq!(check_yaml("a: [1, 2\nb: {"), Ok(()));
    }
}
