//! Publishers' keys and signatures: the one home of making a key pair,
//! keeping it, pinning whose keys may publish where, and signing and
//! verifying what a publisher vouches for — all offline.
//!
//! **minisign's formats.** A key is ed25519; its public key is written as
//! minisign writes one (`RWQ…`: base64 of `Ed`, an 8-byte key id and the
//! 32-byte key), and a signature is a minisign signature (legacy `Ed`
//! over the message, a trusted comment, and the global signature over
//! both), so `minisign -V -P KEY` checks one too. The secret key stays in
//! the home (`keys/NAME.key`, mode 0600 in a private directory), never
//! printed.
//!
//! **What is signed** is a [`Statement`]: the repository the artifact was
//! published to, the plugin's module and version, and the digest of its
//! layer (the component's bytes). The exact statement bytes travel with
//! the signature, are verified first, and only then read.
//!
//! **Pins are a person's.** `keys/trusted.json` lists which public key
//! may publish under which `HOST/REPOSITORY` prefix (a whole path
//! component: `host/team` covers `host/team/x`, not `host/teamx`); only
//! the CLI's `plugin key trust` writes it, never an install.

use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use ed25519_compact::{KeyPair, PublicKey, SecretKey, Seed, Signature};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum SigningError {
    #[error(
        "key name {0:?} is not one word of letters, digits, - and _ (at most 64); choose another"
    )]
    BadName(String),
    #[error("a key named {0} exists already (agents plugin key list shows it)")]
    Exists(String),
    #[error("no key named {0}; make one with agents plugin key new {0}")]
    NoSuchKey(String),
    #[error("{0:?} is not a minisign public key (RW… as `agents plugin key new` prints it)")]
    BadPublicKey(String),
    #[error("the prefix {0:?} is not HOST[:PORT]/REPOSITORY-PREFIX")]
    BadPrefix(String),
    #[error("the signature is malformed: {0}")]
    Malformed(&'static str),
    #[error(
        "the signature does not verify with key {key_id}: the artifact or its statement was changed"
    )]
    Invalid { key_id: String },
    #[error("{what} {}: {source}", path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("no randomness for a new key: {0}")]
    Random(String),
}

/// What a publisher vouches for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Statement {
    /// `HOST[:PORT]/REPOSITORY` it was published to.
    pub repository: String,
    pub module: String,
    pub version: String,
    /// `sha256:<hex>` of the component.
    pub layer_digest: String,
}

/// The signature layer: the statement's exact bytes and their signature.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Envelope {
    statement: String,
    minisig: String,
}

/// A public key with its id, as shown and pinned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KeyView {
    pub name: String,
    /// minisign's public key text (`RW…`).
    pub public_key: String,
    /// 16 hex digits.
    pub key_id: String,
}

/// One pin: `public_key` may publish under `prefix`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrustPin {
    pub public_key: String,
    pub key_id: String,
    pub prefix: String,
}

#[derive(Serialize, Deserialize)]
struct SecretFile {
    name: String,
    public_key: String,
    /// base64 of the 64-byte ed25519 secret key.
    secret_key: String,
}

/// The keys and pins of one home (`<home>/keys`).
#[derive(Debug, Clone)]
pub struct Keyring {
    dir: PathBuf,
}

fn io<'a>(what: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> SigningError + 'a {
    move |source| SigningError::Io {
        what,
        path: path.to_owned(),
        source,
    }
}

impl Keyring {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    fn prepare(&self) -> Result<(), SigningError> {
        match crate::private_dir::check(&self.dir).map_err(io("preparing", &self.dir))? {
            Ok(()) => Ok(()),
            Err(exposed) => Err(SigningError::Io {
                what: "refusing the key directory",
                path: self.dir.clone(),
                source: std::io::Error::other(
                    exposed.explain(&self.dir, "they could swap in their own keys"),
                ),
            }),
        }
    }

