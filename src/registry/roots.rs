//! Where a registry given roots ([`Roots`], `Options::roots`) may act,
//! and the checks the operations make: the one home of "is this location
//! inside?" for the registry. A registry without roots (a person at the
//! CLI) acts wherever its user can, and every check here is free.
//!
//! **What is checked.** Every operation that takes a path or acts on a
//! resource's location on disk: registration (its location and every
//! other path argument), `inspect` (the location, and the file asked for
//! — opened below the location and judged by the kernel's own path of the
//! opened descriptor, so a symlink inside pointing out does not pass),
//! discovery and refresh (a named resource outside is refused; "all"
//! means all inside), watch, sandboxes (create, and every operation on
//! one of a resource outside), removal and links of a resource outside,
//! containers, import (every location in the document), type and plugin
//! files. **What is not:** reads of the rows — list, show, tree, graph,
//! a sandbox's list and show, environment resolution — so what a person
//! registered elsewhere stays visible; and resources with no location.

use super::{Registry, RegistryError};
use crate::roots::Roots;
use crate::store::ResourceRow;
use std::os::fd::AsFd;
use std::path::{Component, Path};

impl Registry {
    /// The refusal for `path`, outside the roots.
    fn outside(&self, path: &Path, action: &'static str) -> RegistryError {
        RegistryError::OutsideRoots {
            path: path.to_owned(),
            action,
            roots: self.roots.clone().unwrap_or_default(),
        }
    }

    /// Refuse `action` on the location `path` (real, absolute: a stored
    /// location or a canonical argument) when it is outside the roots.
    pub(super) fn check_in_roots(
        &self,
        path: &Path,
        action: &'static str,
    ) -> Result<(), RegistryError> {
        match &self.roots {
            Some(roots) if !roots.contains_location(path) => Err(self.outside(path, action)),
            _ => Ok(()),
        }
    }

    /// Whether a row's location (none: nothing on disk) is inside.
    pub(super) fn row_in_roots(&self, row: &ResourceRow) -> bool {
        match (&self.roots, &row.location) {
            (Some(roots), Some(location)) => roots.contains_location(Path::new(location)),
            _ => true,
        }
    }

    /// [`Registry::check_in_roots`] for a resource's location, if it has
    /// one (an operation on a sandbox is one on its resource's location:
    /// the original it was made from and is applied to).
    pub(in crate::registry) fn check_location_in_roots(
        &self,
        location: Option<&str>,
        action: &'static str,
    ) -> Result<(), RegistryError> {
        location.map_or(Ok(()), |l| self.check_in_roots(Path::new(l), action))
    }

    /// A registration's location and every other path argument (each
    /// canonical by now).
    pub(super) fn check_args_in_roots(
        &self,
        ty: &crate::model::ResolvedType,
        checked: &super::args::CheckedArgs,
    ) -> Result<(), RegistryError> {
        if self.roots.is_none() {
            return Ok(());
        }
        if let Some(location) = &checked.location {
            self.check_in_roots(Path::new(location), "registration")?;
        }
        for arg in ty.cli_args.iter().map(|a| &a.value) {
            if arg.arg_type == crate::model::ArgType::Path
                && let Some(serde_json::Value::String(path)) = checked.properties.get(&arg.name)
            {
                self.check_in_roots(Path::new(path), "registration")?;
            }
        }
        Ok(())
    }

    /// Refuse `action` on the file `path` names unless the file it opens
    /// is inside, by the opened descriptor (`O_PATH`: nothing is read, a
    /// named pipe does not block). A path that opens nothing passes: the
    /// operation's own read refuses it.
    pub(super) fn check_read_in_roots(
        &self,
        path: &Path,
        action: &'static str,
    ) -> Result<(), RegistryError> {
        let Some(roots) = &self.roots else {
            return Ok(());
        };
        let flags = rustix::fs::OFlags::PATH | rustix::fs::OFlags::CLOEXEC;
        let Ok(fd) = rustix::fs::open(path, flags, rustix::fs::Mode::empty()) else {
            return Ok(());
        };
        self.check_opened(roots, fd.as_fd(), path, action)
    }

