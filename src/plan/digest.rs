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

    /// The digest of `parts` one after the other.
    pub fn of_parts(parts: &[&[u8]]) -> Self {
        let mut hasher = Sha256::new();
        parts.iter().for_each(|part| hasher.update(part));
        Self(hasher.finalize().into())
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

/// Hash states of a file's bytes at every [`Marks::EVERY`] bytes, so that a new version that
/// keeps a prefix of them is hashed from the last mark inside that prefix: one edit near the
/// end of a large file hashes its tail, not the file again. Empty for smaller files.
#[derive(Clone, Default)]
pub struct Marks(std::sync::Arc<Vec<Sha256>>);

impl Marks {
    /// A copy whose states are allocated anew, by the calling thread.
    pub fn deep_copy(&self) -> Self {
        Self(std::sync::Arc::new(self.0.to_vec()))
    }

    /// Bytes between two marks (a multiple of sha256's 64-byte block).
    pub const EVERY: usize = 1 << 20;

    /// The digest of `bytes` and the states at every mark.
    pub fn of(bytes: &[u8]) -> (Digest, Self) {
        if bytes.len() < 2 * Self::EVERY {
            return (Digest::of(bytes), Self::default());
        }
        let mut hasher = Sha256::new();
        let mut marks = Vec::with_capacity(bytes.len() / Self::EVERY);
        let mut chunks = bytes.chunks_exact(Self::EVERY);
        for chunk in &mut chunks {
            hasher.update(chunk);
            marks.push(hasher.clone());
        }
        hasher.update(chunks.remainder());
        (
            Digest(hasher.finalize().into()),
            Self(std::sync::Arc::new(marks)),
        )
    }

    /// The digest of `after`, a new version of `before` (the bytes these marks were taken of)
    /// that the caller knows to keep at least `before`'s first `shared` bytes (the start of
    /// its first change): only what follows is compared, so an edit near the end of a large
    /// file is neither compared nor hashed from the start.
    pub fn digest_of(&self, before: &[u8], after: &[u8], shared: usize) -> Digest {
        let shared = shared.min(before.len()).min(after.len());
        debug_assert_eq!(before[..shared], after[..shared]);
        let prefix = shared + super::splice::common_prefix(&before[shared..], &after[shared..]);
        let kept = (prefix / Self::EVERY).min(self.0.len());
        let Some(mark) = kept.checked_sub(1).map(|i| &self.0[i]) else {
            return Digest::of(after);
        };
        let mut hasher = mark.clone();
        hasher.update(&after[kept * Self::EVERY..]);
        Digest(hasher.finalize().into())
    }
}

impl fmt::Debug for Marks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Marks({})", self.0.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_sharing_a_prefix_is_hashed_from_its_marks() {
        let before: Vec<u8> = (0..5 * Marks::EVERY + 123)
            .map(|i| (i % 251) as u8)
            .collect();
        let (digest, marks) = Marks::of(&before);
        assert_eq!(digest, Digest::of(&before));
        for at in [
            0,
            17,
            Marks::EVERY - 1,
            Marks::EVERY,
            3 * Marks::EVERY + 5,
            before.len(),
        ] {
            for inserted in [&b""[..], b"x", b"a longer insertion\n"] {
                let mut after = before[..at].to_vec();
                after.extend_from_slice(inserted);
                after.extend_from_slice(&before[(at + 1).min(before.len())..]);
                assert_eq!(
                    marks.digest_of(&before, &after, 0),
                    Digest::of(&after),
                    "{at}"
                );
                let shared = at.min(after.len());
                assert_eq!(
                    marks.digest_of(&before, &after, shared),
                    Digest::of(&after),
                    "{at}"
                );
            }
        }
        let shorter = &before[..2 * Marks::EVERY + 9];
        assert_eq!(marks.digest_of(&before, shorter, 0), Digest::of(shorter));
        assert_eq!(super::super::splice::common_prefix(b"abcd", b"abxd"), 2);
        assert_eq!(super::super::splice::common_prefix(b"ab", b"abc"), 2);
    }

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
