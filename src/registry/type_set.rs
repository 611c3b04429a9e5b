//! The types of one registry snapshot, resolved on demand: what every
//! operation consults for inheritance, subtypes and capabilities.
//!
//! **Resolved once, kept while current.** A [`TypeSet`] is loaded from the
//! type rows and resolves each type at most once (results are kept). A
//! registry keeps its last set in a [`TypeCache`] together with the
//! store's *types generation* — a counter the schema's triggers move on
//! every type write, by any process — so an operation pays one small read
//! to learn that the types it resolved before are still the types in
//! effect, and reloads them only when some type changed.

use crate::model::{ResolvedType, TypeName, TypeSpec};
use crate::registry::RegistryError;
use crate::registry::TypesError;
use crate::store::{Reader, TypeOrigin, TypeRow};
use crate::typespec;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};

#[derive(Debug, Default)]
pub(crate) struct TypeSet {
    rows: BTreeMap<TypeName, TypeRow>,
    resolved: Mutex<HashMap<TypeName, Arc<ResolvedType>>>,
}

impl TypeSet {
    pub fn load(reader: &Reader<'_>) -> Result<Self, RegistryError> {
        Ok(Self::default().with_rows(reader.types()?))
    }

    pub fn rows(&self) -> impl Iterator<Item = &TypeRow> {
        self.rows.values()
    }

    fn specs(&self) -> impl Iterator<Item = &TypeSpec> {
        self.rows.values().map(|r| &r.spec)
    }

    pub fn row(&self, name: &TypeName) -> Option<&TypeRow> {
        self.rows.get(name)
    }

    pub fn contains(&self, name: &TypeName) -> bool {
        self.rows.contains_key(name)
    }

    /// The set with `spec` added or replacing its namesake (a
    /// registration checks the world as it would be).
    pub fn with(&self, spec: TypeSpec, source: &str) -> Self {
        let origin = TypeOrigin {
            source: source.to_owned(),
            created_at: String::new(),
            updated_at: String::new(),
        };
        self.with_rows([TypeRow { spec, origin }])
    }

    /// The set with every row of `rows` added or replacing its namesake
    /// (an import checks the world with all its types at once).
    pub fn with_rows(&self, rows: impl IntoIterator<Item = TypeRow>) -> Self {
        let mut all = self.rows.clone();
        all.extend(rows.into_iter().map(|row| (row.spec.name.clone(), row)));
        Self {
            rows: all,
            resolved: Mutex::default(),
        }
    }

    /// Look a type up by the text a user gave.
    pub fn find(&self, text: &str) -> Result<Arc<ResolvedType>, RegistryError> {
        let not_found = || {
            TypesError::TypeNotFound {
                name: text.to_owned(),
                suggestions: self.near(text),
            }
            .into()
        };
        let name = TypeName::parse(text).map_err(|_| not_found())?;
        if !self.contains(&name) {
            return Err(not_found());
        }
        self.resolve(&name)
    }

    /// The resolved type `name` (which must exist).
    pub fn resolve(&self, name: &TypeName) -> Result<Arc<ResolvedType>, RegistryError> {
        let mut resolved = self.resolved.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(done) = resolved.get(name) {
            return Ok(done.clone());
        }
        let lookup = |n: &TypeName| self.rows.get(n).map(|r| r.spec.clone());
        let ty = Arc::new(typespec::resolve(name, &lookup)?);
        resolved.insert(name.clone(), ty.clone());
        Ok(ty)
    }

    /// Rule 5: refuse removing `name` while a type inherits it.
    pub fn check_removable(&self, name: &TypeName) -> Result<(), RegistryError> {
        Ok(typespec::check_removable(name, self.specs())?)
    }

    /// `name` and every type that inherits it, directly or not.
    pub fn with_subtypes(&self, name: &TypeName) -> Vec<TypeName> {
        let mut out = vec![name.clone()];
        let mut i = 0;
        while i < out.len() {
            // Types that inherit it directly (inheritance rule 5's question).
            for sub in typespec::subtypes_of(&out[i], self.specs()) {
                if !out.contains(&sub) {
                    out.push(sub);
                }
            }
            i += 1;
        }
        out
    }

    /// Types that name `name` in a field (other than themselves).
    pub fn referrers(&self, name: &TypeName) -> Vec<TypeName> {
        self.specs()
            .filter(|s| &s.name != name)
            .filter(|s| typespec::references(s).iter().any(|(_, n)| n == name))
            .map(|s| s.name.clone())
            .collect()
    }

    /// Up to three registered names close to `text`.
    fn near(&self, text: &str) -> Vec<TypeName> {
        self.rows
            .keys()
            .filter(|n| {
                let n = n.as_str();
                n.contains(text) || text.contains(n) || n.ends_with(&format!("/{text}"))
            })
            .take(3)
            .cloned()
            .collect()
    }
}

/// The last [`TypeSet`] a registry loaded, and the types generation it
/// was loaded at.
#[derive(Debug, Default)]
pub(crate) struct TypeCache {
    current: RefCell<Option<(i64, Arc<TypeSet>)>>,
    /// How many sets were loaded from the type table.
    loads: Cell<u64>,
}

impl TypeCache {
    /// The types in effect in `reader`'s snapshot: the cached set when no
    /// type changed since it was loaded, else a fresh one (kept).
    pub fn get(&self, reader: &Reader<'_>) -> Result<Arc<TypeSet>, RegistryError> {
        let generation = reader.types_generation()?;
        if let Some((cached, set)) = &*self.current.borrow()
            && *cached == generation
        {
            return Ok(set.clone());
        }
        let set = Arc::new(TypeSet::load(reader)?);
        self.loads.set(self.loads.get() + 1);
        *self.current.borrow_mut() = Some((generation, set.clone()));
        Ok(set)
    }

    /// How many times the type table was read into a set.
    #[cfg(test)]
    pub fn loads(&self) -> u64 {
        self.loads.get()
    }
}
