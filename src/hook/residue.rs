//! Edit-format residue: lines an agent's edit format leaves behind when an edit was pasted
//! instead of applied. A whole line (leading and trailing whitespace ignored, as Aider's
//! parser ignores it) counts when it is:
//!
//! - a SEARCH head: 5 to 9 `<`, one space, `SEARCH`, an optional `>`;
//! - a REPLACE tail: 5 to 9 `>`, one space, `REPLACE`;
//! - a divider (5 to 9 `=`) inside an open SEARCH block (after a head, before its tail), so
//!   reStructuredText underlines and similar lines elsewhere are not flagged;
//! - a Codex envelope line: `*** Begin Patch` or `*** End Patch`.
//!
//! Git's own conflict markers (`<<<<<<< HEAD`) are not residue of an edit format and are left
//! to `git diff --check`.

use serde::Serialize;

/// One residue line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Residue {
    /// 1-based line number.
    pub line: usize,
    /// The marker as found (trimmed), e.g. `<<<<<<< SEARCH`.
    pub marker: String,
}

fn run_of(line: &str, ch: char) -> usize {
    line.chars().take_while(|&c| c == ch).count()
}

fn is_head(line: &str) -> bool {
    let n = run_of(line, '<');
    if !(5..=9).contains(&n) {
        return false;
    }
    let rest = &line[n..];
    rest == " SEARCH" || rest == " SEARCH>"
}

fn is_tail(line: &str) -> bool {
    let n = run_of(line, '>');
    (5..=9).contains(&n) && &line[n..] == " REPLACE"
}

fn is_divider(line: &str) -> bool {
    let n = run_of(line, '=');
    (5..=9).contains(&n) && n == line.len()
}

fn is_envelope(line: &str) -> bool {
    line == "*** Begin Patch" || line == "*** End Patch"
}

/// Every residue line of `bytes` (any line ending; invalid UTF-8 lines are skipped).
pub fn scan(bytes: &[u8]) -> Vec<Residue> {
    let mut out = Vec::new();
    let mut open = false;
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let Ok(text) = std::str::from_utf8(raw) else {
            continue;
        };
        let line = text.trim();
        let hit = if is_head(line) {
            open = true;
            true
        } else if is_tail(line) {
            open = false;
            true
        } else {
            (open && is_divider(line)) || is_envelope(line)
        };
        if hit {
            out.push(Residue {
                line: i + 1,
                marker: line.to_owned(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<usize> {
        scan(text.as_bytes()).into_iter().map(|r| r.line).collect()
    }

    #[test]
    fn a_whole_block_is_flagged_line_by_line() {
        let text = "a\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\nb\n";
        assert_eq!(lines(text), [2, 4, 6]);
        assert_eq!(scan(text.as_bytes())[0].marker, "<<<<<<< SEARCH");
    }

    #[test]
    fn marker_variants_and_indentation_are_accepted() {
        let text = "  <<<<< SEARCH\r\n<<<<<<<<< SEARCH>\n=========  \n\t>>>>>>>>> REPLACE\n";
        assert_eq!(lines(text), [1, 2, 3, 4]);
    }

    #[test]
    fn a_divider_outside_a_block_is_not_residue() {
        assert_eq!(lines("Title\n=======\n\ntext\n"), Vec::<usize>::new());
        assert_eq!(lines("<<<<<<< SEARCH\n>>>>>>> REPLACE\n=======\n"), [1, 2]);
    }

    #[test]
    fn codex_envelope_lines_are_residue() {
        let text = "x\n*** Begin Patch\n*** Update File: a\n*** End Patch\n";
        assert_eq!(lines(text), [2, 4]);
    }

    #[test]
    fn lookalikes_are_not_residue() {
        let text = "<<<<<<< HEAD\n<<<< SEARCH\n<<<<<<<<<< SEARCH\ns = \"<<<<<<< SEARCH\"\n>>>>>>> REPLACE me\n** Begin Patch\n";
        assert_eq!(lines(text), Vec::<usize>::new());
    }
}
