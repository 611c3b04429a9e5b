//! Why the host refuses a handler's answer ([`AnswerRefusal`]): a bound
//! it breaks, a name that does not parse, a child located where the rule
//! forbids. The messages name the part of the answer and say what bound
//! or rule it broke (and, for the caps a person may raise, how).

use crate::model::{ClassName, NameError};
use crate::plugin::location::PlacementRefusal;
use crate::text::quote;
use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AnswerRefusal {
    /// A string of the answer is longer than its bound.
    #[error("{what} is {len} bytes, more than the {max} allowed")]
    TooLong {
        what: String,
        len: usize,
        max: usize,
    },
    /// A property list is longer than `max_properties`.
    #[error("{what} has {count} properties, more than the {max} allowed")]
    TooManyProperties {
        what: String,
        count: usize,
        max: usize,
    },
    #[error("{what} has a property with an empty key")]
    EmptyPropertyKey { what: String },
    #[error("{what} repeats property {}", quote(key))]
    RepeatedProperty { what: String, key: String },
    /// `describe`'s module or class name, or the handler reference they
    /// make, does not parse.
    #[error(transparent)]
    Name(NameError),
    #[error("the version is empty")]
    EmptyVersion,
    #[error("it declares no classes")]
    NoClasses,
    #[error("it declares {count} classes, more than the {max} allowed")]
    TooManyClasses { count: usize, max: usize },
    #[error("it declares class {0} twice")]
    ClassTwice(ClassName),
    #[error("the content hash is empty")]
    EmptyHash,
    /// `discover` answered more children than one answer may hold.
    #[error(
        "{count} children, more than the {max} allowed (the cap on one answer's children: raise \
         it with agents --handler-max-children N, or Limits::answer.max_children)"
    )]
    TooManyChildren { count: usize, max: usize },
    /// A child's type name does not parse.
    #[error("{what}: {reason}")]
    ChildTypeName { what: String, reason: NameError },
    #[error("{what} has an empty name")]
    EmptyChildName { what: String },
    /// A child has a location, but the resource it was found below has
    /// none.
    #[error(
        "{what} has location {}, but the resource has none to hold it",
        quote(location)
    )]
    NoParentLocation { what: String, location: String },
    /// A child's location breaks the location rule.
    #[error(transparent)]
    Placement(#[from] PlacementRefusal),
}