    fn secret_path(&self, name: &str) -> Result<PathBuf, SigningError> {
        let sound = !name.is_empty()
            && name.len() <= 64
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'));
        if !sound {
            return Err(SigningError::BadName(name.chars().take(80).collect()));
        }
        Ok(self.dir.join(format!("{name}.key")))
    }

    /// Make a key pair named `name` and keep it.
    pub fn create(&self, name: &str) -> Result<KeyView, SigningError> {
        let path = self.secret_path(name)?;
        self.prepare()?;
        if path.exists() {
            return Err(SigningError::Exists(name.to_owned()));
        }
        let mut seed = [0u8; 32];
        let mut id = [0u8; 8];
        getrandom::fill(&mut seed).map_err(|e| SigningError::Random(e.to_string()))?;
        getrandom::fill(&mut id).map_err(|e| SigningError::Random(e.to_string()))?;
        let pair = KeyPair::from_seed(Seed::new(seed));
        let public_key = encode_public(&id, &pair.pk);
        let file = SecretFile {
            name: name.to_owned(),
            public_key: public_key.clone(),
            secret_key: B64.encode(pair.sk.as_ref()),
        };
        let json = serde_json::to_vec_pretty(&file).expect("a key file serialises");
        crate::atomic::write_atomic(&path, &json, true).map_err(io("writing key", &path))?;
        Ok(KeyView {
            name: name.to_owned(),
            key_id: key_id_hex(&id),
            public_key,
        })
    }

    /// Every key kept here, by name.
    pub fn list(&self) -> Result<Vec<KeyView>, SigningError> {
        let mut keys = Vec::new();
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(keys),
            Err(e) => return Err(io("reading", &self.dir)(e)),
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if let Some(name) = name.strip_suffix(".key") {
                let (_, view) = self.load(name)?;
                keys.push(view);
            }
        }
        keys.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(keys)
    }

    fn load(&self, name: &str) -> Result<(SecretKey, KeyView), SigningError> {
        let path = self.secret_path(name)?;
        let bytes = match std::fs::read(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(SigningError::NoSuchKey(name.to_owned()));
            }
            other => other.map_err(io("reading key", &path))?,
        };
        let bad = || SigningError::Io {
            what: "reading key",
            path: path.clone(),
            source: std::io::Error::other("not a key file agents wrote"),
        };
        let file: SecretFile = serde_json::from_slice(&bytes).map_err(|_| bad())?;
        let sk = B64
            .decode(&file.secret_key)
            .ok()
            .and_then(|b| SecretKey::from_slice(&b).ok())
            .ok_or_else(bad)?;
        let (id, _) = decode_public(&file.public_key)?;
        Ok((
            sk,
            KeyView {
                name: name.to_owned(),
                key_id: key_id_hex(&id),
                public_key: file.public_key,
            },
        ))
    }

    /// Sign `statement` with the key `name`: the signature layer's bytes
    /// and the key's id.
    pub fn sign(
        &self,
        name: &str,
        statement: &Statement,
    ) -> Result<(Vec<u8>, String), SigningError> {
        let (sk, view) = self.load(name)?;
        let (id, _) = decode_public(&view.public_key)?;
        let message = serde_json::to_string(statement).expect("a statement serialises");
        let signature = sk.sign(message.as_bytes(), None);
        let trusted = format!("{} {}", statement.module, statement.version);
        let mut global = signature.as_ref().to_vec();
        global.extend_from_slice(trusted.as_bytes());
        let global = sk.sign(&global, None);
        let mut sig_bytes = b"Ed".to_vec();
        sig_bytes.extend_from_slice(&id);
        sig_bytes.extend_from_slice(signature.as_ref());
        let minisig = format!(
            "untrusted comment: signature from agents plugin push\n{}\ntrusted comment: {trusted}\n{}\n",
            B64.encode(&sig_bytes),
            B64.encode(global.as_ref())
        );
        let envelope = Envelope {
            statement: message,
            minisig,
        };
        let bytes = serde_json::to_vec(&envelope).expect("an envelope serialises");
        Ok((bytes, view.key_id))
    }

    /// Pin `public_key` for `prefix` (kept once per pair).
    pub fn trust(&self, public_key: &str, prefix: &str) -> Result<TrustPin, SigningError> {
        let (id, _) = decode_public(public_key)?;
        // A whole registry (`HOST[:PORT]`) or a repository prefix in it.
        let prefix = prefix.trim_end_matches('/');
        let host = prefix.split('/').next().unwrap_or_default();
        if host.is_empty() || prefix.contains("//") || prefix.chars().any(char::is_whitespace) {
            return Err(SigningError::BadPrefix(prefix.to_owned()));
        }
        self.prepare()?;
        let pin = TrustPin {
            public_key: public_key.to_owned(),
            key_id: key_id_hex(&id),
            prefix: prefix.to_owned(),
        };
        let mut pins = self.pins()?;
        if !pins.contains(&pin) {
            pins.push(pin.clone());
        }
        let path = self.dir.join("trusted.json");
        let json = serde_json::to_vec_pretty(&pins).expect("pins serialise");
        crate::atomic::write_atomic(&path, &json, true).map_err(io("writing", &path))?;
        Ok(pin)
    }

    /// Every pin.
    pub fn pins(&self) -> Result<Vec<TrustPin>, SigningError> {
        let path = self.dir.join("trusted.json");
        match std::fs::read(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(io("reading", &path)(e)),
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| SigningError::Io {
                what: "reading",
                path,
                source: std::io::Error::other(e.to_string()),
            }),
        }
    }
}

