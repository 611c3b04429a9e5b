//! The types of one registry snapshot, resolved on demand: what every
//! operation consults for inheritance, subtypes and capabilities.

use super::RegistryError;
use crate::model::{ResolvedType, TypeName, TypeSpec};
use crate::spec;
use crate::store::{Reader, TypeRow};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

#[derive(Debug, Default)]
pub(super) struct Catalogue {
    rows: BTreeMap<TypeName, TypeRow>,
    resolved: RefCell<HashMap<TypeName, Rc<ResolvedType>>>,
}

impl Catalogue {
    pub fn load(reader: &Reader<'_>) -> Result<Self, RegistryError> {
        let rows = reader
            .types()?
            .into_iter()
            .map(|row| (row.spec.name.clone(), row))
            .collect();
        Ok(Self {
            rows,
            resolved: RefCell::default(),
        })
    }

    pub fn rows(&self) -> impl Iterator<Item = &TypeRow> {
        self.rows.values()
    }

    pub fn row(&self, name: &TypeName) -> Option<&TypeRow> {
        self.rows.get(name)
    }

    pub fn contains(&self, name: &TypeName) -> bool {
        self.rows.contains_key(name)
    }

    /// The catalogue with `spec` added or replacing its namesake (a
    /// registration checks the world as it would be).
    pub fn with(&self, spec: TypeSpec, source: &str) -> Self {
        let mut rows = self.rows.clone();
        rows.insert(
            spec.name.clone(),
            TypeRow {
                spec,
                source: source.to_owned(),
                created_at: String::new(),
                updated_at: String::new(),
            },
        );
        Self {
            rows,
            resolved: RefCell::default(),
        }
    }

    /// Look a type up by the text a user gave.
    pub fn find(&self, text: &str) -> Result<Rc<ResolvedType>, RegistryError> {
        let not_found = || RegistryError::TypeNotFound {
            name: text.to_owned(),
            hint: self.hint(text),
        };
        let name = TypeName::parse(text).map_err(|_| not_found())?;
        if !self.contains(&name) {
            return Err(not_found());
        }
        self.resolve(&name)
    }

    /// The resolved type `name` (which must exist).
    pub fn resolve(&self, name: &TypeName) -> Result<Rc<ResolvedType>, RegistryError> {
        if let Some(done) = self.resolved.borrow().get(name) {
            return Ok(done.clone());
        }
        let lookup = |n: &TypeName| self.rows.get(n).map(|r| r.spec.clone());
        let resolved = Rc::new(spec::resolve(name, &lookup)?);
        self.resolved
            .borrow_mut()
            .insert(name.clone(), resolved.clone());
        Ok(resolved)
    }

    /// Types that inherit `name` directly.
    pub fn direct_subtypes(&self, name: &TypeName) -> Vec<TypeName> {
        self.rows
            .values()
            .filter(|r| r.spec.inherits.as_ref() == Some(name))
            .map(|r| r.spec.name.clone())
            .collect()
    }

    /// `name` and every type that inherits it, directly or not.
    pub fn with_subtypes(&self, name: &TypeName) -> Vec<TypeName> {
        let mut out = vec![name.clone()];
        let mut i = 0;
        while i < out.len() {
            for sub in self.direct_subtypes(&out[i]) {
                if !out.contains(&sub) {
                    out.push(sub);
                }
            }
            i += 1;
        }
        out
    }

    /// " (did you mean …?)" for a near miss, or a pointer to the list.
    fn hint(&self, text: &str) -> String {
        let close: Vec<&str> = self
            .rows
            .keys()
            .map(TypeName::as_str)
            .filter(|n| n.contains(text) || text.contains(n) || n.ends_with(&format!("/{text}")))
            .take(3)
            .collect();
        if close.is_empty() {
            "; `agents resource type list` shows the registered types".to_owned()
        } else {
            format!(" (did you mean {}?)", close.join(", "))
        }
    }
}
