//! Checked names and ids: the one home of what a type name, a resource
//! name and a resource id may look like.
//!
//! * A **type name** is bare for built-in types (`git-checkout`) and
//!   `namespace/name` for custom ones (`myteam/python-package`). Both parts
//!   are lowercase kebab-case so they read the same in YAML, on the command
//!   line and in SQL; the namespace `builtin` is reserved because the
//!   `resource_types.namespace` column uses it for built-in types.
//! * A **resource name** is namespaced, `namespace/name[/more]`, so it can
//!   never be mistaken for a ULID (which has no `/`): `show NAME_OR_ID`
//!   needs no guessing.
//! * A **resource id** is a ULID, stored as its 26-character text.

use crate::text::quote;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use thiserror::Error;

/// The namespace recorded for built-in types; reserved for them.
pub const BUILTIN_NAMESPACE: &str = "builtin";

const TYPE_NAME_MAX: usize = 128;
const NAMESPACE_MAX: usize = 64;
const RESOURCE_NAME_MAX: usize = 256;

/// Why a name or id was declined.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum NameError {
    #[error("type name {} is not valid: {reason}", quote(.name))]
    TypeName { name: String, reason: String },
    #[error("resource name {} is not valid: {reason}", quote(.name))]
    ResourceName { name: String, reason: String },
    #[error("{} is not a resource id (a 26-character ULID): {reason}", quote(.text))]
    ResourceId { text: String, reason: String },
    #[error("{} is not a sandbox id (a 26-character ULID): {reason}", quote(.text))]
    SandboxId { text: String, reason: String },
    #[error(
        "{} is neither a resource id (a 26-character ULID), a resource name \
         (namespace/name, e.g. local/api-repo) nor a path (/…, ./…, ../…, ~/…)",
        quote(.text)
    )]
    ResourceKey { text: String },
    #[error("handler module {} is not valid: {reason}", quote(.name))]
    ModuleName { name: String, reason: String },
    #[error("handler class {} is not valid: {reason}", quote(.name))]
    ClassName { name: String, reason: String },
    #[error("handler {} is not valid: {reason}", quote(.text))]
    HandlerRef { text: String, reason: String },
}

/// Is `part` lowercase kebab-case: `[a-z][a-z0-9]*(-[a-z0-9]+)*`?
/// `None` when it is, else what is wrong. Shared with `spec`, whose
/// argument names (`--config-path`) follow the same rule.
pub(crate) fn kebab_problem(part: &str) -> Option<&'static str> {
    let mut chars = part.chars();
    match chars.next() {
        None => return Some("it has an empty part"),
        Some(c) if !c.is_ascii_lowercase() => {
            return Some("each part must start with a lowercase letter (a-z)");
        }
        Some(_) => {}
    }
    if !part
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Some("only lowercase letters, digits and '-' are allowed");
    }
    if part.ends_with('-') || part.contains("--") {
        return Some("'-' must separate words (no trailing or doubled '-')");
    }
    None
}

/// A checked resource type name: bare (built-in) or `namespace/name`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TypeName(String);

impl TypeName {
    /// Accept `text` as a type name, either form.
    pub fn parse(text: &str) -> Result<Self, NameError> {
        let refuse = |reason: &str| NameError::TypeName {
            name: text.to_owned(),
            reason: reason.to_owned(),
        };
        if text.len() > TYPE_NAME_MAX {
            return Err(refuse(&format!("longer than {TYPE_NAME_MAX} characters")));
        }
        let parts: Vec<&str> = text.split('/').collect();
        if parts.len() > 2 {
            return Err(refuse("a type name has at most one '/' (namespace/name)"));
        }
        for part in &parts {
            if let Some(problem) = kebab_problem(part) {
                return Err(refuse(problem));
            }
        }
        if parts.len() == 2 {
            if parts[0].len() > NAMESPACE_MAX {
                return Err(refuse(&format!(
                    "the namespace is longer than {NAMESPACE_MAX} characters"
                )));
            }
            if parts[0] == BUILTIN_NAMESPACE {
                return Err(refuse(
                    "the namespace \"builtin\" is reserved for built-in types",
                ));
            }
        }
        Ok(Self(text.to_owned()))
    }

