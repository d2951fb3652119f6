//! JSONC files: which files are JSON with comments and trailing commas (`*.jsonc`,
//! `tsconfig*.json`, `jsconfig*.json`, `.vscode/*.json`), and the view of them tree-sitter-json
//! parses: every trailing comma (one followed only by whitespace and comments before `}` or
//! `]`) masked by a space. The mask keeps every byte offset, so edits planned on the view apply
//! to the file itself, where the trailing commas stay.

/// Whether `path` (root-relative, `/`-separated) is a JSONC file.
pub fn is_jsonc(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let (dir, name) = lower.rsplit_once('/').unwrap_or(("", &lower));
    let json = name.ends_with(".json");
    name.ends_with(".jsonc")
        || (json && (name.starts_with("tsconfig") || name.starts_with("jsconfig")))
        || (json && (dir == ".vscode" || dir.ends_with("/.vscode")))
}

/// `src` with its trailing commas replaced by spaces (strings and comments are skipped).
pub fn mask_trailing_commas(src: &str) -> String {
    let bytes = src.as_bytes();
    let mut out = bytes.to_vec();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = string_end(bytes, i),
            b'/' if bytes.get(i + 1).is_some_and(|&c| c == b'/' || c == b'*') => {
                i = comment_end(bytes, i)
            }
            b',' => {
                if matches!(bytes.get(next_token(bytes, i + 1)), Some(b'}' | b']')) {
                    out[i] = b' ';
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    // Only an ASCII comma became an ASCII space: still UTF-8.
    String::from_utf8(out).unwrap_or_else(|_| src.to_owned())
}

/// After the last entry of a container was deleted on the masked view: when that entry had
/// a trailing comma in the file (removed with its lines), the comma the view's deletion also
/// took from the entry before it stays, so the container keeps its trailing-comma style.
pub fn keep_trailing_comma(source: &str, view: &str, edits: &mut Vec<super::Edit>) {
    let masked = |range: &std::ops::Range<usize>| {
        (range.start..range.end).any(|i| {
            source.as_bytes().get(i) == Some(&b',') && view.as_bytes().get(i) == Some(&b' ')
        })
    };
    let ranges: Vec<std::ops::Range<usize>> = edits
        .iter()
        .filter(|e| e.text.is_empty())
        .map(|e| e.range.clone())
        .collect();
    edits.retain(|e| {
        let lone_comma = e.text.is_empty()
            && e.range.len() == 1
            && source.as_bytes().get(e.range.start) == Some(&b',');
        !(lone_comma && ranges.iter().any(|r| r.start > e.range.start && masked(r)))
    });
}

/// Just after the string starting at `start` (its opening quote).
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// Just after the `//` or `/* */` comment starting at `start`.
fn comment_end(bytes: &[u8], start: usize) -> usize {
    let rest = &bytes[start..];
    let end = if rest.starts_with(b"//") {
        rest.iter().position(|&c| c == b'\n')
    } else {
        rest.windows(2).position(|w| w == b"*/").map(|p| p + 2)
    };
    end.map_or(bytes.len(), |e| start + e)
}

/// The first byte at or after `from` that is neither whitespace nor in a comment.
fn next_token(bytes: &[u8], from: usize) -> usize {
    let mut i = from;
    while i < bytes.len() {
        match bytes[i] {
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            b'/' if bytes.get(i + 1).is_some_and(|&c| c == b'/' || c == b'*') => {
                i = comment_end(bytes, i)
            }
            _ => return i,
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonc_files_are_named_by_convention() {
        for yes in [
            "a.jsonc",
            "tsconfig.json",
            "pkg/tsconfig.build.json",
            "jsconfig.json",
            ".vscode/settings.json",
            "app/.vscode/launch.json",
        ] {
            assert!(is_jsonc(yes), "{yes}");
        }
        for no in [
            "package.json",
            "vscode/settings.json",
            "tsconfig.yaml",
            "a.json",
        ] {
            assert!(!is_jsonc(no), "{no}");
        }
    }

    #[test]
    fn only_trailing_commas_are_masked() {
        let src = "{\n  // c, ]\n  \"a,}\": [1, 2,],\n  \"b\": 2, /* x */\n}\n";
        let masked = mask_trailing_commas(src);
        assert_eq!(
            masked,
            "{\n  // c, ]\n  \"a,}\": [1, 2 ],\n  \"b\": 2  /* x */\n}\n"
        );
        assert_eq!(masked.len(), src.len());
        let plain = "{\"a\": [1, 2], \"s\": \"x\\\",]\"}";
        assert_eq!(mask_trailing_commas(plain), plain);
    }
}
