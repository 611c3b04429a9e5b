//! Standard base64 (RFC 4648 §4, `+/`, `=` padding) for the component
//! bytes a self-contained document carries: the `base64` crate's standard
//! engine, whose decoder is strict (no whitespace, no missing padding, no
//! stray bits) so that one component has exactly one text. What it
//! refuses is explained here, naming the place.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

pub fn encode(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

/// Decode `text`, refusing anything [`encode`] would not have written.
pub fn decode(text: &str) -> Result<Vec<u8>, String> {
    STANDARD
        .decode(text)
        .map_err(|e| fault(text).unwrap_or_else(|| e.to_string()))
}

/// The first thing in `text` that [`encode`] would not have written.
fn fault(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(4) {
        let len = bytes.len();
        return Some(format!(
            "base64 text of {len} characters: a multiple of 4 is needed"
        ));
    }
    let chunks = bytes.len() / 4;
    for (k, chunk) in bytes.chunks(4).enumerate() {
        let pad = chunk.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && k + 1 != chunks) {
            return Some(format!("misplaced '=' padding in chunk {k}"));
        }
        let mut n = 0u32;
        for (i, &c) in chunk[..4 - pad].iter().enumerate() {
            let Some(value) = ALPHABET.iter().position(|&a| a == c) else {
                let at = k * 4 + i;
                return Some(format!(
                    "{:?} at offset {at} is not a base64 character",
                    c as char
                ));
            };
            n |= (value as u32) << (18 - 6 * i);
        }
        if n & ((1 << (8 * pad)) - 1) != 0 {
            return Some(format!("stray bits before the padding in chunk {k}"));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rfc_4648_vectors_encode_and_decode() {
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(encode(plain.as_bytes()), coded);
            assert_eq!(decode(coded).unwrap(), plain.as_bytes());
        }
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(decode(&encode(&all)).unwrap(), all);
    }

    #[test]
    fn text_encode_would_not_write_is_refused() {
        assert!(decode("Zg=").unwrap_err().contains("multiple of 4"));
        assert!(decode("Zg==Zg==").unwrap_err().contains("padding"));
        assert!(decode("Zh==").unwrap_err().contains("stray bits"));
        assert!(decode("Zm9 ").unwrap_err().contains("not a base64"));
    }
}