    /// Accept `text` only as a custom (namespaced) type name.
    pub fn parse_custom(text: &str) -> Result<Self, NameError> {
        let name = Self::parse(text)?;
        if name.is_builtin_form() {
            return Err(NameError::TypeName {
                name: text.to_owned(),
                reason: "custom types are named namespace/name (e.g. myteam/python-package); \
                         bare names are reserved for built-in types"
                    .to_owned(),
            });
        }
        Ok(name)
    }

    /// True for a bare name, the form reserved for built-in types.
    pub fn is_builtin_form(&self) -> bool {
        !self.0.contains('/')
    }

    /// The namespace: the part before `/`, or [`BUILTIN_NAMESPACE`].
    pub fn namespace(&self) -> &str {
        self.0
            .split_once('/')
            .map_or(BUILTIN_NAMESPACE, |(ns, _)| ns)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Is `c` one a resource name may hold as it is? Not a control character
/// (C0, DEL, C1, the line and paragraph separators), not an invisible one
/// that changes how the rest reads (bidi marks, embeddings, overrides and
/// isolates; zero-width characters), not a noncharacter, and not one of
/// `U+10FF00`–`U+10FFFF` (on the plugin wire they stand for bytes that
/// are not UTF-8). The guest SDK's `name_part` escapes exactly these.
pub(crate) fn shown_in_name(c: char) -> bool {
    let n = u32::from(c);
    let control = c.is_control() || matches!(n, 0x2028 | 0x2029);
    let invisible = matches!(
        n,
        0x061C | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060 | 0x2066..=0x2069 | 0xFEFF
    );
    let noncharacter = matches!(n, 0xFDD0..=0xFDEF) || (n & 0xFFFE) == 0xFFFE;
    !(control || invisible || noncharacter || n >= 0x10_FF00)
}

/// `text` as one discovered name part, the way the guest SDK's
/// `name_part` makes it: as it is, but each character [`shown_in_name`]
/// refuses, `/` and `%` as `%XX` per UTF-8 byte; `.`, `..` and the empty
/// text as `%2E`, `%2E%2E` and `%`. (The host needs it where it renames
/// names made by the old encoding, `store::readable_names`.)
pub(crate) fn escape_name_part(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if shown_in_name(c) && c != '/' && c != '%' {
            out.push(c);
        } else {
            for byte in c.encode_utf8(&mut [0; 4]).bytes() {
                out.push_str(&format!("%{byte:02X}"));
            }
        }
    }
    match out.as_str() {
        "" => "%".to_owned(),
        "." => "%2E".to_owned(),
        ".." => "%2E%2E".to_owned(),
        _ => out,
    }
}

/// A checked resource name: `namespace/name`, optionally with more
/// `/`-separated parts (discovered children are named under their parent,
/// e.g. `local/pkg/src`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ResourceName(String);

impl ResourceName {
    pub fn parse(text: &str) -> Result<Self, NameError> {
        let refuse = |reason: &str| NameError::ResourceName {
            name: text.to_owned(),
            reason: reason.to_owned(),
        };
        if text.len() > RESOURCE_NAME_MAX {
            return Err(refuse(&format!(
                "longer than {RESOURCE_NAME_MAX} characters"
            )));
        }
        let parts: Vec<&str> = text.split('/').collect();
        if parts.len() < 2 {
            return Err(refuse(
                "resource names are namespaced: namespace/name (e.g. local/api-repo)",
            ));
        }
        if parts[0].len() > NAMESPACE_MAX {
            return Err(refuse(&format!(
                "the namespace is longer than {NAMESPACE_MAX} characters"
            )));
        }
        if let Some(problem) = kebab_problem(parts[0]) {
            return Err(refuse(&format!("namespace {:?}: {problem}", parts[0])));
        }
        for part in &parts[1..] {
            if part.is_empty() || *part == "." || *part == ".." {
                return Err(refuse(&format!(
                    "part {part:?}: a part is not empty, '.' or '..' (discovered names \
                     spell those %, %2E and %2E%2E)"
                )));
            }
            if let Some(c) = part.chars().find(|&c| !shown_in_name(c)) {
                return Err(refuse(&format!(
                    "part {part:?} holds U+{:04X}, which cannot be shown or typed (discovered \
                     names spell such characters as %XX, one per byte)",
                    u32::from(c)
                )));
            }
        }
        Ok(Self(text.to_owned()))
    }

