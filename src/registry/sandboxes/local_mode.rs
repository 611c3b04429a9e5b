//! Local mode at sandbox creation: the one home of how a type's discovery
//! rules are evaluated by the host itself, against a sandbox's working
//! copy, for a type that has rules and no handler.
//!
//! The registry document's "Local-Mode Discovery": the registry keeps
//! placeholders made from the rules (`resources/discovery/placeholders.rs`), and
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
//! **Each rule lists what its type stands for** ([`Wanted`], decided by
//! the caller from the rule's type): directories for a `*/` pattern or a
//! directory type; for the built-in file types what their handler would
//! call them — `fs-symlink` symlinks, `fs-hardlink` regular files with
//! more than one link, `fs-file` regular files with one; for any other
//! type without a handler, regular files. So a directory is claimed by
//! one rule, not by `*/` and `*` both, and a symlink or hard link is not
//! also an `fs-file`. A rule whose type a plugin's handler handles lists
//! every entry its pattern matches ([`Wanted::Any`]) and the caller keeps
//! those that handler's `validate` accepts: the specification delegates
//! the enumeration to the handlers, and only the built-ins' answer is
//! known without asking (it is the one above).
//!
//! **The copy is the agent's.** The walk goes through directory
//! descriptors (`cap-std`), never following a symlink: a symlinked
//! directory is a symlink entry (listed by an `fs-symlink` rule, never by
//! `*/`), not a way out.
//! At most [`MAX_ENTRIES`] entries are listed per rule; the rest is
//! counted as truncated.

use crate::model::{AutoDiscovery, TypeName};
use crate::natural::glob_match;
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

/// What kind of entry a rule lists (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wanted {
    Dirs,
    /// Regular files, whatever their link count.
    Files,
    /// Regular files with one link (`fs-file`).
    SingleFiles,
    /// Regular files with more than one link (`fs-hardlink`).
    HardLinks,
    Symlinks,
    /// Every entry the pattern matches, whatever its kind: a type with a
    /// handler of a plugin's, which the caller then asks about each entry.
    Any,
}

impl Wanted {
    /// Does an entry of type `kind` with `links` links (asked only for a
    /// regular file) belong to this rule?
    fn takes(self, kind: &cap_std::fs::FileType, links: impl FnOnce() -> Option<u64>) -> bool {
        match self {
            Wanted::Dirs => kind.is_dir(),
            Wanted::Symlinks => kind.is_symlink(),
            Wanted::Files => kind.is_file(),
            Wanted::SingleFiles => kind.is_file() && links() == Some(1),
            Wanted::HardLinks => kind.is_file() && links().is_some_and(|n| n > 1),
            Wanted::Any => true,
        }
    }
}

/// What a rule of a type lists, `is_a` telling whether the type is (or
/// inherits) a given one: the built-in directory and file types by what
/// their handler would call an entry, any other type regular files.
pub fn wanted_by(is_a: &dyn Fn(&TypeName) -> bool) -> Wanted {
    let builtins = [
        ("fs-directory", Wanted::Dirs),
        ("fs-symlink", Wanted::Symlinks),
        ("fs-hardlink", Wanted::HardLinks),
        ("fs-file", Wanted::SingleFiles),
    ];
    let builtin = |name: &str| TypeName::parse(name).is_ok_and(|t| is_a(&t));
    let found = builtins.into_iter().find(|(name, _)| builtin(name));
    found.map_or(Wanted::Files, |(_, wanted)| wanted)
}

