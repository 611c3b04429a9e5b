//! A resource name: `namespace/name[/more]`, whose characters are shown
//! as they are (no control, invisible or noncharacter code points), with
//! the escape a discovered name part gets and the skeleton two names are
//! compared by to find ones that could be taken for each other.

use super::{NAMESPACE_MAX, NameError, RESOURCE_NAME_MAX, kebab_problem};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::str::FromStr;

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

text_impls!(ResourceName);
