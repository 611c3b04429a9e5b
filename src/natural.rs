//! Natural order: the one home of how names are sorted for people —
//! digit runs compare as numbers, so `f1, f2, f10` (not `f1, f10, f2`).
//! `resource list`, `resource tree`'s siblings and `resource graph`'s
//! children are in this order. And the one glob names are matched by
//! ([`glob_match`]: `resource list --name`, a sandbox's local-mode
//! patterns).

use std::cmp::Ordering;

/// `a` against `b` in natural order: runs of ASCII digits compare by
/// value (then fewer leading zeros first), everything else by character;
/// texts equal that way fall back to plain order, so the order is total
/// and two different texts never compare equal.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a.as_bytes(), b.as_bytes());
    loop {
        match (x.first(), y.first()) {
            (None, None) => return a.cmp(b),
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(p), Some(q)) if p.is_ascii_digit() && q.is_ascii_digit() => {
                let (dx, rx) = split_digits(x);
                let (dy, ry) = split_digits(y);
                let order = by_value(dx, dy);
                if order != Ordering::Equal {
                    return order;
                }
                (x, y) = (rx, ry);
            }
            (Some(p), Some(q)) => {
                if p != q {
                    // Whole characters: compare the rest as text (UTF-8
                    // byte order is code point order).
                    return x.cmp(y);
                }
                (x, y) = (&x[1..], &y[1..]);
            }
        }
    }
}

/// Optional names in natural order, those without a name last (equal
/// among themselves: the caller breaks the tie, by id).
pub fn names_cmp(a: Option<&str>, b: Option<&str>) -> Ordering {
    match (a, b) {
        (Some(x), Some(y)) => natural_cmp(x, y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

fn split_digits(s: &[u8]) -> (&[u8], &[u8]) {
    let n = s.iter().take_while(|b| b.is_ascii_digit()).count();
    s.split_at(n)
}

/// Two digit runs by value: more significant digits is larger, then digit
/// by digit, then fewer leading zeros first.
fn by_value(a: &[u8], b: &[u8]) -> Ordering {
    let trim = |s: &[u8]| -> usize { s.iter().take_while(|&&c| c == b'0').count() };
    let (za, zb) = (trim(a), trim(b));
    let (va, vb) = (&a[za..], &b[zb..]);
    va.len()
        .cmp(&vb.len())
        .then_with(|| va.cmp(vb))
        .then_with(|| za.cmp(&zb))
}

/// Does `name` match the glob `pattern` whole? `*` is any run of
/// characters, `?` one; `\*`, `\?` and `\\` are those characters
/// themselves (names may hold them); a `\` before anything else is itself.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    #[derive(Clone, Copy, PartialEq)]
    enum Token {
        Any,
        One,
        Char(char),
    }
    let mut p = Vec::with_capacity(pattern.len());
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        p.push(match c {
            '*' => Token::Any,
            '?' => Token::One,
            '\\' => match chars.peek() {
                Some(&next @ ('*' | '?' | '\\')) => {
                    chars.next();
                    Token::Char(next)
                }
                _ => Token::Char('\\'),
            },
            c => Token::Char(c),
        });
    }
    let n: Vec<char> = name.chars().collect();
    // The classic two-pointer match with one backtrack point: linear in
    // practice, never exponential.
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        match p.get(pi) {
            Some(Token::Any) => {
                star = Some((pi, ni));
                pi += 1;
            }
            Some(&t) if t == Token::One || t == Token::Char(n[ni]) => {
                pi += 1;
                ni += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    pi = sp + 1;
                    ni = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|&t| t == Token::Any)
}

#[cfg(test)]
mod tests {
    use super::natural_cmp;

    fn sorted(items: &[&str]) -> Vec<String> {
        let mut v: Vec<String> = items.iter().map(|s| s.to_string()).collect();
        v.sort_by(|a, b| natural_cmp(a, b));
        v
    }

    #[test]
    fn numbers_inside_names_sort_by_value() {
        assert_eq!(
            sorted(&["f10", "f2", "f1", "f100", "e", "g1"]),
            ["e", "f1", "f2", "f10", "f100", "g1"]
        );
        assert_eq!(
            sorted(&["a/test_10.py", "a/test_9.py", "a/test_10b.py"]),
            ["a/test_9.py", "a/test_10.py", "a/test_10b.py"]
        );
    }

    #[test]
    fn leading_zeros_and_long_numbers_keep_a_total_order() {
        assert_eq!(sorted(&["f01", "f1", "f001"]), ["f1", "f01", "f001"]);
        // Longer than any integer type: compared as digit strings.
        assert_eq!(
            sorted(&["n123456789012345678901234567890", "n99"]),
            ["n99", "n123456789012345678901234567890"]
        );
        assert_eq!(natural_cmp("x", "x"), std::cmp::Ordering::Equal);
        assert_ne!(natural_cmp("f1", "f01"), std::cmp::Ordering::Equal);
    }

    #[test]
    fn non_ascii_text_compares_by_character() {
        assert_eq!(sorted(&["é2", "é10", "e3"]), ["e3", "é2", "é10"]);
    }
}
