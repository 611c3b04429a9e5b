//! Checking a handler's answers before anyone uses them: the one home of
//! what makes an answer acceptable. Bounds come from [`AnswerBounds`];
//! a child's type name must parse as a [`TypeName`] (whether the type
//! exists and may be a child is the registry's rule); a child's location
//! must lie inside the resource's location by `location`'s rule (real
//! directories all the way down, only a last component may be a symlink)
//! — never assumed from `Path::join`. And no answer carries a credential
//! into the registry or onto a terminal: the user information of every
//! URL in a property, an inspection or an error message is removed here
//! ([`crate::credentials`]), so no handler — built-in or plugin — can have
//! one stored, shown or exported.

use super::limits::AnswerBounds;
use super::types::{ClassInfo, Discovered, HandlerError, Inspected, PluginInfo, RawChild, RawInfo};
use super::version::ContractVersion;
use crate::model::{ClassName, HandlerRef, ModuleName, TypeName};
pub use refusal::AnswerRefusal;
use std::path::Path;

/// Accept a `describe` answer: a module name usable in `module:Class`, a
/// version, at least one class, identifiers for class names, no repeats.
pub(crate) fn plugin_info(
    raw: RawInfo,
    contract: ContractVersion,
    b: &AnswerBounds,
) -> Result<PluginInfo, AnswerRefusal> {
    AnswerBounds::check_len("the module name", &raw.module, 256)?;
    let module = ModuleName::parse(&raw.module).map_err(AnswerRefusal::Name)?;
    AnswerBounds::check_len("the version", &raw.version, 64)?;
    if raw.version.trim().is_empty() {
        return Err(AnswerRefusal::EmptyVersion);
    }
    if raw.classes.is_empty() {
        return Err(AnswerRefusal::NoClasses);
    }
    if raw.classes.len() > b.max_classes {
        return Err(AnswerRefusal::TooManyClasses {
            count: raw.classes.len(),
            max: b.max_classes,
        });
    }
    let mut classes: Vec<ClassInfo> = Vec::with_capacity(raw.classes.len());
    for (name, description) in raw.classes {
        AnswerBounds::check_len("a class name", &name, 256)?;
        let name = ClassName::parse(&name).map_err(AnswerRefusal::Name)?;
        HandlerRef::new(module.clone(), name.clone()).map_err(AnswerRefusal::Name)?;
        AnswerBounds::check_len(
            format_args!("the description of {name}"),
            &description,
            b.max_string_bytes,
        )?;
        if classes.iter().any(|c| c.name == name) {
            return Err(AnswerRefusal::ClassTwice(name));
        }
        classes.push(ClassInfo { name, description });
    }
    Ok(PluginInfo {
        module,
        version: raw.version,
        classes,
        contract,
    })
}

/// Accept `validate`'s properties.
pub(crate) fn properties(
    props: Vec<(String, String)>,
    b: &AnswerBounds,
) -> Result<Vec<(String, String)>, AnswerRefusal> {
    b.check_properties("the properties", &props)?;
    Ok(without_credentials(props))
}

/// `text`, its URLs without credentials.
fn scrubbed(text: String) -> String {
    match crate::credentials::without_credentials(&text) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(clean) => clean,
    }
}

/// Every value of `props`, its URLs without credentials.
fn without_credentials(props: Vec<(String, String)>) -> Vec<(String, String)> {
    props.into_iter().map(|(k, v)| (k, scrubbed(v))).collect()
}

/// Accept a content hash: non-empty, at most `max_hash_bytes`.
pub(crate) fn content_hash(hash: String, b: &AnswerBounds) -> Result<String, AnswerRefusal> {
    if hash.is_empty() {
        return Err(AnswerRefusal::EmptyHash);
    }
    AnswerBounds::check_len("the content hash", &hash, b.max_hash_bytes)?;
    Ok(hash)
}

/// Accept `inspect`'s text and fields (bounded, unique keys, as
/// properties are).
pub(crate) fn inspection(
    text: String,
    fields: Vec<(String, String)>,
    b: &AnswerBounds,
) -> Result<Inspected, AnswerRefusal> {
    AnswerBounds::check_len("the inspection text", &text, b.max_text_bytes)?;
    b.check_properties("the inspection fields", &fields)?;
    Ok(Inspected {
        text: scrubbed(text),
        fields: without_credentials(fields),
    })
}