/// What each of `rules` finds below `workdir`, each rule listing the
/// entries `wanted` says its type stands for. A directory that cannot be
/// read is an error; an entry that vanishes meanwhile is skipped.
pub fn enumerate(
    rules: &AutoDiscovery,
    workdir: &Path,
    wanted: &dyn Fn(&crate::model::DiscoveryRule) -> Wanted,
) -> std::io::Result<Vec<RuleEntries>> {
    // The working copy's root itself is not followed either: an agent
    // that replaced it by a symlink gets it refused, not listed.
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let root = Dir::from_std_file(std::fs::File::from(rustix::fs::open(
        workdir,
        flags,
        Mode::empty(),
    )?));
    let each = rules.rules.iter().enumerate().map(|(n, rule)| {
        let want = if rule.pattern.ends_with('/') {
            Wanted::Dirs
        } else {
            wanted(rule)
        };
        let segments: Vec<&str> = rule
            .pattern
            .trim_end_matches('/')
            .split('/')
            .filter(|s| !s.is_empty() && *s != ".")
            .collect();
        let mut found = Found::default();
        if !segments.is_empty() {
            walk(&root, "", &segments, want, &mut found)?;
        }
        found.entries.sort();
        Ok(RuleEntries {
            rule: n + 1,
            type_name: rule.type_name.clone(),
            pattern: rule.pattern.clone(),
            entries: found.entries,
            truncated: found.truncated,
        })
    });
    each.collect()
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
    want: Wanted,
    found: &mut Found,
) -> std::io::Result<()> {
    let (segment, rest) = (segments[0], &segments[1..]);
    let mut names = Vec::new();
    for entry in dir.entries()? {
        let entry = entry?;
        // The entry itself, never what a symlink points at.
        if let Ok(name) = entry.file_name().into_string()
            && glob_match(segment, &name)
            && let Ok(kind) = entry.file_type()
        {
            names.push((name, kind));
        }
    }
    names.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, kind) in names {
        let path = format!("{prefix}{name}");
        if rest.is_empty() {
            // `st_nlink` is a u32 on some targets, so the conversion stays.
            #[allow(clippy::useless_conversion)]
            let links = || {
                rustix::fs::statat(dir, name.as_str(), rustix::fs::AtFlags::SYMLINK_NOFOLLOW)
                    .ok()
                    .map(|st| u64::from(st.st_nlink))
            };
            if !want.takes(&kind, links) {
                continue;
            }
            if found.entries.len() == MAX_ENTRIES {
                found.truncated = true;
                return Ok(());
            }
            found.entries.push(path);
        } else if kind.is_dir() {
            match open_dir_nofollow(dir, &name) {
                Ok(sub) => walk(&sub, &format!("{path}/"), rest, want, found)?,
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

    fn rule(ty: &str, pattern: &str) -> DiscoveryRule {
        DiscoveryRule {
            type_name: TypeName::parse(ty).unwrap(),
            pattern: pattern.to_owned(),
        }
    }

    fn rules(rules: Vec<DiscoveryRule>) -> AutoDiscovery {
        AutoDiscovery {
            enabled: true,
            rules,
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

        let patterns = ["*/", "*.md", "*/*.md", "docs/*"];
        let fs_files = rules(patterns.iter().map(|p| rule("fs-file", p)).collect());
        let found = enumerate(&fs_files, root, &by_type).unwrap();
        assert_eq!(found[0].entries, ["docs"]);
        assert_eq!(found[1].entries, ["README.md"]);
        // `linked/secret.md` is outside: the symlink is not a directory.
        assert_eq!(found[2].entries, ["docs/guide.md"]);
        // An `fs-file` rule lists files only: not the directory `docs/img`.
        assert_eq!(found[3].entries, ["docs/guide.md"]);
        assert_eq!(found[3].rule, 4);
        assert!(found.iter().all(|r| !r.truncated));
    }

    /// The rule's type by its exact name (the built-in ones here).
    fn by_type(rule: &DiscoveryRule) -> Wanted {
        wanted_by(&|t| *t == rule.type_name)
    }

    /// `fs-directory`'s rules (`*/` fs-directory, `*`
    /// fs-file, `*` fs-symlink, `*` fs-hardlink) each list their own kind
    /// of entry, so none is claimed twice; a type that is none of those
    /// lists regular files for `*`.
    #[test]
    fn each_rule_lists_the_entries_its_type_stands_for_and_no_entry_twice() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("sub")).unwrap();
        std::fs::write(root.join("plain.txt"), "p").unwrap();
        std::fs::write(root.join("shared.txt"), "s").unwrap();
        std::fs::hard_link(root.join("shared.txt"), root.join("shared-too.txt")).unwrap();
        std::os::unix::fs::symlink("sub", root.join("link")).unwrap();
        let rules = rules(vec![
            rule("fs-directory", "*/"),
            rule("fs-file", "*"),
            rule("fs-symlink", "*"),
            rule("fs-hardlink", "*"),
            rule("acme/note", "*"),
        ]);
        let found = enumerate(&rules, root, &by_type).unwrap();
        let lists: Vec<Vec<&str>> = found
            .iter()
            .map(|r| r.entries.iter().map(String::as_str).collect())
            .collect();
        assert_eq!(lists[0], ["sub"]);
        assert_eq!(lists[1], ["plain.txt"]);
        assert_eq!(lists[2], ["link"]);
        assert_eq!(lists[3], ["shared-too.txt", "shared.txt"]);
        assert_eq!(lists[4], ["plain.txt", "shared-too.txt", "shared.txt"]);
    }
}
