//! How a session's requests go out and what comes back: the auth
//! challenge answered once (Basic with the user's credentials, Bearer
//! with a token fetched from the realm), a body read within its bound,
//! and a status or a silence turned into an [`OciError`].

use super::Session;
use crate::oci::OciError;
use crate::oci::auth::Credentials;
use ureq::Body;
use ureq::http::Response;

impl Session<'_> {
    pub(super) fn read(
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
    pub(super) fn send(
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

    pub(super) fn status_error(&self, action: &'static str, status: u16) -> OciError {
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
