//! Where a registry lives: `--registry URL` / `$AGENTS_REGISTRY`.
//!
//! * `postgres://user@host:5432/db?sslmode=require` (or `postgresql://`):
//!   a shared PostgreSQL server. libpq's URL keys as rust-postgres reads
//!   them (`sslmode`, `connect_timeout`, `application_name`, `options` —
//!   e.g. `options=-csearch_path%3Dteam_a` puts the registry in schema
//!   `team_a`). `sslmode=require` encrypts and verifies the server's
//!   certificate against the system's trust store (stricter than libpq's
//!   `require`, which does not verify).
//! * `sqlite:///abs/path/registry.db` or `sqlite:relative/path.db`: a
//!   SQLite file; and a plain path is one too.
//!
//! Passwords are never shown: messages name the server by
//! [`redacted`].

use super::StoreError;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

/// How long connecting to a server may take when the URL does not say.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A parsed registry location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegistryLocation {
    Sqlite(PathBuf),
    Postgres(String),
}

impl RegistryLocation {
    /// Read a `--registry` value.
    pub fn parse(text: &str) -> Result<Self, StoreError> {
        let bad = |why: &str| StoreError::BadLocation(redacted(text), why.to_owned());
        if text.trim().is_empty() {
            return Err(bad("it is empty"));
        }
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            postgres::Config::from_str(text).map_err(|e| bad(&e.to_string()))?;
            return Ok(Self::Postgres(text.to_owned()));
        }
        if let Some(rest) = text.strip_prefix("sqlite:") {
            let path = rest.strip_prefix("//").unwrap_or(rest);
            if path.is_empty() {
                return Err(bad("no file is named after sqlite:"));
            }
            return Ok(Self::Sqlite(PathBuf::from(path)));
        }
        if let Some((scheme, _)) = text.split_once("://") {
            return Err(bad(&format!(
                "the scheme {scheme:?} is not one this binary speaks (postgres://, sqlite://)"
            )));
        }
        Ok(Self::Sqlite(PathBuf::from(text)))
    }

    /// Which backend, as `agents registry info` names it.
    pub fn backend(&self) -> &'static str {
        match self {
            Self::Sqlite(_) => "sqlite",
            Self::Postgres(_) => "postgres",
        }
    }

    /// For people: the file, or the server without its password.
    pub fn describe(&self) -> String {
        match self {
            Self::Sqlite(path) => path.display().to_string(),
            Self::Postgres(url) => redacted(url),
        }
    }
}

/// `url` with any password replaced by `***`.
pub fn redacted(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let (authority, tail) = match rest.find(['/', '?']) {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    let Some((userinfo, host)) = authority.rsplit_once('@') else {
        return url.to_owned();
    };
    let user = match userinfo.split_once(':') {
        Some((user, _password)) => format!("{user}:***"),
        None => userinfo.to_owned(),
    };
    // A password in the query (`?password=…`) is hidden too.
    let tail = tail
        .split('&')
        .map(|part| {
            let (head, value) = part.split_once("password=").unwrap_or((part, ""));
            if value.is_empty() {
                part.to_owned()
            } else {
                format!("{head}password=***")
            }
        })
        .collect::<Vec<_>>()
        .join("&");
    format!("{scheme}://{user}@{host}{tail}")
}

/// Connect to the server `url` names, with TLS when its `sslmode` asks
/// for it (or prefers it and the server offers it).
pub(super) fn connect(url: &str) -> Result<postgres::Client, StoreError> {
    let mut config = postgres::Config::from_str(url)?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    if config.get_application_name().is_none() {
        config.application_name("agents");
    }
    if config.get_ssl_mode() == postgres::config::SslMode::Disable {
        return Ok(config.connect(postgres::NoTls)?);
    }
    Ok(config.connect(LazyTls)?)
}

/// TLS whose connector is built only once the server has agreed to TLS.
/// Building one loads the system's trust store, 60–85 ms of CPU here; with
/// the default `sslmode=prefer` and a server without TLS (a loopback
/// server, say) a short-lived `agents` process then never pays it.
#[derive(Debug, Clone, Copy)]
struct LazyTls;

/// [`LazyTls`] for one host.
#[derive(Debug)]
struct LazyConnect {
    domain: String,
}

impl<S> postgres::tls::MakeTlsConnect<S> for LazyTls
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    type Stream = postgres_native_tls::TlsStream<S>;
    type TlsConnect = LazyConnect;
    type Error = native_tls::Error;

    fn make_tls_connect(&mut self, domain: &str) -> Result<LazyConnect, native_tls::Error> {
        Ok(LazyConnect {
            domain: domain.to_owned(),
        })
    }
}

impl<S> postgres::tls::TlsConnect<S> for LazyConnect
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    type Stream = postgres_native_tls::TlsStream<S>;
    type Error = native_tls::Error;
    type Future = std::pin::Pin<
        Box<dyn std::future::Future<Output = Result<Self::Stream, native_tls::Error>> + Send>,
    >;

    fn connect(self, stream: S) -> Self::Future {
        match native_tls::TlsConnector::new() {
            Ok(tls) => postgres_native_tls::TlsConnector::new(tls, &self.domain).connect(stream),
            Err(e) => Box::pin(async move { Err(e) }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_parse_by_scheme_and_refuse_what_they_cannot_open() {
        assert_eq!(
            RegistryLocation::parse("sqlite:///tmp/r.db").unwrap(),
            RegistryLocation::Sqlite("/tmp/r.db".into())
        );
        assert_eq!(
            RegistryLocation::parse("sqlite:rel.db").unwrap(),
            RegistryLocation::Sqlite("rel.db".into())
        );
        assert_eq!(
            RegistryLocation::parse("/tmp/x.db").unwrap(),
            RegistryLocation::Sqlite("/tmp/x.db".into())
        );
        let pg = "postgres://me@db.example:5432/agents?sslmode=require";
        assert_eq!(
            RegistryLocation::parse(pg).unwrap(),
            RegistryLocation::Postgres(pg.into())
        );
        let err = RegistryLocation::parse("mysql://x/y")
            .unwrap_err()
            .to_string();
        assert!(err.contains("\"mysql\""), "{err}");
        let err = RegistryLocation::parse("postgres://me:pw@h/db?sslmode=sometimes")
            .unwrap_err()
            .to_string();
        assert!(!err.contains("pw"), "the password leaked: {err}");
        assert!(RegistryLocation::parse("").is_err());
        assert!(RegistryLocation::parse("sqlite:").is_err());
    }

    #[test]
    fn passwords_are_never_shown() {
        assert_eq!(
            redacted("postgres://me:secret@host:5432/db?sslmode=require"),
            "postgres://me:***@host:5432/db?sslmode=require"
        );
        assert_eq!(redacted("postgres://me@host/db"), "postgres://me@host/db");
        assert_eq!(
            redacted("postgres://me@host/db?password=secret&sslmode=disable"),
            "postgres://me@host/db?password=***&sslmode=disable"
        );
    }
}
