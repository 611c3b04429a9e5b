//! Random tables of declared specs: `p/t0`, `p/t1`, … each with a random
//! parent (often the type before it, for long chains; any earlier type,
//! for trees; any type at all, for cycles; or one that does not exist),
//! random scalars, random collections and random `_replace` flags.
//!
//! Every spec is one the reader accepts, except a type that happens to
//! inherit itself: roots declare a kind and no `_replace`, a type declared
//! `virtual` says nothing its kind forbids (contradictions that only
//! inheritance creates are kept: the resolver must refuse those). The
//! types a spec lists (`parent_types`, `child_types`, discovery rules) are
//! built-in roots or the first few table types, so that a rule's type may
//! be a subtype of a listed child type — or stop being one when its
//! `inherits` changes; handlers are real built-in ones.

use super::*;
use crate::model::{
    AutoDiscovery, DiscoveryRule, HandlerRef, ReplaceFlags, TypeArgument, TypeCapabilitiesDecl,
};
use proptest::sample::select;

const ARG_NAMES: [&str; 4] = ["alpha", "beta", "gamma", "delta"];
/// Types a list or a discovery rule may name: built-in types that
/// inherit nothing, and table types (which a registry may not hold yet).
const NAMED: [&str; 10] = [
    "fs-directory",
    "fs-file",
    "git",
    "container-instance",
    "p/t0",
    "p/t1",
    "p/t2",
    "p/t3",
    "p/t4",
    "p/t5",
];
/// Real built-in handlers, so that a registry accepts them.
const HANDLERS: [&str; 2] = [
    "cleveragents.resource.handlers.git:GitCheckoutHandler",
    "cleveragents.resource.handlers.git:GitRepositoryHandler",
];

/// The name of the `i`th type of a table.
pub(super) fn nth(i: usize) -> TypeName {
    tn(&format!("p/t{i}"))
}

/// How a generated type names its parent, before the table's size is known.
#[derive(Debug, Clone)]
enum ParentPick {
    Root,
    /// The type just before it in the table: long chains.
    Previous,
    /// Any type earlier in the table: trees.
    Earlier(Index),
    /// Any type in the table, itself included: cycles.
    Any(Index),
    /// A type that is not in the table.
    Missing,
}

fn parent_pick() -> impl Strategy<Value = ParentPick> {
    prop_oneof![
        2 => Just(ParentPick::Root),
        10 => Just(ParentPick::Previous),
        6 => any::<Index>().prop_map(ParentPick::Earlier),
        1 => any::<Index>().prop_map(ParentPick::Any),
        1 => Just(ParentPick::Missing),
    ]
}

/// Everything a generated spec declares but its name and parent.
#[derive(Debug, Clone)]
struct Body {
    description: Option<String>,
    kind: Option<ResourceKind>,
    sandbox_strategy: Option<SandboxStrategy>,
    user_addable: Option<bool>,
    capabilities: TypeCapabilitiesDecl,
    handler: Option<HandlerRef>,
    auto_discovery: Option<AutoDiscovery>,
    cli_args: Vec<TypeArgument>,
    parent_types: Vec<TypeName>,
    child_types: Vec<TypeName>,
    replace: ReplaceFlags,
}

fn arg() -> impl Strategy<Value = TypeArgument> {
    let types = [
        ArgType::String,
        ArgType::Path,
        ArgType::Integer,
        ArgType::Boolean,
    ];
    (
        select(ARG_NAMES.to_vec()),
        select(types.to_vec()),
        any::<bool>(),
        select(["", "one", "two"].to_vec()),
    )
        .prop_map(|(name, arg_type, required, description)| TypeArgument {
            name: name.to_owned(),
            arg_type,
            required,
            description: description.to_owned(),
            default: None,
            choices: Vec::new(),
        })
}

/// Up to three distinct names of [`NAMED`], in random order.
fn listed() -> impl Strategy<Value = Vec<TypeName>> {
    distinct(&NAMED, 0..=3)
}

/// The types of one or two discovery rules: table types, so that the
/// lineage the coherence check follows is one the table makes.
fn discovered() -> impl Strategy<Value = Vec<TypeName>> {
    distinct(&NAMED[4..], 1..=2)
}

