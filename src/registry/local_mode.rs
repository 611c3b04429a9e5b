//! Local mode at sandbox creation: the one home of how a type's discovery
//! rules are evaluated by the host itself, against a sandbox's working
//! copy, for a type that has rules and no handler.
//!
//! The registry document's "Local-Mode Discovery": the registry keeps
//! placeholders made from the rules (`register/placeholders.rs`), and
//! "actual file enumeration is delegated … at sandbox creation time".
//! With no handler to delegate to, the host enumerates the sandbox's copy
//! by the rules' patterns and hands the result out with the sandbox
//! (`sandbox create` and `sandbox show`) — what the rules find in the copy
//! the agent works on, not rows: the copy's entries are the agent's, and
//! the registry's placeholders stay what they stand for.
//!
//! **Patterns** are globs relative to the location, segment by segment
//! (`docs/*.md`): `*` any run of characters and `?` one character within
//! a segment (a leading `.` matched like any other character, as the
//! built-in `*` rules match dotfiles); a trailing `/` keeps directories
//! only. `**` and character classes are not globs here: they match
//! themselves. A pattern that is a handler's selector (`refs/heads/*`)
//! finds what a directory of that shape holds, usually nothing.
//!
//! **The copy is the agent's.** The walk goes through directory
//! descriptors (`cap-std`), never following a symlink: a symlinked
//! directory is an entry (matched by `*`, not by `*/`), not a way out.
//! At most [`MAX_ENTRIES`] entries are listed per rule; the rest is
//! counted as truncated.

use crate::model::{AutoDiscovery, TypeName};
use cap_std::fs::Dir;
use serde::Serialize;
use std::path::Path;

/// Entries listed per rule, at most.
pub const MAX_ENTRIES: usize = 10_000;

/// What one rule finds in a working copy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RuleEntries {
    /// The rule's position, from 1 (as its placeholder `rule-<n>`).
    pub rule: usize,
    #[serde(rename = "type")]
    pub type_name: TypeName,
    pub pattern: String,
    /// Paths relative to the working copy, `/`-separated, sorted.
    pub entries: Vec<String>,
    /// More matched than [`MAX_ENTRIES`].
    pub truncated: bool,
}

/// What each of `rules` finds below `workdir`. A directory that cannot
/// be read is an error; an entry that vanishes meanwhile is skipped.
pub fn enumerate(rules: &AutoDiscovery, workdir: &Path) -> std::io::Result<Vec<RuleEntries>> {
    // The working copy's root itself is not followed either: an agent
    // that replaced it by a symlink gets it refused, not listed.
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let root = Dir::from_std_file(std::fs::File::from(rustix::fs::open(
        workdir,
        flags,
        Mode::empty(),
    )?));
    let mut out = Vec::new();
    for (n, rule) in rules.rules.iter().enumerate() {
        let dirs_only = rule.pattern.ends_with('/');
        let segments: Vec<&str> = rule
            .pattern
            .trim_end_matches('/')
            .split('/')
            .filter(|s| !s.is_empty() && *s != ".")
            .collect();
        let mut found = Found::default();
        if !segments.is_empty() {
            walk(&root, "", &segments, dirs_only, &mut found)?;
        }
        found.entries.sort();
        out.push(RuleEntries {
            rule: n + 1,
            type_name: rule.type_name.clone(),
            pattern: rule.pattern.clone(),
            entries: found.entries,
            truncated: found.truncated,
        });
    }
    Ok(out)
}

#[derive(Default)]
struct Found {
    entries: Vec<String>,
    truncated: bool,
}

fn walk(
    dir: &Dir,
    prefix: &str,
    segments: &[&str],
    dirs_only: bool,
    found: &mut Found,
) -> std::io::Result<()> {
    let (segment, rest) = (segments[0], &segments[1..]);
    let mut names = Vec::new();
    for entry in dir.entries()? {
        let entry = entry?;
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if !glob_match(segment, &name) {
            continue;
        }
        // The entry itself, never what a symlink points at.
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        names.push((name, kind.is_dir()));
    }
    names.sort();
    for (name, is_dir) in names {
        let path = format!("{prefix}{name}");
        if rest.is_empty() {
            if dirs_only && !is_dir {
                continue;
            }
            if found.entries.len() == MAX_ENTRIES {
                found.truncated = true;
                return Ok(());
            }
            found.entries.push(path);
        } else if is_dir {
            match open_dir_nofollow(dir, &name) {
                Ok(sub) => walk(&sub, &format!("{path}/"), rest, dirs_only, found)?,
                // Gone, or swapped for something else, meanwhile.
                Err(_) => continue,
            }
        }
    }
    Ok(())
}

/// The directory `name` in `dir`, refused if it is a symlink (now).
fn open_dir_nofollow(dir: &Dir, name: &str) -> std::io::Result<Dir> {
    let start = dir.try_clone()?.into_std_file();
    cap_primitives::fs::open_dir_nofollow(&start, Path::new(name)).map(Dir::from_std_file)
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
    use super::*;
    use crate::model::DiscoveryRule;

    #[test]
    fn globs_match_within_one_segment() {
        assert!(glob_match("*", "a.md"));
        assert!(glob_match("*", ".hidden"));
        assert!(glob_match("*.md", "guide.md"));
        assert!(!glob_match("*.md", "guide.mdx"));
        assert!(glob_match("a?c", "abc"));
        assert!(!glob_match("a?c", "ac"));
        assert!(glob_match("*a*b*", "xxaxxbxx"));
        assert!(!glob_match("*a*b*", "xxbxxaxx"));
        assert!(glob_match(".git", ".git"));
        assert!(!glob_match("", "x"));
    }

    #[test]
    fn a_backslash_makes_a_wildcard_itself() {
        assert!(glob_match("notes\\*", "notes*"));
        assert!(!glob_match("notes\\*", "notes.txt"));
        assert!(glob_match("why\\?", "why?"));
        assert!(!glob_match("why\\?", "whyx"));
        assert!(glob_match("*\\**", "a*b"));
        assert!(!glob_match("*\\**", "ab"));
        assert!(glob_match("back\\\\slash", "back\\slash"));
        // Before anything else a backslash is itself.
        assert!(glob_match("a\\b", "a\\b"));
        assert!(glob_match("trailing\\", "trailing\\"));
    }

    fn rules(patterns: &[&str]) -> AutoDiscovery {
        AutoDiscovery {
            enabled: true,
            rules: patterns
                .iter()
                .map(|p| DiscoveryRule {
                    type_name: TypeName::parse("fs-file").unwrap(),
                    pattern: (*p).to_owned(),
                })
                .collect(),
        }
    }

    #[test]
    fn rules_find_entries_segment_by_segment_without_following_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("docs/img")).unwrap();
        std::fs::write(root.join("docs/guide.md"), "g").unwrap();
        std::fs::write(root.join("README.md"), "r").unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.md"), "s").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("linked")).unwrap();

        let found = enumerate(&rules(&["*/", "*.md", "*/*.md", "docs/*"]), root).unwrap();
        assert_eq!(found[0].entries, ["docs"]);
        assert_eq!(found[1].entries, ["README.md"]);
        // `linked/secret.md` is outside: the symlink is not a directory.
        assert_eq!(found[2].entries, ["docs/guide.md"]);
        assert_eq!(found[3].entries, ["docs/guide.md", "docs/img"]);
        assert_eq!(found[3].rule, 4);
        assert!(found.iter().all(|r| !r.truncated));
    }
}
