//! Explaining a `find` that does not occur: the same text with other line endings, the same
//! text with other whitespace, and otherwise the closest lines of the file.
//!
//! Only runs on the failure path, and its work is bounded by the file's line count.

use serde_json::{Value, json};

/// A window of the file that resembles `find`.
#[derive(Debug)]
pub struct Candidate {
    pub line: usize,
    pub end_line: usize,
    pub text: String,
    pub similarity: f64,
}

#[derive(Debug, Default)]
pub struct Diagnosis {
    pub line_endings_line: Option<usize>,
    pub whitespace_line: Option<usize>,
    pub closest: Vec<Candidate>,
}

impl Diagnosis {
    pub fn closest_json(&self) -> Value {
        self.closest
            .iter()
            .map(|c| {
                json!({"line": c.line, "end_line": c.end_line,
                       "similarity": (c.similarity * 100.0).round() / 100.0, "text": c.text})
            })
            .collect()
    }
}

const MAX_CANDIDATES: usize = 3;

pub fn missing(text: &str, find: &str) -> Diagnosis {
    let lines: Vec<&str> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let wanted: Vec<&str> = find
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    Diagnosis {
        line_endings_line: line_endings_variant(text, find),
        whitespace_line: whitespace_variant(&lines, &wanted),
        closest: closest(&lines, &wanted),
    }
}

fn line_of(text: &str, offset: usize) -> usize {
    1 + text.as_bytes()[..offset]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

fn line_endings_variant(text: &str, find: &str) -> Option<usize> {
    if !find.contains('\n') {
        return None;
    }
    let lf = find.replace("\r\n", "\n");
    let crlf = lf.replace('\n', "\r\n");
    [lf, crlf]
        .iter()
        .filter(|v| v.as_str() != find)
        .find_map(|v| text.find(v.as_str()))
        .map(|at| line_of(text, at))
}

fn squeeze(line: &str) -> String {
    line.chars().filter(|c| !c.is_whitespace()).collect()
}

/// A window whose lines equal `wanted` once all whitespace is removed (the first and last
/// lines of `wanted` may be fragments of the file's lines).
fn whitespace_variant(lines: &[&str], wanted: &[&str]) -> Option<usize> {
    let wanted: Vec<String> = wanted.iter().map(|l| squeeze(l)).collect();
    let (first, last) = (wanted.first()?, wanted.last()?);
    if wanted.iter().all(String::is_empty) || wanted.len() > lines.len() {
        return None;
    }
    let m = wanted.len();
    let squeezed: Vec<String> = lines.iter().map(|l| squeeze(l)).collect();
    (0..=squeezed.len() - m).find_map(|i| {
        let window = &squeezed[i..i + m];
        let fits = if m == 1 {
            window[0].contains(first.as_str())
        } else {
            window[0].ends_with(first.as_str())
                && window[m - 1].starts_with(last.as_str())
                && window[1..m - 1] == wanted[1..m - 1]
        };
        fits.then_some(i + 1)
    })
}

/// Character-bigram similarity (Dice coefficient) of two trimmed lines, in 0..=1.
fn similarity(a: &str, b: &str) -> f64 {
    let bigrams = |s: &str| {
        let chars: Vec<char> = s.trim().chars().collect();
        let mut pairs: Vec<(char, char)> = chars.windows(2).map(|w| (w[0], w[1])).collect();
        pairs.sort_unstable();
        pairs
    };
    let (x, y) = (bigrams(a), bigrams(b));
    if x.is_empty() || y.is_empty() {
        return if a.trim() == b.trim() { 1.0 } else { 0.0 };
    }
    let (mut i, mut j, mut shared) = (0, 0, 0);
    while i < x.len() && j < y.len() {
        match x[i].cmp(&y[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    2.0 * shared as f64 / (x.len() + y.len()) as f64
}

/// The windows most like `wanted`: rank lines against its first non-blank line, then score
/// the window each top line starts against every line of `wanted`.
fn closest(lines: &[&str], wanted: &[&str]) -> Vec<Candidate> {
    let Some((anchor_at, anchor)) = wanted
        .iter()
        .enumerate()
        .find(|(_, l)| !l.trim().is_empty())
    else {
        return Vec::new();
    };
    let mut ranked: Vec<(f64, usize)> = lines
        .iter()
        .enumerate()
        .map(|(i, line)| (similarity(line, anchor), i))
        .filter(|(s, _)| *s > 0.0)
        .collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut out: Vec<Candidate> = ranked
        .iter()
        .take(MAX_CANDIDATES * 4)
        .filter_map(|&(_, i)| {
            let start = i.checked_sub(anchor_at)?;
            let end = (start + wanted.len()).min(lines.len());
            let window = &lines[start..end];
            let score: f64 = wanted
                .iter()
                .zip(window)
                .map(|(w, l)| similarity(l, w))
                .sum::<f64>()
                / wanted.len() as f64;
            Some(Candidate {
                line: start + 1,
                end_line: end,
                text: shorten(&window.join("\n"), 400),
                similarity: score,
            })
        })
        .collect();
    out.sort_by(|a, b| {
        b.similarity
            .total_cmp(&a.similarity)
            .then(a.line.cmp(&b.line))
    });
    out.dedup_by_key(|c| c.line);
    out.truncate(MAX_CANDIDATES);
    out
}

/// At most `max` characters of `text`, with an ellipsis when cut.
pub fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_whitespace_and_line_ending_variants_and_the_closest_line() {
        let text = "<?php\nfunction f() {\n    return $a - $b;\n}\n";
        let d = missing(text, "return $a-$b;");
        assert_eq!(d.whitespace_line, Some(3));
        let d = missing(text, "return $a * $b;");
        assert_eq!(d.whitespace_line, None);
        assert_eq!(d.closest.first().map(|c| c.line), Some(3));
        let d = missing("a\r\nb\nc\n", "a\nb");
        assert_eq!(d.line_endings_line, Some(1));
        let d = missing("x\n  if (a) {\n    go();\n  }\n", "if (a) {\n  go();\n}");
        assert_eq!(d.whitespace_line, Some(2));
    }
}
