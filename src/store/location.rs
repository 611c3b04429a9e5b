//! Where a registry lives: `--registry URL` / `$AGENTS_REGISTRY`.
//!
//! * `postgres://user@host:5432/db?sslmode=require` (or `postgresql://`):
//!   a shared PostgreSQL server. libpq's URL keys as rust-postgres reads
//!   them (`sslmode`, `connect_timeout`, `application_name`, `options` —
//!   e.g. `options=-csearch_path%3Dteam_a` puts the registry in schema
//!   `team_a`). `sslmode=require` encrypts and verifies the server's
//!   certificate against the system's trust store (stricter than libpq's
//!   `require`, which does not verify).
//! * `host=db.example.com user=alice password=… dbname=agents`: the same
//!   server as a libpq connection string (`key=value` pairs, values
//!   quoted `'…'` when they hold spaces), as rust-postgres reads it.
//! * `sqlite:///abs/path/registry.db` or `sqlite:relative/path.db`: a
//!   SQLite file; and a plain path is one too — unless it reads as one of
//!   the above. A text that starts like a connection string
//!   (`word=`…) or names the PostgreSQL scheme without `//`
//!   (`postgres:/…`, a typo) is never taken for a file name: it is read
//!   as a connection string or refused, so a mistyped server never
//!   becomes a new SQLite file named after it, password and all. (A file
//!   whose name holds `=` is still reachable as `sqlite:name=x.db` or
//!   `./name=x.db`.)
//!
//! Passwords are never shown: messages name the server by
//! [`redacted`], which masks a URL's password, a `password=` query
//! parameter and a connection string's `password` value — also in a text
//! that was refused for being malformed.

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
        if let Some((scheme, _)) = text.split_once(':')
            && ["postgres", "postgresql"].contains(&scheme.to_ascii_lowercase().as_str())
        {
            return Err(bad(
                "a PostgreSQL URL starts with postgres:// (or postgresql://), in lowercase",
            ));
        }
        if looks_like_conninfo(text) {
            postgres::Config::from_str(text).map_err(|e| {
                bad(&format!(
                    "it reads as a libpq connection string (key=value …), but {e}; a SQLite file \
                     whose name holds `=` is named sqlite:NAME (or ./NAME)"
                ))
            })?;
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

/// Does `text` start like a libpq connection string: a keyword (letters,
/// digits, `_`), optional blanks, then `=`?
fn looks_like_conninfo(text: &str) -> bool {
    let text = text.trim_start();
    let key_len = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    key_len > 0 && text[key_len..].trim_start().starts_with('=')
}

/// `location` (a URL, a connection string, or a text refused as either)
/// with any password replaced by `***`.
pub fn redacted(location: &str) -> String {
    if looks_like_conninfo(location) {
        return redacted_conninfo(location);
    }
    // `scheme:` then any slashes (a `postgres:/` typo is masked as well).
    let scheme_len = location
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
        .filter(|&i| i > 0 && location[i..].starts_with(':'));
    let Some(scheme_len) = scheme_len else {
        return location.to_owned();
    };
    let after = &location[scheme_len + 1..];
    let slashes = after.len() - after.trim_start_matches('/').len();
    let (head, rest) = location.split_at(scheme_len + 1 + slashes);
    let (before_query, query) = match rest.find(['?', '#']) {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    // The last `@` before the query ends the user information: a password
    // may hold a `/` or an `@` its writer did not percent-encode, and
    // hiding too much is the safe side.
    let rest = match before_query.rsplit_once('@') {
        Some((userinfo, after_at)) => match userinfo.split_once(':') {
            Some((user, _password)) => format!("{user}:***@{after_at}"),
            None => before_query.to_owned(),
        },
        None => before_query.to_owned(),
    };
    // A password in the query (`?password=…`) is hidden too.
    let query = query
        .split('&')
        .map(|part| {
            let (key, value) = part.split_once("password=").unwrap_or((part, ""));
            if value.is_empty() {
                part.to_owned()
            } else {
                format!("{key}password=***")
            }
        })
        .collect::<Vec<_>>()
        .join("&");
    format!("{head}{rest}{query}")
}

/// A connection string with its `password` value replaced by `***`
/// (read as libpq reads it: `key = value`, a value quoted `'…'` with `\`
/// escapes, or bare up to a blank). Past anything it cannot read, the rest
/// is hidden whole if it might still hold a password.
fn redacted_conninfo(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    loop {
        let trimmed = rest.trim_start();
        out.push_str(&rest[..rest.len() - trimmed.len()]);
        rest = trimmed;
        if rest.is_empty() {
            return out;
        }
        let Some(eq) = rest.find('=') else {
            out.push_str(rest);
            return out;
        };
        let key = rest[..eq].trim_end();
        out.push_str(&rest[..=eq]);
        let after = &rest[eq + 1..];
        let value_start = after.len() - after.trim_start().len();
        out.push_str(&after[..value_start]);
        let value = &after[value_start..];
        let value_len = if let Some(quoted) = value.strip_prefix('\'') {
            let mut escaped = false;
            let end = quoted.char_indices().find(|&(_, c)| {
                let close = c == '\'' && !escaped;
                escaped = c == '\\' && !escaped;
                close
            });
            match end {
                Some((i, _)) => i + 2,
                None => {
                    // An unterminated quote: nothing after it is trusted.
                    out.push_str(if key == "password" || value.contains("password") {
                        "***"
                    } else {
                        value
                    });
                    return out;
                }
            }
        } else {
            value.find(char::is_whitespace).unwrap_or(value.len())
        };
        out.push_str(if key == "password" {
            "***"
        } else {
            &value[..value_len]
        });
        rest = &value[value_len..];
    }
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
    fn a_connection_string_is_a_server_and_a_typo_is_never_a_file() {
        let conninfo = "host=db.example user=rt password=S3cretPW dbname=rt";
        assert_eq!(
            RegistryLocation::parse(conninfo).unwrap(),
            RegistryLocation::Postgres(conninfo.into())
        );
        assert_eq!(
            RegistryLocation::parse(conninfo).unwrap().describe(),
            "host=db.example user=rt password=*** dbname=rt"
        );
        for refused in [
            "postgres:/rt:PW@localhost/db",
            "postgresql:rt:PW@localhost/db",
            "Postgres://rt:PW@localhost/db",
            "host=h user=rt password=PW dbname=rt colour=blue",
            "user=rt password='PW with spaces",
        ] {
            let err = RegistryLocation::parse(refused).unwrap_err().to_string();
            assert!(!err.contains("PW"), "the password leaked: {err}");
        }
        let err = RegistryLocation::parse("postgres:/rt:PW@localhost/db")
            .unwrap_err()
            .to_string();
        assert!(err.contains("postgres:/rt:***@localhost/db"), "{err}");
        assert!(err.contains("starts with postgres://"), "{err}");
        let err = RegistryLocation::parse("name=x.db")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("sqlite:"),
            "says how to name such a file: {err}"
        );
        assert_eq!(
            RegistryLocation::parse("sqlite:name=x.db").unwrap(),
            RegistryLocation::Sqlite("name=x.db".into())
        );
        assert_eq!(
            RegistryLocation::parse("./name=x.db").unwrap(),
            RegistryLocation::Sqlite("./name=x.db".into())
        );
    }

    #[test]
    fn passwords_are_never_shown() {
        assert_eq!(
            redacted("host=h password = 'a \\' b' dbname=d"),
            "host=h password = *** dbname=d"
        );
        assert_eq!(
            redacted("postgres://me:pa/ss@host/db"),
            "postgres://me:***@host/db"
        );
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