    /// `inspect --file FILE` below the directory `location`: the file is
    /// opened below the location's own descriptor (symlinks followed, as
    /// a handler's open would be asked to) and judged where it really is.
    pub(super) fn check_inspected_file(
        &self,
        location: &Path,
        file: &str,
    ) -> Result<(), RegistryError> {
        let Some(roots) = &self.roots else {
            return Ok(());
        };
        let flags = rustix::fs::OFlags::PATH | rustix::fs::OFlags::CLOEXEC;
        let Ok(dir) = rustix::fs::open(
            location,
            flags | rustix::fs::OFlags::DIRECTORY,
            rustix::fs::Mode::empty(),
        ) else {
            // A file location is seen alone by its handler (a one-entry
            // view): nothing below it to reach.
            return Ok(());
        };
        self.check_opened(roots, dir.as_fd(), location, "inspect")?;
        let relative: std::path::PathBuf = Path::new(file)
            .components()
            .filter(|c| matches!(c, Component::Normal(_)))
            .collect();
        match rustix::fs::openat(&dir, &relative, flags, rustix::fs::Mode::empty()) {
            Ok(fd) => self.check_opened(roots, fd.as_fd(), &location.join(&relative), "inspect"),
            // Missing (or a loop): the handler answers what is there.
            Err(_) => Ok(()),
        }
    }

    fn check_opened(
        &self,
        roots: &Roots,
        fd: std::os::fd::BorrowedFd<'_>,
        shown: &Path,
        action: &'static str,
    ) -> Result<(), RegistryError> {
        match crate::roots::opened_path(fd) {
            Ok(real) if roots.contains(&real) => Ok(()),
            Ok(real) => Err(self.outside(&real, action)),
            Err(_) => Err(self.outside(shown, action)),
        }
    }

    /// The roots this registry acts in (`None`: anywhere its user can).
    pub fn roots(&self) -> Option<&crate::roots::Roots> {
        self.roots.as_ref()
    }

    /// Act only inside `roots` from now on (`None`: anywhere), as
    /// `Options::roots` says. A server whose client's roots change hands
    /// each call's registry the current ones.
    pub fn set_roots(&mut self, roots: Option<crate::roots::Roots>) {
        self.roots = roots;
    }

    /// Refuse `action` on the file `path` names when the file it opens
    /// lies outside the roots (by the opened descriptor; free without
    /// roots): for a face that reads a file itself before handing the
    /// registry its contents (`agents mcp`'s `registry_import`).
    pub fn check_file_in_roots(
        &self,
        path: &Path,
        action: &'static str,
    ) -> Result<(), RegistryError> {
        self.check_read_in_roots(path, action)
    }
}

#[cfg(test)]
mod tests {
    use crate::registry::{
        ErrorKind, ExportOptions, ImportOptions, NewResource, RegisterTypeOptions, Registry,
        ResourceFilter,
    };
    use crate::roots::Roots;
    use std::path::{Path, PathBuf};

    /// A temp dir holding `in/` (the root) and `out/`.
    fn places() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let (inside, outside) = (base.join("in"), base.join("out"));
        std::fs::create_dir(&inside).unwrap();
        std::fs::create_dir(&outside).unwrap();
        (dir, inside, outside)
    }

    fn agent(root: &Path) -> Registry {
        let mut registry = Registry::open_in_memory().unwrap();
        registry.set_roots(Some(Roots::new([root]).unwrap()));
        registry
    }

    #[test]
    fn an_import_naming_a_location_outside_the_roots_is_refused_and_writes_nothing() {
        let (_dir, inside, outside) = places();
        let mut person = Registry::open_in_memory().unwrap();
        person
            .register_resource(
                NewResource {
                    type_name: "fs-directory".into(),
                    name: Some("local/out".into()),
                    args: vec![("path".into(), outside.to_str().unwrap().into())],
                    ..NewResource::default()
                },
                Default::default(),
            )
            .unwrap();
        let document = person.export_document(ExportOptions::default()).unwrap();
        let mut agent = agent(&inside);
        let err = agent
            .import_document(&document, ImportOptions::default())
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::OutsideRoots, "{err}");
        assert!(err.to_string().contains("import is refused"), "{err}");
        assert!(
            agent
                .list_resources(&ResourceFilter::All)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn a_type_file_reached_through_a_symlink_inside_the_roots_is_refused() {
        let (_dir, inside, outside) = places();
        std::fs::write(
            outside.join("pkg.yaml"),
            include_str!("../../tests/data/python-package.yaml"),
        )
        .unwrap();
        std::os::unix::fs::symlink(outside.join("pkg.yaml"), inside.join("pkg.yaml")).unwrap();
        let mut agent = agent(&inside);
        let err = agent
            .register_type(&inside.join("pkg.yaml"), RegisterTypeOptions::default())
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::OutsideRoots, "{err}");
        // Copied inside, the same file is read.
        std::fs::remove_file(inside.join("pkg.yaml")).unwrap();
        std::fs::copy(outside.join("pkg.yaml"), inside.join("pkg.yaml")).unwrap();
        agent
            .register_type(&inside.join("pkg.yaml"), RegisterTypeOptions::default())
            .unwrap();
    }
}
