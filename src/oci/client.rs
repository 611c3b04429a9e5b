//! Speaking the OCI Distribution API to one repository: the one home of
//! URLs, status codes, the auth challenge and what a registry's answers
//! may be trusted for.
//!
//! **The scheme is decided, not tried.** A registry on loopback (or any,
//! with [`RegistryAccess::insecure`]) is spoken to over plain http;
//! every other over https with the system's trust store, so credentials
//! and manifests never cross a network in the clear by a fallback.
//!
//! **Auth as registries ask for it.** A request goes out without
//! credentials (or with what the repository accepted before); a `401`
//! with `WWW-Authenticate: Basic` is answered with the user's
//! credentials, `Bearer realm=…,service=…,scope=…` by fetching a token
//! from the realm (over https, unless the registry itself may be spoken
//! to in the clear) and retrying once. Credentials go to the registry's
//! own host and its realm only: a redirect (blobs often live elsewhere)
//! never carries them.
//!
//! **Nothing a registry says is believed by size or name.** Manifests
//! are capped at 4 MiB, blobs at the caller's bound, every blob and a
//! manifest fetched by digest are hashed and compared, and a body that
//! ends early is an error, not a short file.
//!
//! The operations on a repository are here; how a request goes out, the
//! challenge answered and a body read are in `request`.

use super::OciError;
use super::auth::{Credentials, RegistryAccess};
use super::reference::Reference;
use crate::digest::sha256_hex;
use std::cell::RefCell;
use std::time::Duration;
use ureq::Agent;
use ureq::tls::{RootCerts, TlsConfig, TlsProvider};

mod request;

/// The most bytes a manifest (or a signature's manifest) may have.
pub const MAX_MANIFEST: u64 = 4 * 1024 * 1024;

/// The manifest media types a pull asks for.
const ACCEPT: &str = "application/vnd.oci.image.manifest.v1+json, \
     application/vnd.oci.image.index.v1+json, \
     application/vnd.docker.distribution.manifest.v2+json";

/// An HTTP client for registries (one per command).
#[derive(Debug)]
pub struct Client {
    agent: Agent,
    access: RegistryAccess,
}

/// What a manifest fetch found.
#[derive(Debug, Clone)]
pub struct FetchedManifest {
    pub bytes: Vec<u8>,
    /// `sha256:<hex>` of `bytes`.
    pub digest: String,
    /// The `Content-Type` the registry gave.
    pub media_type: Option<String>,
}

/// One repository of one registry, with the auth it accepted.
#[derive(Debug)]
pub struct Session<'a> {
    client: &'a Client,
    base: String,
    reference: Reference,
    credentials: Credentials,
    push: bool,
    authorization: RefCell<Option<String>>,
}

impl Client {
    pub fn new(access: RegistryAccess) -> Self {
        let tls = TlsConfig::builder()
            .provider(TlsProvider::NativeTls)
            .root_certs(RootCerts::PlatformVerifier)
            .build();
        let config = Agent::config_builder()
            .http_status_as_error(false)
            .tls_config(tls)
            // The library reads no proxy variables of its own.
            .proxy(None)
            .timeout_connect(Some(Duration::from_secs(10)))
            .timeout_global(Some(Duration::from_secs(300)))
            .max_redirects(5)
            .user_agent(concat!("agents/", env!("CARGO_PKG_VERSION")))
            .build();
        Self {
            agent: Agent::new_with_config(config),
            access,
        }
    }

    /// A session on `reference`'s repository; `push` asks for push rights
    /// when a token is needed.
    pub fn session(&self, reference: &Reference, push: bool) -> Session<'_> {
        let scheme = if reference.is_loopback() || self.access.insecure {
            "http"
        } else {
            "https"
        };
        Session {
            client: self,
            base: format!("{scheme}://{}", reference.registry),
            reference: reference.clone(),
            credentials: self.access.credentials_for(&reference.registry),
            push,
            authorization: RefCell::default(),
        }
    }
}

