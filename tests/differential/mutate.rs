//! Line-level mutations from a fixed seed: the edits an agent gets wrong.

use std::ops::Range;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Delete,
    Duplicate,
    Indent,
    DropCloser,
    Stray,
}

/// One mutated file and the one splice that made it.
pub struct Mutant {
    pub kind: Kind,
    pub line: usize,
    pub bytes: Vec<u8>,
    pub old: Range<usize>,
    pub new: Range<usize>,
    pub note: String,
}

impl Mutant {
    /// The file unchanged (an empty edit).
    pub fn identity(base: &[u8]) -> Self {
        Mutant {
            kind: Kind::Stray,
            line: 0,
            bytes: base.to_vec(),
            old: 0..0,
            new: 0..0,
            note: String::new(),
        }
    }

    pub fn describe(&self) -> String {
        format!("{:?} line {} {}", self.kind, self.line + 1, self.note)
    }
}

/// xorshift64*: deterministic and good enough to pick lines.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const STRAY: &[&str] = &[
    "(", ")", "{", "}", "[", "]", ";", ":", ",", "=", "@", "$", "\"", "'", "`", "<", ">", "::",
    "def", "end", "fi", "if", "=>", "\\", "#", ".",
];

/// `count` distinct mutants of `base` (a seed per language, so each language gets its own).
pub fn mutants(base: &[u8], count: usize, seed: &str) -> Vec<Mutant> {
    let text = std::str::from_utf8(base).expect("utf-8 sample");
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut rng = Rng(seed.bytes().fold(0x9E37_79B9_7F4A_7C15, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01B3)
    }));
    let mut out: Vec<Mutant> = Vec::new();
    let mut attempts = 0;
    while out.len() < count && attempts < count * 20 {
        attempts += 1;
        let kind = [
            Kind::Delete,
            Kind::Duplicate,
            Kind::Indent,
            Kind::DropCloser,
            Kind::Stray,
        ][rng.below(5)];
        let line = rng.below(lines.len());
        let Some((replacement, note)) = mutate_line(kind, &lines, line, &mut rng) else {
            continue;
        };
        let mut new_lines: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
        new_lines[line] = replacement;
        let bytes = new_lines.concat().into_bytes();
        if bytes == base || out.iter().any(|m| m.bytes == bytes) {
            continue;
        }
        let (old, new) = splice(base, &bytes);
        out.push(Mutant {
            kind,
            line,
            bytes,
            old,
            new,
            note,
        });
    }
    out
}

fn mutate_line(kind: Kind, lines: &[&str], i: usize, rng: &mut Rng) -> Option<(String, String)> {
    let line = lines[i];
    let body = line.trim_end_matches(['\n', '\r']);
    let end = &line[body.len()..];
    match kind {
        Kind::Delete => Some((String::new(), format!("{body:?}"))),
        Kind::Duplicate => Some((format!("{line}{line}"), format!("{body:?}"))),
        Kind::Indent => {
            let content = body.trim_start();
            if content.is_empty() {
                return None;
            }
            let indent = &body[..body.len() - content.len()];
            let new_indent = match rng.below(4) {
                0 => indent
                    .get(..indent.len().saturating_sub(1 + rng.below(4)))?
                    .to_owned(),
                1 => format!("{indent}{}", " ".repeat(1 + rng.below(4))),
                2 => format!("{indent}\t"),
                _ => indent.replacen("    ", "\t", 1),
            };
            Some((
                format!("{new_indent}{content}{end}"),
                format!("{indent:?} -> {new_indent:?}"),
            ))
        }
        Kind::DropCloser => {
            let at = body.rfind([')', ']', '}'])?;
            Some((
                format!("{}{}{end}", &body[..at], &body[at + 1..]),
                format!("{body:?}"),
            ))
        }
        Kind::Stray => {
            let token = STRAY[rng.below(STRAY.len())];
            let cuts: Vec<usize> = (0..=body.len())
                .filter(|&c| body.is_char_boundary(c))
                .collect();
            let at = cuts[rng.below(cuts.len())];
            let new = format!("{}{token}{}{end}", &body[..at], &body[at..]);
            Some((new, format!("{token:?} at {at} of {body:?}")))
        }
    }
}

/// The one splice from `a` to `b`: common prefix and suffix left out.
fn splice(a: &[u8], b: &[u8]) -> (Range<usize>, Range<usize>) {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let max_suffix = a.len().min(b.len()) - prefix;
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(max_suffix)
        .take_while(|(x, y)| x == y)
        .count();
    (prefix..a.len() - suffix, prefix..b.len() - suffix)
}