fn distinct(
    from: &[&'static str],
    len: std::ops::RangeInclusive<usize>,
) -> impl Strategy<Value = Vec<TypeName>> {
    prop::collection::vec(select(from.to_vec()), len).prop_map(|mut names| {
        let mut seen = Vec::new();
        names.retain(|n| {
            !seen.contains(n) && {
                seen.push(*n);
                true
            }
        });
        names.into_iter().map(tn).collect()
    })
}

fn body() -> impl Strategy<Value = Body> {
    let flag = || prop::option::of(any::<bool>());
    let scalars = (
        prop::option::of(select(["", "first", "second"].to_vec()).prop_map(str::to_owned)),
        prop::option::weighted(
            0.6,
            prop_oneof![3 => Just(ResourceKind::Physical), 1 => Just(ResourceKind::Virtual)],
        ),
        prop::option::of(select(SandboxStrategy::ALL.to_vec())),
        flag(),
        (flag(), flag(), flag(), flag()),
        prop::option::of(select(HANDLERS.to_vec())),
        prop::option::of((any::<bool>(), discovered())),
    );
    let replace = || prop::bool::weighted(0.25);
    let collections = (
        prop::collection::vec(arg(), 0..=4),
        listed(),
        listed(),
        (replace(), replace(), replace()),
    );
    (scalars, collections).prop_map(|(scalars, collections)| {
        let (description, kind, sandbox_strategy, user_addable, caps, handler, discovery) = scalars;
        let (mut cli_args, parent_types, child_types, (args_r, parents_r, children_r)) =
            collections;
        let mut seen: Vec<String> = Vec::new();
        cli_args.retain(|a| {
            !seen.contains(&a.name) && {
                seen.push(a.name.clone());
                true
            }
        });
        Body {
            description,
            kind,
            sandbox_strategy,
            user_addable,
            capabilities: TypeCapabilitiesDecl {
                read: caps.0,
                write: caps.1,
                sandbox: caps.2,
                checkpoint: caps.3,
            },
            handler: handler.map(|h| HandlerRef::parse(h).unwrap()),
            auto_discovery: discovery.map(|(enabled, types)| AutoDiscovery {
                enabled,
                rules: types
                    .into_iter()
                    .map(|type_name| DiscoveryRule {
                        type_name,
                        pattern: "*".to_owned(),
                    })
                    .collect(),
            }),
            cli_args,
            parent_types,
            child_types,
            replace: ReplaceFlags {
                cli_args: args_r,
                parent_types: parents_r,
                child_types: children_r,
            },
        }
    })
}

impl Body {
    /// The spec of the `i`th type, made one the reader accepts: a root
    /// declares a kind and no `_replace`; a type declared `virtual` says
    /// nothing its kind forbids (an inherited contradiction is left for the
    /// resolver). Its lists and rules name only earlier table types, which
    /// a registry filled in table order holds.
    fn into_spec(mut self, i: usize, inherits: Option<TypeName>) -> TypeSpec {
        let earlier = |n: &TypeName| n.is_builtin_form() || (0..i).any(|j| nth(j) == *n);
        self.parent_types.retain(earlier);
        self.child_types.retain(earlier);
        if let Some(discovery) = &mut self.auto_discovery {
            discovery.rules.retain(|r| earlier(&r.type_name));
        }
        if inherits.is_none() {
            self.kind = self.kind.or(Some(ResourceKind::Physical));
            self.replace = ReplaceFlags::default();
        }
        if self.kind == Some(ResourceKind::Virtual) {
            self.user_addable = self.user_addable.map(|_| false);
            self.sandbox_strategy = self.sandbox_strategy.map(|_| SandboxStrategy::None);
            for arg in &mut self.cli_args {
                if arg.arg_type == ArgType::Path {
                    arg.arg_type = ArgType::String;
                }
            }
        }
        TypeSpec {
            name: nth(i),
            inherits,
            description: self.description,
            kind: self.kind,
            sandbox_strategy: self.sandbox_strategy,
            user_addable: self.user_addable,
            built_in: false,
            cli_args: self.cli_args,
            parent_types: self.parent_types,
            child_types: self.child_types,
            replace: self.replace,
            handler: self.handler,
            capabilities: self.capabilities,
            auto_discovery: self.auto_discovery,
            equivalence: None,
        }
    }
}

/// A table of `n` types `p/t0` … named in order, each with a random parent.
pub(super) fn table_of(n: usize) -> impl Strategy<Value = Vec<TypeSpec>> {
    prop::collection::vec((parent_pick(), body()), n).prop_map(move |picks| {
        picks
            .into_iter()
            .enumerate()
            .map(|(i, (pick, body))| {
                let inherits = match pick {
                    ParentPick::Root => None,
                    ParentPick::Previous | ParentPick::Earlier(_) if i == 0 => None,
                    ParentPick::Previous => Some(nth(i - 1)),
                    ParentPick::Earlier(ix) => Some(nth(ix.index(i))),
                    ParentPick::Any(ix) => Some(nth(ix.index(n))),
                    ParentPick::Missing => Some(tn("p/missing")),
                };
                body.into_spec(i, inherits)
            })
            .collect()
    })
}

pub(super) fn table() -> impl Strategy<Value = Vec<TypeSpec>> {
    (1..=MAX_TYPES).prop_flat_map(table_of)
}
