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

use super::OciError;
use super::auth::{Credentials, RegistryAccess};
use super::reference::Reference;
use crate::digest::sha256_hex;
use std::cell::RefCell;
use std::time::Duration;
use ureq::http::Response;
use ureq::tls::{RootCerts, TlsConfig, TlsProvider};
use ureq::{Agent, Body};

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

    fn read(
        &self,
        response: &mut Response<Body>,
        limit: u64,
        what: &str,
    ) -> Result<Vec<u8>, OciError> {
        if let Some(len) = response
            .headers()
            .get("content-length")
            .and_then(|v| v.to_str().ok()?.parse::<u64>().ok())
            && len > limit
        {
            return Err(OciError::TooBig {
                what: what.to_owned(),
                limit,
            });
        }
        response
            .body_mut()
            .with_config()
            .limit(limit)
            .read_to_vec()
            .map_err(|e| match e {
                ureq::Error::BodyExceedsLimit(_) => OciError::TooBig {
                    what: what.to_owned(),
                    limit,
                },
                other => OciError::Truncated {
                    registry: self.reference.registry.clone(),
                    what: what.to_owned(),
                    why: other.to_string(),
                },
            })
    }

    /// Send a request (with `body`, or none), answering one auth
    /// challenge.
    fn send(
        &self,
        method: &str,
        url: &str,
        body: Option<&[u8]>,
        headers: &[(&str, &str)],
    ) -> Result<Response<Body>, OciError> {
        let first = self.attempt(method, url, body, headers)?;
        if first.status().as_u16() != 401 {
            return Ok(first);
        }
        let challenge = first
            .headers()
            .get("www-authenticate")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let Some(challenge) = challenge else {
            return Ok(first);
        };
        let Some(authorization) = self.answer(&challenge)? else {
            return Ok(first);
        };
        *self.authorization.borrow_mut() = Some(authorization);
        self.attempt(method, url, body, headers)
    }

    fn attempt(
        &self,
        method: &str,
        url: &str,
        body: Option<&[u8]>,
        headers: &[(&str, &str)],
    ) -> Result<Response<Body>, OciError> {
        let mut builder = ureq::http::Request::builder().method(method).uri(url);
        for (name, value) in headers {
            builder = builder.header(*name, *value);
        }
        if let Some(value) = self.authorization.borrow().as_deref() {
            builder = builder.header("Authorization", value);
        }
        let sent = match body {
            Some(bytes) => builder
                .body(bytes)
                .map(|request| self.client.agent.run(request)),
            None => builder
                .body(())
                .map(|request| self.client.agent.run(request)),
        };
        let sent = sent.map_err(|e| OciError::Protocol {
            registry: self.reference.registry.clone(),
            why: e.to_string(),
        })?;
        sent.map_err(|e| OciError::Unreachable {
            registry: self.reference.registry.clone(),
            why: unreachable_why(&e),
        })
    }

    /// The `Authorization` value answering `challenge`, if the
    /// credentials can answer it.
    fn answer(&self, challenge: &str) -> Result<Option<String>, OciError> {
        let (scheme, params) = challenge.split_once(' ').unwrap_or((challenge, ""));
        let params = parse_params(params);
        if scheme.eq_ignore_ascii_case("basic") {
            return Ok(self.credentials.basic_header());
        }
        if !scheme.eq_ignore_ascii_case("bearer") {
            return Ok(None);
        }
        if let Credentials::Bearer(token) = &self.credentials {
            return Ok(Some(format!("Bearer {token}")));
        }
        let Some(realm) = params.get("realm") else {
            return Ok(None);
        };
        let clear_allowed = self.base.starts_with("http://");
        if !(realm.starts_with("https://") || clear_allowed && realm.starts_with("http://")) {
            return Err(OciError::Protocol {
                registry: self.reference.registry.clone(),
                why: format!("its token service {realm:?} is not https"),
            });
        }
        let action = if self.push { "pull,push" } else { "pull" };
        let scope = params
            .get("scope")
            .cloned()
            .unwrap_or_else(|| format!("repository:{}:{action}", self.reference.repository));
        let mut url = format!("{realm}?scope={}", encode(&scope));
        if let Some(service) = params.get("service") {
            url.push_str(&format!("&service={}", encode(service)));
        }
        let mut request = self.client.agent.get(&url);
        if let Some(basic) = self.credentials.basic_header() {
            request = request.header("Authorization", &basic);
        }
        let mut response = request.call().map_err(|e| OciError::Unreachable {
            registry: self.reference.registry.clone(),
            why: format!("its token service: {}", unreachable_why(&e)),
        })?;
        if response.status().as_u16() != 200 {
            return Err(self.status_error("issuing a token", response.status().as_u16()));
        }
        #[derive(serde::Deserialize)]
        struct Token {
            token: Option<String>,
            access_token: Option<String>,
        }
        let bytes = self.read(&mut response, 1024 * 1024, "the token")?;
        let token: Token = serde_json::from_slice(&bytes).map_err(|_| OciError::Protocol {
            registry: self.reference.registry.clone(),
            why: "its token service answered no token".into(),
        })?;
        Ok(token
            .token
            .or(token.access_token)
            .map(|t| format!("Bearer {t}")))
    }

    fn status_error(&self, action: &'static str, status: u16) -> OciError {
        if matches!(status, 401 | 403) {
            return OciError::Denied {
                registry: self.reference.registry.clone(),
                repository: self.reference.repository.clone(),
                status,
            };
        }
        OciError::Status {
            registry: self.reference.registry.clone(),
            action,
            status,
        }
    }
}

/// Why a request got no answer, in one line.
fn unreachable_why(e: &ureq::Error) -> String {
    match e {
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            "connection refused (is it running, and on that port?)".into()
        }
        ureq::Error::HostNotFound => "host not found".into(),
        ureq::Error::Timeout(_) => "it did not answer in time".into(),
        other => other.to_string(),
    }
}

/// `key="value", key=value` pairs of a challenge.
fn parse_params(text: &str) -> std::collections::HashMap<String, String> {
    let mut out = std::collections::HashMap::new();
    let mut rest = text.trim();
    while let Some((key, after)) = rest.split_once('=') {
        let key = key
            .trim()
            .trim_start_matches(',')
            .trim()
            .to_ascii_lowercase();
        let (value, tail) = match after.strip_prefix('"') {
            Some(quoted) => match quoted.split_once('"') {
                Some((v, t)) => (v, t),
                None => (quoted, ""),
            },
            None => after.split_once(',').unwrap_or((after, "")),
        };
        out.insert(key, value.to_owned());
        rest = tail.trim_start_matches(',').trim();
    }
    out
}

/// Percent-encode a query value.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bearer_challenge_reads_its_quoted_parameters() {
        let params = parse_params(
            r#"realm="https://auth.example.com/token",service="registry.example.com",scope="repository:a/b:pull""#,
        );
        assert_eq!(params["realm"], "https://auth.example.com/token");
        assert_eq!(params["service"], "registry.example.com");
        assert_eq!(params["scope"], "repository:a/b:pull");
    }

    #[test]
    fn a_query_value_is_percent_encoded() {
        assert_eq!(
            encode("repository:a/b:pull,push"),
            "repository%3Aa%2Fb%3Apull%2Cpush"
        );
    }
}
