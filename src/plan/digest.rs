//! sha256 digests of file contents: computing, parsing (`sha256:` prefix optional) and printing.

use std::fmt;

use sha2::{Digest as _, Sha256};

use crate::error::{Error, Result};

/// The sha256 of some bytes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Digest([u8; 32]);

impl Digest {
    pub fn of(bytes: &[u8]) -> Self {
        Self(Sha256::digest(bytes).into())
    }

    /// Parses 64 hex digits, optionally prefixed by `sha256:`; upper case is accepted.
    pub fn parse(text: &str) -> Result<Self> {
        let hex = text.strip_prefix("sha256:").unwrap_or(text);
        if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(Error::malformed(format!(
                "`{text}` is not a sha256 (64 hex digits, optionally prefixed by `sha256:`)"
            )));
        }
        let mut out = [0u8; 32];
        for (i, chunk) in hex.as_bytes().chunks(2).enumerate() {
            out[i] = (hex_value(chunk[0]) << 4) | hex_value(chunk[1]);
        }
        Ok(Self(out))
    }

    pub fn to_hex(self) -> String {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut out = String::with_capacity(64);
        for byte in self.0 {
            out.push(char::from(DIGITS[usize::from(byte >> 4)]));
            out.push(char::from(DIGITS[usize::from(byte & 0xf)]));
        }
        out
    }

    /// The first `len` hex digits (the short hashes of lines and structures).
    pub fn hex_prefix(self, len: usize) -> String {
        let mut hex = self.to_hex();
        hex.truncate(len);
        hex
    }
}

fn hex_value(b: u8) -> u8 {
    match b {
        b'0'..=b'9' => b - b'0',
        b'a'..=b'f' => b - b'a' + 10,
        _ => b - b'A' + 10,
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sha256:{self}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_accepts_prefix_and_upper_case() {
        let d = Digest::of(b"abc");
        let hex = d.to_hex();
        assert_eq!(
            hex,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(Digest::parse(&hex).ok(), Some(d));
        assert_eq!(
            Digest::parse(&format!("sha256:{}", hex.to_uppercase())).ok(),
            Some(d)
        );
        assert!(Digest::parse("abc").is_err());
        assert!(Digest::parse(&"g".repeat(64)).is_err());
    }
}
