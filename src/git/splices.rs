//! A post-image stored as the edit's splices on its pre-image: what the ledger keeps for a
//! modified file instead of a second full blob, so a one-line change of a 9 MB file stores a
//! few bytes. The blob (`splices/<path>` in the receipt tree) reads:
//!
//! ```text
//! identedit-splices/1 <pre-image length> <post-image length>\n
//! <start> <end> <length>\n<length bytes>     (one per replaced range, in order)
//! ```
//!
//! `start..end` is the replaced range of the pre-image, the bytes its replacement. A
//! receipt is written this way only when the splices were checked to rebuild the post-image
//! exactly (every byte outside them compared); reading back rebuilds and checks the lengths,
//! and the callers check the result against the receipt's digests.

use std::ops::Range;

const MAGIC: &str = "identedit-splices/1";

/// The splices turning `before` into `after`, given the replaced ranges (in `before`, and
/// where their text landed in `after`); `None` when they do not rebuild `after` exactly or
/// would not be smaller than half of it.
pub fn encode(
    before: &[u8],
    after: &[u8],
    ranges: &[(Range<usize>, Range<usize>)],
) -> Option<Vec<u8>> {
    let mut out = format!("{MAGIC} {} {}\n", before.len(), after.len()).into_bytes();
    let (mut old_at, mut new_at) = (0usize, 0usize);
    for (old, new) in ranges {
        let kept = old.start.checked_sub(old_at)?;
        if new.start.checked_sub(new_at)? != kept || old.end < old.start || new.end < new.start {
            return None;
        }
        if before.get(old_at..old.start)? != after.get(new_at..new.start)? {
            return None;
        }
        let text = after.get(new.clone())?;
        out.extend_from_slice(format!("{} {} {}\n", old.start, old.end, text.len()).as_bytes());
        out.extend_from_slice(text);
        (old_at, new_at) = (old.end, new.end);
        if out.len() > after.len() / 2 {
            return None;
        }
    }
    let tails_match = before.get(old_at..)? == after.get(new_at..)?;
    tails_match.then_some(out)
}

/// The post-image `encoded` describes on `before`; `None` when it does not read or does not
/// fit `before`.
pub fn rebuild(before: &[u8], encoded: &[u8]) -> Option<Vec<u8>> {
    let (header, mut rest) = line(encoded)?;
    let mut words = header.split(' ');
    let lengths = (
        words.next()?,
        number(words.next()?)?,
        number(words.next()?)?,
    );
    if lengths.0 != MAGIC || lengths.1 != before.len() {
        return None;
    }
    let mut out = Vec::with_capacity(lengths.2);
    let mut at = 0usize;
    while !rest.is_empty() {
        let (splice, tail) = line(rest)?;
        let mut words = splice.split(' ');
        let (start, end, len) = (
            number(words.next()?)?,
            number(words.next()?)?,
            number(words.next()?)?,
        );
        out.extend_from_slice(before.get(at..start)?);
        let text = tail.get(..len)?;
        out.extend_from_slice(text);
        (at, rest) = (end, tail.get(len..)?);
    }
    out.extend_from_slice(before.get(at..)?);
    (out.len() == lengths.2).then_some(out)
}

fn line(bytes: &[u8]) -> Option<(&str, &[u8])> {
    let end = bytes.iter().position(|&b| b == b'\n')?;
    Some((std::str::from_utf8(&bytes[..end]).ok()?, &bytes[end + 1..]))
}

fn number(word: &str) -> Option<usize> {
    word.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splices_round_trip_and_refuse_what_does_not_rebuild() {
        let before = b"alpha\nbeta\ngamma\n".repeat(8);
        let mut after = before.clone();
        after.splice(6..10, b"BETA!".iter().copied());
        let ranges = vec![(6..10, 6..11)];
        let encoded = encode(&before, &after, &ranges).expect("encodes");
        assert_eq!(rebuild(&before, &encoded).as_deref(), Some(&after[..]));
        // A range that leaves other bytes changed is refused (the ledger stores the blob).
        let mut other = after.clone();
        other[100] = b'X';
        assert_eq!(encode(&before, &other, &ranges), None);
        // A pre-image of another length does not rebuild.
        assert_eq!(rebuild(&before[1..], &encoded), None);
        // A truncated encoding does not rebuild.
        assert_eq!(rebuild(&before, &encoded[..encoded.len() - 1]), None);
    }

    #[test]
    fn a_change_as_large_as_the_file_is_not_encoded() {
        let before = b"abc".to_vec();
        let after = b"xyz".to_vec();
        assert_eq!(encode(&before, &after, &[(0..3, 0..3)]), None);
    }
}