impl Session<'_> {
    fn url(&self, tail: &str) -> String {
        format!("{}/v2/{}/{tail}", self.base, self.reference.repository)
    }

    /// The manifest at `key` (a tag or a digest); refused when missing.
    pub fn manifest(&self, key: &str) -> Result<FetchedManifest, OciError> {
        let mut response = self.send(
            "GET",
            &self.url(&format!("manifests/{key}")),
            None,
            &[("Accept", ACCEPT)],
        )?;
        match response.status().as_u16() {
            200 => {}
            404 => {
                return Err(OciError::NotFound {
                    reference: self.reference.with_key(key),
                    what: "manifest",
                });
            }
            status => return Err(self.status_error("fetching the manifest", status)),
        }
        let media_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .map(|v| v.split(';').next().unwrap_or(v).trim().to_owned());
        let bytes = self.read(&mut response, MAX_MANIFEST, "the manifest")?;
        let digest = format!("sha256:{}", sha256_hex(&bytes));
        if key.starts_with("sha256:") && key != digest {
            return Err(OciError::DigestMismatch {
                what: "the manifest".into(),
                expected: key.to_owned(),
                actual: digest,
            });
        }
        Ok(FetchedManifest {
            bytes,
            digest,
            media_type,
        })
    }

    /// The blob `digest`, at most `limit` bytes, checked against it.
    pub fn blob(&self, digest: &str, limit: u64) -> Result<Vec<u8>, OciError> {
        let mut response = self.send("GET", &self.url(&format!("blobs/{digest}")), None, &[])?;
        match response.status().as_u16() {
            200 => {}
            404 => {
                return Err(OciError::NotFound {
                    reference: self.reference.to_string(),
                    what: "blob",
                });
            }
            status => return Err(self.status_error("fetching a blob", status)),
        }
        let bytes = self.read(&mut response, limit, &format!("blob {digest}"))?;
        let actual = format!("sha256:{}", sha256_hex(&bytes));
        if actual != digest {
            return Err(OciError::DigestMismatch {
                what: format!("blob {digest}"),
                expected: digest.to_owned(),
                actual,
            });
        }
        Ok(bytes)
    }

    /// Upload `bytes` as a blob (skipped when the registry has it);
    /// answers its digest.
    pub fn put_blob(&self, bytes: &[u8]) -> Result<String, OciError> {
        let digest = format!("sha256:{}", sha256_hex(bytes));
        let head = self.send("HEAD", &self.url(&format!("blobs/{digest}")), None, &[])?;
        if head.status().as_u16() == 200 {
            return Ok(digest);
        }
        let start = self.send("POST", &self.url("blobs/uploads/"), Some(&[]), &[])?;
        if start.status().as_u16() != 202 {
            return Err(self.status_error("starting a blob upload", start.status().as_u16()));
        }
        let location = start
            .headers()
            .get("location")
            .and_then(|v| v.to_str().ok())
            .ok_or_else(|| OciError::Protocol {
                registry: self.reference.registry.clone(),
                why: "a blob upload was started without a Location".into(),
            })?;
        let location = if location.starts_with('/') {
            format!("{}{location}", self.base)
        } else if location.starts_with(&self.base) {
            location.to_owned()
        } else {
            // The upload goes to the registry it was asked of, nowhere else.
            return Err(OciError::Protocol {
                registry: self.reference.registry.clone(),
                why: "a blob upload was sent to another host".into(),
            });
        };
        let separator = if location.contains('?') { '&' } else { '?' };
        let url = format!("{location}{separator}digest={digest}");
        let put = self.send(
            "PUT",
            &url,
            Some(bytes),
            &[("Content-Type", "application/octet-stream")],
        )?;
        match put.status().as_u16() {
            201 | 204 => Ok(digest),
            status => Err(self.status_error("uploading a blob", status)),
        }
    }

    /// Put `bytes` (a manifest of `media_type`) at `tag`; answers its
    /// digest.
    pub fn put_manifest(
        &self,
        tag: &str,
        bytes: &[u8],
        media_type: &str,
    ) -> Result<String, OciError> {
        let put = self.send(
            "PUT",
            &self.url(&format!("manifests/{tag}")),
            Some(bytes),
            &[("Content-Type", media_type)],
        )?;
        match put.status().as_u16() {
            201 | 204 => Ok(format!("sha256:{}", sha256_hex(bytes))),
            status => Err(self.status_error("putting the manifest", status)),
        }
    }

    /// The repository's tags (at most 10,000).
    pub fn tags(&self) -> Result<Vec<String>, OciError> {
        let mut response = self.send("GET", &self.url("tags/list?n=10000"), None, &[])?;
        match response.status().as_u16() {
            200 => {}
            404 => return Ok(Vec::new()),
            status => return Err(self.status_error("listing tags", status)),
        }
        #[derive(serde::Deserialize)]
        struct TagList {
            tags: Option<Vec<String>>,
        }
        let bytes = self.read(&mut response, MAX_MANIFEST, "the tag list")?;
        let list: TagList = serde_json::from_slice(&bytes).map_err(|e| OciError::Protocol {
            registry: self.reference.registry.clone(),
            why: format!("its tag list is not JSON: {e}"),
        })?;
        Ok(list.tags.unwrap_or_default())
    }
}
