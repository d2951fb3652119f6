//! The hash contract (documented in README.md; agents and tests may recompute these):
//!
//! - **content hash** of a node: the first 16 hex digits of sha256 of the node's bytes;
//! - **identity** of a node: the first 16 hex digits of
//!   sha256(`kind` + `"\n"` + qualified name + `"\n"` + the node's bytes);
//! - **line hash**: the first 8 hex digits of sha256 of the line without its terminator
//!   (`\n`, `\r\n` or a lone `\r`);
//! - **file hash**: the full sha256 of the file's bytes.

use crate::plan::Digest;

fn prefix(bytes: &[u8], len: usize) -> String {
    Digest::of(bytes).hex_prefix(len)
}

pub fn content_hash(text: &[u8]) -> String {
    prefix(text, 16)
}

pub fn identity(kind: &str, qualified_name: &str, text: &[u8]) -> String {
    let mut bytes = Vec::with_capacity(kind.len() + qualified_name.len() + text.len() + 2);
    bytes.extend_from_slice(kind.as_bytes());
    bytes.push(b'\n');
    bytes.extend_from_slice(qualified_name.as_bytes());
    bytes.push(b'\n');
    bytes.extend_from_slice(text);
    prefix(&bytes, 16)
}

pub fn line_hash(line: &[u8]) -> String {
    prefix(line, 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_prefixes_of_sha256() {
        // sha256("") = e3b0c442 98fc1c14 ...
        assert_eq!(line_hash(b""), "e3b0c442");
        assert_eq!(content_hash(b""), "e3b0c44298fc1c14");
        assert_eq!(identity("", "", b""), content_hash(b"\n\n"));
    }
}
