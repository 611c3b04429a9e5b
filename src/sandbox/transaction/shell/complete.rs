//! When a shell's lines make a statement: SQLite's `sqlite3_complete`
//! (complete.c), ported, because rusqlite does not expose it and the
//! crate calls no C directly (`unsafe_code` is denied).

/// What [`complete`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completeness {
    /// Only whitespace and comments.
    Empty,
    Incomplete,
    /// Ends with a `;` that closes a statement (a trigger's `; END;`).
    Complete,
}

/// SQLite's `sqlite3_complete` (complete.c), ported: a state machine over
/// tokens, where quotes, brackets and comments must be closed and a
/// `CREATE [TEMP] TRIGGER` ends only at `; END;`.
pub fn complete(sql: &str) -> Completeness {
    const SEMI: usize = 0;
    const WS: usize = 1;
    const OTHER: usize = 2;
    const EXPLAIN: usize = 3;
    const CREATE: usize = 4;
    const TEMP: usize = 5;
    const TRIGGER: usize = 6;
    const END: usize = 7;
    // States: 0 nothing yet, 1 start (after a statement), 2 normal,
    // 3 explain, 4 create, 5 trigger, 6 `;` in a trigger, 7 `; END`.
    const TRANS: [[u8; 8]; 8] = [
        [1, 0, 2, 3, 4, 2, 2, 2],
        [1, 1, 2, 3, 4, 2, 2, 2],
        [1, 2, 2, 2, 2, 2, 2, 2],
        [1, 3, 3, 2, 4, 2, 2, 2],
        [1, 4, 2, 2, 2, 4, 5, 2],
        [6, 5, 5, 5, 5, 5, 5, 5],
        [6, 6, 5, 5, 5, 5, 5, 7],
        [1, 7, 5, 5, 5, 5, 5, 5],
    ];
    let is_id = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80;
    let bytes = sql.as_bytes();
    let mut state = 0u8;
    let mut i = 0;
    while i < bytes.len() {
        let token = match bytes[i] {
            b';' => SEMI,
            b' ' | b'\r' | b'\t' | b'\n' | b'\x0c' => WS,
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                match bytes[i + 2..].windows(2).position(|w| w == b"*/") {
                    Some(at) => i += 2 + at + 1,
                    None => return Completeness::Incomplete,
                }
                WS
            }
            b'-' if bytes.get(i + 1) == Some(&b'-') => {
                match bytes[i..].iter().position(|&b| b == b'\n') {
                    Some(at) => i += at,
                    None => return Completeness::Incomplete,
                }
                WS
            }
            open @ (b'[' | b'`' | b'"' | b'\'') => {
                let close = if open == b'[' { b']' } else { open };
                match bytes[i + 1..].iter().position(|&b| b == close) {
                    Some(at) => i += 1 + at,
                    None => return Completeness::Incomplete,
                }
                OTHER
            }
            b if is_id(b) => {
                let len = bytes[i..].iter().take_while(|&&b| is_id(b)).count();
                let word = &bytes[i..i + len];
                i += len - 1;
                let is = |keyword: &str| word.eq_ignore_ascii_case(keyword.as_bytes());
                if is("create") {
                    CREATE
                } else if is("trigger") {
                    TRIGGER
                } else if is("temp") || is("temporary") {
                    TEMP
                } else if is("end") {
                    END
                } else if is("explain") {
                    EXPLAIN
                } else {
                    OTHER
                }
            }
            _ => OTHER,
        };
        state = TRANS[state as usize][token];
        i += 1;
    }
    match state {
        0 => Completeness::Empty,
        1 => Completeness::Complete,
        _ => Completeness::Incomplete,
    }
}
