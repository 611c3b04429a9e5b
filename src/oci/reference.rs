//! Where an artifact is: the one home of how a reference is written and
//! read — `HOST[:PORT]/REPOSITORY:TAG`, `…@sha256:HEX`, or an OCI image
//! layout directory `oci-layout:DIR:TAG` (what `skopeo copy` and `oras
//! copy --to-oci-layout` write).
//!
//! The host is always spelled out (there is no default registry, so a
//! reference never silently means Docker Hub). Repository names follow the
//! distribution spec (lowercase components joined by `/`, each of
//! `[a-z0-9]` separated by `.`, `_`, `__` or `-`), tags its grammar, and a
//! digest is `sha256:` and 64 lowercase hex digits; anything else is
//! refused here, so no odd text reaches a URL.

use std::fmt;
use std::path::PathBuf;
use thiserror::Error;

/// A reference into a registry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// `HOST[:PORT]`.
    pub registry: String,
    pub repository: String,
    pub tag: Option<String>,
    /// `sha256:<hex>`.
    pub digest: Option<String>,
}

/// Where an install reads from: a registry, or a layout directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Registry(Reference),
    Layout {
        dir: PathBuf,
        tag: Option<String>,
        digest: Option<String>,
    },
}

#[derive(Debug, Error, PartialEq, Eq)]
pub enum ReferenceError {
    #[error(
        "{text:?} is not a registry reference: {why}; write HOST[:PORT]/REPOSITORY:TAG, \
         HOST[:PORT]/REPOSITORY@sha256:DIGEST or oci-layout:DIR:TAG"
    )]
    Malformed { text: String, why: &'static str },
    #[error("{text:?} names no tag or digest; add :TAG or @sha256:DIGEST")]
    Unpinned { text: String },
}

/// The prefix of a layout directory source.
pub const LAYOUT_PREFIX: &str = "oci-layout:";

impl Reference {
    /// Parse `HOST[:PORT]/REPOSITORY[:TAG][@sha256:HEX]`; a tag and a
    /// digest may both be missing (the caller decides whether that is
    /// allowed, [`Reference::pinned`]).
    pub fn parse(text: &str) -> Result<Self, ReferenceError> {
        let bad = |why| ReferenceError::Malformed {
            text: text.chars().take(200).collect(),
            why,
        };
        let (rest, digest) = match text.split_once('@') {
            Some((rest, digest)) => (rest, Some(check_digest(digest).map_err(bad)?)),
            None => (text, None),
        };
        let (registry, path) = rest.split_once('/').ok_or_else(|| bad("it has no /"))?;
        check_registry(registry).map_err(bad)?;
        // A tag follows the last `:` after the last `/`.
        let (repository, tag) = match path.rsplit_once(':') {
            Some((repo, tag)) if !tag.contains('/') => (repo, Some(tag)),
            _ => (path, None),
        };
        check_repository(repository).map_err(bad)?;
        if let Some(tag) = tag {
            check_tag(tag).map_err(bad)?;
        }
        Ok(Self {
            registry: registry.to_owned(),
            repository: repository.to_owned(),
            tag: tag.map(str::to_owned),
            digest,
        })
    }

    /// Refuse a reference with neither tag nor digest.
    pub fn pinned(self) -> Result<Self, ReferenceError> {
        if self.tag.is_none() && self.digest.is_none() {
            return Err(ReferenceError::Unpinned {
                text: self.to_string(),
            });
        }
        Ok(self)
    }

    /// The same repository at `tag`.
    pub fn with_tag(&self, tag: &str) -> Self {
        Self {
            tag: Some(tag.to_owned()),
            digest: None,
            ..self.clone()
        }
    }

    /// The repository with `key` (a tag or a digest), for messages.
    pub fn with_key(&self, key: &str) -> String {
        let sep = if key.starts_with("sha256:") { '@' } else { ':' };
        format!("{}/{}{sep}{key}", self.registry, self.repository)
    }

    /// What a manifest is fetched by: the digest when given, else the tag.
    pub fn manifest_key(&self) -> &str {
        self.digest
            .as_deref()
            .or(self.tag.as_deref())
            .unwrap_or("latest")
    }

    /// `HOST[:PORT]/REPOSITORY`: what a key is trusted for.
    pub fn repository_path(&self) -> String {
        format!("{}/{}", self.registry, self.repository)
    }

    /// Whether the registry is on this machine's loopback, where plain
    /// http is allowed without `--insecure`.
    pub fn is_loopback(&self) -> bool {
        let host = match self.registry.strip_prefix('[') {
            Some(v6) => v6.split(']').next().unwrap_or(""),
            None => self.registry.split(':').next().unwrap_or(""),
        };
        host == "localhost"
            || host
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback())
    }
}

impl fmt::Display for Reference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.registry, self.repository)?;
        if let Some(tag) = &self.tag {
            write!(f, ":{tag}")?;
        }
        if let Some(digest) = &self.digest {
            write!(f, "@{digest}")?;
        }
        Ok(())
    }
}

