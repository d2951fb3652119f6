//! The reference a receipt tree files as `prior/<path>` for a pre-image: the receipt whose
//! post-image is this receipt's pre-image, and how many receipts a reader passes through to
//! reach a whole blob.
//!
//! ```text
//! identedit-prior/1 <receipt commit id> <depth>\n
//! ```

use gix::ObjectId;

const MAGIC: &str = "identedit-prior/1";

/// Receipts a reader may pass through before a whole pre-image.
pub const MAX_DEPTH: usize = 16;

/// The reference to `commit` at `depth`.
pub fn encode(commit: ObjectId, depth: usize) -> Vec<u8> {
    format!("{MAGIC} {commit} {depth}\n").into_bytes()
}

/// The receipt and depth a `prior/<path>` blob names.
pub fn decode(bytes: &[u8]) -> Option<(ObjectId, usize)> {
    let text = std::str::from_utf8(bytes).ok()?.strip_suffix('\n')?;
    let mut words = text.split(' ');
    if words.next()? != MAGIC {
        return None;
    }
    let commit = ObjectId::from_hex(words.next()?.as_bytes()).ok()?;
    let depth = words.next()?.parse().ok()?;
    words.next().is_none().then_some((commit, depth))
}

#[cfg(test)]
mod tests {
    use super::{decode, encode};

    #[test]
    fn a_reference_reads_back() {
        let id = gix::ObjectId::from_hex(b"0123456789abcdef0123456789abcdef01234567").expect("hex");
        assert_eq!(decode(&encode(id, 3)), Some((id, 3)));
        assert_eq!(decode(b"identedit-prior/1 0123 3\n"), None);
        let mut extra = encode(id, 3);
        extra.splice(extra.len() - 1.., *b" x\n");
        assert_eq!(decode(&extra), None);
    }
}