/// A signature layer, opened: the statement it vouches for, the key id
/// that signed it, and — once [`Opened::verify`] passes — nothing else to
/// check but the pins.
#[derive(Debug, Clone)]
pub struct Opened {
    pub key_id: String,
    message: String,
    signature: [u8; 64],
    trusted: String,
    global: [u8; 64],
}

/// Read a signature layer (unverified).
pub fn open(layer: &[u8]) -> Result<Opened, SigningError> {
    let envelope: Envelope = serde_json::from_slice(layer)
        .map_err(|_| SigningError::Malformed("not the JSON agents writes"))?;
    let mut lines = envelope.minisig.lines();
    let (_, sig, trusted, global) = (lines.next(), lines.next(), lines.next(), lines.next());
    let sig = sig
        .and_then(|l| B64.decode(l.trim()).ok())
        .filter(|b| b.len() == 74 && &b[..2] == b"Ed")
        .ok_or(SigningError::Malformed("its signature line"))?;
    let trusted = trusted
        .and_then(|l| l.strip_prefix("trusted comment: "))
        .ok_or(SigningError::Malformed("its trusted comment"))?;
    let global = global
        .and_then(|l| B64.decode(l.trim()).ok())
        .and_then(|b| <[u8; 64]>::try_from(b).ok())
        .ok_or(SigningError::Malformed("its global signature"))?;
    let id: [u8; 8] = sig[2..10].try_into().expect("sliced to 8");
    Ok(Opened {
        key_id: key_id_hex(&id),
        message: envelope.statement,
        signature: sig[10..].try_into().expect("sliced to 64"),
        trusted: trusted.to_owned(),
        global,
    })
}

impl Opened {
    /// Verify with `public_key` and answer the statement.
    pub fn verify(&self, public_key: &str) -> Result<Statement, SigningError> {
        let (id, pk) = decode_public(public_key)?;
        let invalid = || SigningError::Invalid {
            key_id: self.key_id.clone(),
        };
        if key_id_hex(&id) != self.key_id {
            return Err(invalid());
        }
        pk.verify(self.message.as_bytes(), &Signature::new(self.signature))
            .map_err(|_| invalid())?;
        let mut global = self.signature.to_vec();
        global.extend_from_slice(self.trusted.as_bytes());
        pk.verify(&global, &Signature::new(self.global))
            .map_err(|_| invalid())?;
        serde_json::from_str(&self.message).map_err(|_| SigningError::Malformed("its statement"))
    }
}