/// Accept a handler error whose message is of sane size.
pub(crate) fn handler_error(
    e: HandlerError,
    b: &AnswerBounds,
) -> Result<HandlerError, AnswerRefusal> {
    let (HandlerError::InvalidArgs(m)
    | HandlerError::NotFound(m)
    | HandlerError::Unsupported(m)
    | HandlerError::Io(m)
    | HandlerError::Failed(m)) = &e;
    AnswerBounds::check_len("the error message", m, b.max_string_bytes)?;
    Ok(match e {
        HandlerError::InvalidArgs(m) => HandlerError::InvalidArgs(scrubbed(m)),
        HandlerError::NotFound(m) => HandlerError::NotFound(scrubbed(m)),
        HandlerError::Unsupported(m) => HandlerError::Unsupported(scrubbed(m)),
        HandlerError::Io(m) => HandlerError::Io(scrubbed(m)),
        HandlerError::Failed(m) => HandlerError::Failed(scrubbed(m)),
    })
}

/// Accept `discover`'s children of a resource at `location`.
pub(crate) fn children(
    raw: Vec<RawChild>,
    location: Option<&str>,
    b: &AnswerBounds,
) -> Result<Vec<Discovered>, AnswerRefusal> {
    if raw.len() > b.max_children {
        return Err(AnswerRefusal::TooManyChildren {
            count: raw.len(),
            max: b.max_children,
        });
    }
    // A child at its parent's own location (another view of the same
    // entry: a linked worktree's `.git` file is both the checkout's `git`
    // child and where that repository's branches are) reaches nothing
    // below it, so the parent need not be a directory for it.
    let below = |c: &RawChild| c.location.is_some() && c.location.as_deref() != location;
    let needs_parent = raw.iter().any(below);
    let parent = match location {
        Some(location) if needs_parent => Some(super::location::real_parent(location)?),
        _ => None,
    };
    raw.into_iter()
        .enumerate()
        .map(|(i, child)| self::child(i, child, location, parent.as_deref(), b))
        .collect()
}

fn child(
    i: usize,
    raw: RawChild,
    own: Option<&str>,
    parent: Option<&Path>,
    b: &AnswerBounds,
) -> Result<Discovered, AnswerRefusal> {
    let what = ChildLabel(i);
    AnswerBounds::check_len(format_args!("{what}'s type name"), &raw.type_name, 128)?;
    let type_name =
        TypeName::parse(&raw.type_name).map_err(|reason| AnswerRefusal::ChildTypeName {
            what: what.to_string(),
            reason,
        })?;
    if let Some(name) = &raw.name {
        AnswerBounds::check_len(format_args!("{what}'s name"), name, b.max_string_bytes)?;
        if name.is_empty() {
            return Err(AnswerRefusal::EmptyChildName {
                what: what.to_string(),
            });
        }
    }
    b.check_properties(what, &raw.properties)?;
    if let Some(hash) = &raw.content_hash {
        AnswerBounds::check_len(
            format_args!("{what}'s content hash"),
            hash,
            b.max_hash_bytes,
        )?;
    }
    let location = match raw.location {
        None => None,
        Some(loc) => {
            AnswerBounds::check_len(format_args!("{what}'s location"), &loc, b.max_string_bytes)?;
            if Some(loc.as_str()) == own {
                Some(loc)
            } else {
                let Some(parent) = parent else {
                    return Err(AnswerRefusal::NoParentLocation {
                        what: what.to_string(),
                        location: loc,
                    });
                };
                Some(super::location::contained(what, &loc, parent)?)
            }
        }
    };
    Ok(Discovered {
        type_name,
        name: raw.name,
        location,
        properties: without_credentials(raw.properties),
        content_hash: raw.content_hash,
    })
}

/// "child N", formatted only when a refusal names it.
#[derive(Clone, Copy)]
struct ChildLabel(usize);

impl std::fmt::Display for ChildLabel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "child {}", self.0)
    }
}

mod bounds;
mod refusal;
#[cfg(test)]
mod tests;
