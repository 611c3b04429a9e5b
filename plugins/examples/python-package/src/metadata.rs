//! Reading a Python package's name and version from its metadata files,
//! without a TOML or Python parser: the few line shapes real packages use.
//!
//! * `pyproject.toml`: `name = "…"` / `version = "…"` inside `[project]`
//!   (PEP 621). A `dynamic` version is simply absent.
//! * `setup.cfg`: `name = …` / `version = …` inside `[metadata]`.
//! * `setup.py`: the first `name=` / `version=` keyword given a string
//!   literal.
//!
//! What cannot be read is left out, never guessed.

/// The metadata files, in the order they are consulted and hashed.
pub const METADATA_FILES: [&str; 3] = ["pyproject.toml", "setup.cfg", "setup.py"];

/// What the metadata says.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Metadata {
    pub name: Option<String>,
    pub version: Option<String>,
}

impl Metadata {
    /// Fill what is still missing from `other`.
    pub fn or(self, other: Metadata) -> Metadata {
        Metadata {
            name: self.name.or(other.name),
            version: self.version.or(other.version),
        }
    }
}

/// Read metadata from the text of one of [`METADATA_FILES`].
pub fn parse(file_name: &str, text: &str) -> Metadata {
    match file_name {
        "pyproject.toml" => from_ini_like(text, "[project]", true),
        "setup.cfg" => from_ini_like(text, "[metadata]", false),
        "setup.py" => from_setup_py(text),
        _ => Metadata::default(),
    }
}

/// `key = value` lines inside one `[section]`; TOML values are quoted.
fn from_ini_like(text: &str, section: &str, quoted: bool) -> Metadata {
    let mut meta = Metadata::default();
    let mut inside = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == section;
            continue;
        }
        if !inside {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let value = value.trim();
        let value = if quoted {
            match unquote(value) {
                Some(v) => v,
                None => continue,
            }
        } else {
            value.to_owned()
        };
        match key.trim() {
            "name" if meta.name.is_none() => meta.name = Some(value),
            "version" if meta.version.is_none() => meta.version = Some(value),
            _ => {}
        }
    }
    meta
}

/// The first `name=` / `version=` keyword arguments given a string literal.
fn from_setup_py(text: &str) -> Metadata {
    Metadata {
        name: keyword_literal(text, "name"),
        version: keyword_literal(text, "version"),
    }
}

fn keyword_literal(text: &str, keyword: &str) -> Option<String> {
    let mut rest = text;
    while let Some(at) = rest.find(keyword) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + keyword.len()..].trim_start();
        rest = &rest[at + keyword.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        if let Some(value) = after.strip_prefix('=')
            && !value.starts_with('=')
            && let Some(literal) = unquote_prefix(value.trim_start())
        {
            return Some(literal);
        }
    }
    None
}

/// `"text"` or `'text'` (the whole value, optionally followed by a comment).
fn unquote(value: &str) -> Option<String> {
    unquote_prefix(value)
}

/// The string literal `value` starts with.
fn unquote_prefix(value: &str) -> Option<String> {
    let quote = value.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let body = &value[1..];
    let end = body.find(quote)?;
    Some(body[..end].to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pyproject_name_and_version_come_from_the_project_table() {
        let text = "[build-system]\nrequires = [\"x\"]\nname = \"not-this\"\n\n\
                    [project]\nname = \"demo\"\nversion = '1.2.3' # pinned\n\n[tool.x]\nversion = \"9\"\n";
        let meta = parse("pyproject.toml", text);
        assert_eq!(meta.name.as_deref(), Some("demo"));
        assert_eq!(meta.version.as_deref(), Some("1.2.3"));
    }

    #[test]
    fn a_dynamic_version_is_left_out() {
        let meta = parse(
            "pyproject.toml",
            "[project]\nname = \"demo\"\ndynamic = [\"version\"]\n",
        );
        assert_eq!(meta.version, None);
    }

    #[test]
    fn setup_py_keywords_give_name_and_version() {
        let text = "from setuptools import setup\nsetup(\n    name = \"legacy\",\n    \
                    package_name='no',\n    version='0.9',\n)\n";
        let meta = parse("setup.py", text);
        assert_eq!(meta.name.as_deref(), Some("legacy"));
        assert_eq!(meta.version.as_deref(), Some("0.9"));
    }

    #[test]
    fn setup_cfg_values_are_unquoted() {
        let meta = parse("setup.cfg", "[metadata]\nname = cfgpkg\nversion = 2.0\n");
        assert_eq!(meta.name.as_deref(), Some("cfgpkg"));
        assert_eq!(meta.version.as_deref(), Some("2.0"));
    }
}