/// Whether `prefix` covers `repository` (both `HOST/PATH`), by whole
/// path components.
pub fn prefix_covers(prefix: &str, repository: &str) -> bool {
    repository == prefix
        || repository
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with('/'))
}

fn key_id_hex(id: &[u8; 8]) -> String {
    // minisign shows the id as a little-endian number.
    id.iter().rev().map(|b| format!("{b:02X}")).collect()
}

fn encode_public(id: &[u8; 8], pk: &PublicKey) -> String {
    let mut bytes = b"Ed".to_vec();
    bytes.extend_from_slice(id);
    bytes.extend_from_slice(pk.as_ref());
    B64.encode(bytes)
}

fn decode_public(text: &str) -> Result<([u8; 8], PublicKey), SigningError> {
    let bad = || SigningError::BadPublicKey(text.chars().take(80).collect());
    let bytes = B64.decode(text.trim()).map_err(|_| bad())?;
    if bytes.len() != 42 || &bytes[..2] != b"Ed" {
        return Err(bad());
    }
    let id: [u8; 8] = bytes[2..10].try_into().expect("sliced to 8");
    let pk = PublicKey::from_slice(&bytes[10..]).map_err(|_| bad())?;
    Ok((id, pk))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn statement() -> Statement {
        Statement {
            repository: "127.0.0.1:5000/team/p".into(),
            module: "myteam.python".into(),
            version: "0.1.0".into(),
            layer_digest: format!("sha256:{}", "a".repeat(64)),
        }
    }

    #[test]
    fn a_signature_verifies_with_its_key_and_no_other() {
        let dir = tempfile::tempdir().unwrap();
        let ring = Keyring::new(dir.path().join("keys"));
        let alice = ring.create("alice").unwrap();
        let bob = ring.create("bob").unwrap();
        let (layer, key_id) = ring.sign("alice", &statement()).unwrap();
        assert_eq!(key_id, alice.key_id);
        let opened = open(&layer).unwrap();
        assert_eq!(opened.verify(&alice.public_key).unwrap(), statement());
        assert!(opened.verify(&bob.public_key).is_err());
    }

    #[test]
    fn a_changed_statement_does_not_verify() {
        let dir = tempfile::tempdir().unwrap();
        let ring = Keyring::new(dir.path().join("keys"));
        let alice = ring.create("alice").unwrap();
        let (layer, _) = ring.sign("alice", &statement()).unwrap();
        let text = String::from_utf8(layer).unwrap().replace("0.1.0", "0.1.1");
        let err = open(text.as_bytes())
            .unwrap()
            .verify(&alice.public_key)
            .unwrap_err();
        assert!(matches!(err, SigningError::Invalid { .. }), "{err}");
    }

    #[test]
    fn a_prefix_covers_whole_path_components_only() {
        assert!(prefix_covers("h:1/team", "h:1/team/p"));
        assert!(prefix_covers("h:1/team", "h:1/team"));
        assert!(!prefix_covers("h:1/team", "h:1/teamx/p"));
        assert!(!prefix_covers("h:1/team", "h:2/team/p"));
    }

    #[test]
    fn keys_are_listed_and_a_second_key_of_a_name_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let ring = Keyring::new(dir.path().join("keys"));
        ring.create("alice").unwrap();
        assert!(matches!(ring.create("alice"), Err(SigningError::Exists(_))));
        assert!(matches!(ring.create("../x"), Err(SigningError::BadName(_))));
        let names: Vec<String> = ring.list().unwrap().into_iter().map(|k| k.name).collect();
        assert_eq!(names, ["alice"]);
    }
}
