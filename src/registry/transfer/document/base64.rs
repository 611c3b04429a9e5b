//! Standard base64 (RFC 4648 §4, `+/`, `=` padding) for the component
//! bytes a self-contained document carries. Fifty lines instead of a
//! dependency: the document needs one alphabet, one direction each way,
//! and a strict decoder (no whitespace, no missing padding, no stray
//! bits) so that one component has exactly one text.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> shift) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Decode `text`, refusing anything [`encode`] would not have written.
pub fn decode(text: &str) -> Result<Vec<u8>, String> {
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(4) {
        return Err(format!(
            "base64 text of {} characters: a multiple of 4 is needed",
            bytes.len()
        ));
    }
    let value = |c: u8, at: usize| -> Result<u32, String> {
        ALPHABET
            .iter()
            .position(|&a| a == c)
            .map(|v| v as u32)
            .ok_or_else(|| format!("{:?} at offset {at} is not a base64 character", c as char))
    };
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    let chunks = bytes.len() / 4;
    for (k, chunk) in bytes.chunks(4).enumerate() {
        let pad = chunk.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && k + 1 != chunks) {
            return Err(format!("misplaced '=' padding in chunk {k}"));
        }
        let mut n = 0u32;
        for (i, &c) in chunk[..4 - pad].iter().enumerate() {
            n |= value(c, k * 4 + i)? << (18 - 6 * i);
        }
        if n & ((1 << (8 * pad)) - 1) != 0 {
            return Err(format!("stray bits before the padding in chunk {k}"));
        }
        out.extend_from_slice(&n.to_be_bytes()[1..4 - pad]);
    }
    Ok(out)
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