impl Source {
    /// Parse a registry reference or `oci-layout:DIR[:TAG|@DIGEST]`; it
    /// must name a tag or a digest.
    pub fn parse(text: &str) -> Result<Self, ReferenceError> {
        let Some(rest) = text.strip_prefix(LAYOUT_PREFIX) else {
            return Ok(Self::Registry(Reference::parse(text)?.pinned()?));
        };
        let bad = |why| ReferenceError::Malformed {
            text: text.chars().take(200).collect(),
            why,
        };
        let (dir, tag, digest) = if let Some((dir, digest)) = rest.rsplit_once('@') {
            (dir, None, Some(check_digest(digest).map_err(bad)?))
        } else if let Some((dir, tag)) = rest.rsplit_once(':') {
            check_tag(tag).map_err(bad)?;
            (dir, Some(tag.to_owned()), None)
        } else {
            return Err(ReferenceError::Unpinned {
                text: text.to_owned(),
            });
        };
        if dir.is_empty() {
            return Err(bad("the layout directory is empty"));
        }
        Ok(Self::Layout {
            dir: PathBuf::from(dir),
            tag,
            digest,
        })
    }

    /// How a recorded provenance is shown: `HOST/REPOSITORY:TAG`, by
    /// digest when it had no tag, or `oci-layout:DIR:TAG`.
    pub fn shown(registry: &str, repository: &str, tag: Option<&str>, digest: &str) -> String {
        let base = if registry.starts_with(LAYOUT_PREFIX) {
            registry.to_owned()
        } else {
            format!("{registry}/{repository}")
        };
        match tag {
            Some(tag) => format!("{base}:{tag}"),
            None => format!("{base}@{digest}"),
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Registry(r) => r.fmt(f),
            Self::Layout { dir, tag, digest } => {
                write!(f, "{LAYOUT_PREFIX}{}", dir.display())?;
                match (tag, digest) {
                    (Some(tag), _) => write!(f, ":{tag}"),
                    (None, Some(digest)) => write!(f, "@{digest}"),
                    (None, None) => Ok(()),
                }
            }
        }
    }
}

fn check_registry(host: &str) -> Result<(), &'static str> {
    let ok = !host.is_empty()
        && host.len() <= 255
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'));
    ok.then_some(()).ok_or("its host is not HOST[:PORT]")
}

fn check_repository(repo: &str) -> Result<(), &'static str> {
    let component_ok = |c: &str| {
        let bytes = c.as_bytes();
        !c.is_empty()
            && bytes.first().is_some_and(u8::is_ascii_alphanumeric)
            && bytes.last().is_some_and(u8::is_ascii_alphanumeric)
            && c.chars().all(|ch| {
                ch.is_ascii_lowercase() || ch.is_ascii_digit() || matches!(ch, '.' | '_' | '-')
            })
    };
    let ok = !repo.is_empty() && repo.len() <= 255 && repo.split('/').all(component_ok);
    ok.then_some(())
        .ok_or("its repository must be lowercase letters, digits and . _ - between /")
}

/// A tag: `[A-Za-z0-9_][A-Za-z0-9._-]{0,127}`.
pub fn check_tag(tag: &str) -> Result<(), &'static str> {
    let mut chars = tag.chars();
    let ok = tag.len() <= 128
        && chars
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
    ok.then_some(())
        .ok_or("its tag must be letters, digits and _ . - (at most 128)")
}

/// A digest: `sha256:` and 64 lowercase hex digits.
pub fn check_digest(digest: &str) -> Result<String, &'static str> {
    let ok = digest.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .chars()
                .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
    });
    ok.then(|| digest.to_owned())
        .ok_or("its digest must be sha256: and 64 lowercase hex digits")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reference_with_a_port_and_a_tag_reads_back_as_written() {
        let r = Reference::parse("127.0.0.1:5000/team/python-package:1.2.0").unwrap();
        assert_eq!(r.registry, "127.0.0.1:5000");
        assert_eq!(r.repository, "team/python-package");
        assert_eq!(r.tag.as_deref(), Some("1.2.0"));
        assert_eq!(r.to_string(), "127.0.0.1:5000/team/python-package:1.2.0");
        assert!(r.is_loopback());
    }

    #[test]
    fn a_reference_by_digest_keeps_the_digest_and_needs_no_tag() {
        let digest = format!("sha256:{}", "a".repeat(64));
        let r = Reference::parse(&format!("registry.example.com/p@{digest}")).unwrap();
        assert_eq!(r.digest.as_deref(), Some(digest.as_str()));
        assert_eq!(r.manifest_key(), digest);
        assert!(!r.is_loopback());
    }

    #[test]
    fn an_unpinned_or_odd_reference_is_refused_saying_how_to_write_one() {
        let err = Source::parse("localhost:5000/p").unwrap_err().to_string();
        assert!(err.contains("add :TAG or @sha256:DIGEST"), "{err}");
        for bad in [
            "p:1",
            "localhost/Upper:1",
            "localhost/p:bad tag",
            "localhost/p@sha256:xyz",
            "local host/p:1",
        ] {
            assert!(Reference::parse(bad).is_err(), "{bad} should be refused");
        }
    }

    #[test]
    fn a_layout_source_takes_its_tag_after_the_last_colon() {
        let s = Source::parse("oci-layout:/tmp/a:b/dir:1.0.0").unwrap();
        assert_eq!(
            s,
            Source::Layout {
                dir: PathBuf::from("/tmp/a:b/dir"),
                tag: Some("1.0.0".into()),
                digest: None
            }
        );
        assert_eq!(s.to_string(), "oci-layout:/tmp/a:b/dir:1.0.0");
    }
}