    /// Accept `text` as a name a person chooses (`agents resource add
    /// TYPE NAME`): normalised to NFC, then each part below the namespace
    /// made of letters and digits of any script, `-`, `_` and `.` (a
    /// discovered name may hold more: spaces, punctuation, `%XX`).
    ///
    /// A character that shows as nothing is refused — a default-ignorable
    /// code point (U+200B ZERO WIDTH SPACE, U+3164 HANGUL FILLER, U+FFA0
    /// HALFWIDTH HANGUL FILLER, variation selectors…), which would make
    /// `local/ㅤ` or `local/apiﾠrepo` look like another name or none. Whether
    /// it looks like an existing name (a confusable: [`ResourceName::skeleton`])
    /// is the registry's question, which knows the names.
    pub fn parse_chosen(text: &str) -> Result<Self, NameError> {
        use unicode_normalization::UnicodeNormalization;
        let text: String = text.nfc().collect();
        let name = Self::parse(&text)?;
        if let Some(c) = text.chars().find(|&c| invisible(c)) {
            return Err(NameError::ResourceName {
                name: text.clone(),
                reason: format!(
                    "it holds U+{:04X}, a character that shows as nothing (default-ignorable): \
                     a chosen name must read as what it is",
                    u32::from(c)
                ),
            });
        }
        for part in text.split('/').skip(1) {
            if !part
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
            {
                return Err(NameError::ResourceName {
                    name: text.clone(),
                    reason: format!(
                        "part {part:?}: a chosen name uses letters and digits (any script), \
                         '-', '_' and '.'"
                    ),
                });
            }
        }
        Ok(name)
    }

    /// Its confusable skeleton (Unicode TR39): two names with the same
    /// skeleton look alike (`local/аpi` with a Cyrillic а and `local/api`).
    pub fn skeleton(&self) -> String {
        unicode_security::skeleton(&self.0).collect()
    }

    /// Whether `self` is a look-alike of `other` that a person would take
    /// for it: the same skeleton, a different name, and scripts mixed in
    /// one of them or different between them (`local/rn` and `local/m`,
    /// both Latin, are told apart by reading; `local/аpi` is not).
    pub fn confusable_with(&self, other: &ResourceName) -> bool {
        use unicode_security::MixedScript;
        if self == other || self.skeleton() != other.skeleton() {
            return false;
        }
        let (a, b) = (self.0.as_str(), other.0.as_str());
        !a.is_single_script()
            || !b.is_single_script()
            || a.resolve_script_set() != b.resolve_script_set()
    }

