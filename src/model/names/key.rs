//! How a resource is named where text comes in — by id, by name or by
//! where it is ([`ResourceKey`]) — and how messages name it
//! ([`resource_label`]).

use super::NameError;
use super::ids::ResourceId;
use super::resource_name::ResourceName;
use super::type_name::TypeName;
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

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