    /// The namespace: the part before the first `/`.
    pub fn namespace(&self) -> &str {
        self.0.split_once('/').map_or("", |(ns, _)| ns)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A default-ignorable code point (Unicode's
/// `Default_Ignorable_Code_Point`, DerivedCoreProperties 15.1): it shows
/// as nothing.
fn invisible(c: char) -> bool {
    use unicode_security::GeneralSecurityProfile;
    matches!(
        u32::from(c),
        0x00AD
            | 0x034F
            | 0x061C
            | 0x115F..=0x1160
            | 0x17B4..=0x17B5
            | 0x180B..=0x180F
            | 0x200B..=0x200F
            | 0x202A..=0x202E
            | 0x2060..=0x206F
            | 0x3164
            | 0xFE00..=0xFE0F
            | 0xFEFF
            | 0xFFA0
            | 0xFFF0..=0xFFF8
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0000..=0xE0FFF
    ) || c.identifier_type()
        == Some(unicode_security::general_security_profile::IdentifierType::Default_Ignorable)
}

/// A resource id: a ULID.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ResourceId(ulid::Ulid);

impl ResourceId {
    pub fn parse(text: &str) -> Result<Self, NameError> {
        if text.len() != 26 {
            return Err(NameError::ResourceId {
                text: text.to_owned(),
                reason: format!("it has {} characters", text.len()),
            });
        }
        ulid::Ulid::from_string(text)
            .map(Self)
            .map_err(|e| NameError::ResourceId {
                text: text.to_owned(),
                reason: e.to_string(),
            })
    }

    pub fn from_ulid(ulid: ulid::Ulid) -> Self {
        Self(ulid)
    }

    pub fn ulid(&self) -> ulid::Ulid {
        self.0
    }
}

/// A sandbox id: a ULID.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SandboxId(ulid::Ulid);

impl SandboxId {
    pub fn parse(text: &str) -> Result<Self, NameError> {
        let refuse = |reason: String| NameError::SandboxId {
            text: text.to_owned(),
            reason,
        };
        if text.len() != 26 {
            return Err(refuse(format!("it has {} characters", text.len())));
        }
        ulid::Ulid::from_string(text)
            .map(Self)
            .map_err(|e| refuse(e.to_string()))
    }

    pub fn from_ulid(ulid: ulid::Ulid) -> Self {
        Self(ulid)
    }
}

/// How a resource is named on the command line and in the API: by its
/// id, by its name, or by where it is. Parsed once, where the text comes
/// in; a ULID has no `/`, a name always has one but never starts with it
/// (its namespace comes first), and a location is an absolute path, so no
/// text is two of them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ResourceKey {
    Id(ResourceId),
    Name(ResourceName),
    /// The resource located at `path` (absolute and canonical, as
    /// locations are stored; the CLI resolves `./`, `../` and `~/`): of
    /// several there, the deepest in the DAG (a checkout's `worktree`
    /// before the checkout), or the one of `type_name` or a subtype.
    Location {
        path: PathBuf,
        type_name: Option<TypeName>,
    },
}

impl ResourceKey {
    /// An id, a name, or an absolute path (a location).
    pub fn parse(text: &str) -> Result<Self, NameError> {
        if let Ok(id) = ResourceId::parse(text) {
            return Ok(Self::Id(id));
        }
        if text.starts_with('/') {
            return Ok(Self::at(PathBuf::from(text)));
        }
        ResourceName::parse(text)
            .map(Self::Name)
            .map_err(|_| NameError::ResourceKey {
                text: text.to_owned(),
            })
    }

    /// The resource located at `path` (see [`ResourceKey::Location`]).
    pub fn at(path: impl Into<PathBuf>) -> Self {
        Self::Location {
            path: path.into(),
            type_name: None,
        }
    }

    /// This location key choosing the resource of `type_name` there;
    /// `None` for an id or a name, which name one resource already.
    pub fn of_type(self, type_name: TypeName) -> Option<Self> {
        match self {
            Self::Location { path, .. } => Some(Self::Location {
                path,
                type_name: Some(type_name),
            }),
            _ => None,
        }
    }
}

impl From<ResourceId> for ResourceKey {
    fn from(id: ResourceId) -> Self {
        Self::Id(id)
    }
}

impl From<ResourceName> for ResourceKey {
    fn from(name: ResourceName) -> Self {
        Self::Name(name)
    }
}

impl fmt::Display for ResourceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Id(id) => fmt::Display::fmt(id, f),
            Self::Name(name) => fmt::Display::fmt(name, f),
            Self::Location { path, .. } => fmt::Display::fmt(&path.display(), f),
        }
    }
}

impl FromStr for ResourceKey {
    type Err = NameError;
    fn from_str(s: &str) -> Result<Self, NameError> {
        Self::parse(s)
    }
}

/// How messages refer to a resource: its name if it has one, else its id.
pub fn resource_label(name: Option<&ResourceName>, id: ResourceId) -> String {
    match name {
        Some(name) => name.to_string(),
        None => id.to_string(),
    }
}

macro_rules! text_impls {
    ($t:ty) => {
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }
        impl FromStr for $t {
            type Err = NameError;
            fn from_str(s: &str) -> Result<Self, NameError> {
                Self::parse(s)
            }
        }
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = String::deserialize(d)?;
                Self::parse(&text).map_err(serde::de::Error::custom)
            }
        }
        string_schema!($t);
    };
}
text_impls!(TypeName);
text_impls!(ResourceName);
text_impls!(ResourceId);
text_impls!(SandboxId);

#[cfg(test)]
mod tests;
