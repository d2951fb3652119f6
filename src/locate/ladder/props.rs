//! Property: the mistakes agents make on the lines a block does not change (trailing
//! whitespace lost, indentation shifted, tabs written as spaces, indentation drawn at twice
//! the file's scale, curly quotes, other line endings, a spurious leading blank line) never
//! change the bytes a block writes: the result
//! is the clean block's, or a refusal (with the unique lines generated here, never a refusal).
use proptest::prelude::*;

use super::*;
use crate::locate::file_text::punctuation;
use crate::plan::Side;

/// A generated file line: indentation level, a unique name, a quoted value, trailing spaces.
#[derive(Clone, Debug)]
struct Gen {
    level: usize,
    quoted: bool,
    trailing: usize,
}

#[derive(Clone, Copy, Debug)]
enum Defect {
    TrailingLost,
    Shift,
    Spaces,
    Rescaled,
    Curly,
    Endings,
    LeadingBlank,
}

const DEFECTS: [Defect; 7] = [
    Defect::TrailingLost,
    Defect::Shift,
    Defect::Spaces,
    Defect::Rescaled,
    Defect::Curly,
    Defect::Endings,
    Defect::LeadingBlank,
];

fn content(i: usize, g: &Gen, tabs: bool) -> String {
    let indent = if tabs {
        "\t".repeat(g.level)
    } else {
        "    ".repeat(g.level)
    };
    let value = if g.quoted {
        format!("\"s{i}\"")
    } else {
        format!("{i}")
    };
    format!("{indent}v{i} = {value}{}", " ".repeat(g.trailing))
}

/// One block line before the defects: its text, terminator and pairing.
#[derive(Clone)]
struct Piece {
    text: String,
    term: String,
    side: Side,
}

fn defect(p: &Piece, d: Defect) -> Piece {
    let mut p = p.clone();
    let changed = p.side != Side::Both;
    match d {
        Defect::TrailingLost if !changed => p.text = p.text.trim_end().to_owned(),
        Defect::Curly if !changed => {
            let mut open = true;
            p.text = p
                .text
                .chars()
                .map(|c| match c {
                    '"' => {
                        open = !open;
                        if open { '\u{201d}' } else { '\u{201c}' }
                    }
                    c => c,
                })
                .collect();
        }
        // The whole block is written at another indentation or style: a uniform change.
        Defect::Shift => p.text = format!("  {}", p.text),
        Defect::Spaces => p.text = p.text.replace('\t', "    "),
        Defect::Rescaled => {
            let (indent, rest) = tier::split_indent(&p.text);
            p.text = format!("{}{rest}", " ".repeat(2 * tier::indent_width(indent)));
        }
        Defect::Endings => p.term = if p.term == "\n" { "\r\n" } else { "\n" }.into(),
        _ => {}
    }
    p
}

fn block_of(pieces: &[Piece], scripted: bool, blank: bool) -> Block {
    let mut block = Block::default();
    if blank {
        block.search.push('\n');
        block.replace.push('\n');
        block.script.push(Side::Both);
    }
    for p in pieces {
        let line = format!("{}{}", p.text, p.term);
        if p.side != Side::New {
            block.search.push_str(&line);
        }
        if p.side != Side::Old {
            block.replace.push_str(&line);
        }
        block.script.push(p.side);
    }
    if !scripted {
        block.script.clear();
    }
    block
}

fn apply(text: &str, block: &Block) -> Option<String> {
    let r = resolve(
        block,
        &FileText::new(text),
        "f",
        0,
        "b",
        Digest::of(b""),
        false,
    )
    .ok()?;
    let out = crate::plan::splice::apply(text.as_bytes(), &r.splices);
    Some(String::from_utf8_lossy(&out).into_owned())
}

fn case() -> impl Strategy<Value = (Vec<Gen>, bool, u8, usize, usize, bool, bool)> {
    let line = (0..3usize, any::<bool>(), 0..3usize).prop_map(|(level, quoted, trailing)| Gen {
        level,
        quoted,
        trailing,
    });
    (
        prop::collection::vec(line, 4..14),
        any::<bool>(),
        0..3u8,
        0..100usize,
        2..5usize,
        any::<bool>(),
        any::<bool>(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn defects_on_unchanged_lines_never_change_the_result(
        (gens, tabs, endings, at, len, insert, scripted) in case()
    ) {
        let n = gens.len();
        let term = |i: usize| match endings {
            0 => "\n",
            1 => "\r\n",
            _ => if i.is_multiple_of(2) { "\r\n" } else { "\n" },
        };
        let text: String = gens.iter().enumerate()
            .map(|(i, g)| format!("{}{}", content(i, g, tabs), term(i)))
            .collect();
        let (first, len) = (at % (n - 1), len.min(n - at % (n - 1)));
        let changed = first + len / 2;
        let mut pieces = Vec::new();
        let mut expected = String::new();
        for (i, g) in gens.iter().enumerate() {
            let (line, t) = (content(i, g, tabs), term(i));
            let inside = (first..first + len).contains(&i);
            if inside && i == changed {
                let indent = if tabs { "\t".repeat(g.level) } else { "    ".repeat(g.level) };
                let new = format!("{indent}w{i} = 0");
                if insert {
                    // An inserted line is ended like the line above it (in the block).
                    let above = if i > first { term(i - 1) } else { t };
                    pieces.push(Piece { text: new.clone(), term: above.into(), side: Side::New });
                    pieces.push(Piece { text: line.clone(), term: t.into(), side: Side::Both });
                    expected.push_str(&format!("{new}{above}{line}{t}"));
                } else {
                    pieces.push(Piece { text: line.clone(), term: t.into(), side: Side::Old });
                    pieces.push(Piece { text: new.clone(), term: t.into(), side: Side::New });
                    expected.push_str(&format!("{new}{t}"));
                }
                continue;
            }
            if inside {
                pieces.push(Piece { text: line.clone(), term: t.into(), side: Side::Both });
            }
            expected.push_str(&format!("{line}{t}"));
        }
        let clean = apply(&text, &block_of(&pieces, scripted, false));
        prop_assert_eq!(clean.as_deref(), Some(expected.as_str()));
        for d in DEFECTS {
            let spoiled: Vec<Piece> = pieces.iter().map(|p| defect(p, d)).collect();
            let block = block_of(&spoiled, scripted, matches!(d, Defect::LeadingBlank));
            // Lines here are unique, so every defect is placed (a refusal would be allowed by
            // the property, but is not what this generator should ever see).
            let out = apply(&text, &block);
            prop_assert_eq!(out.as_deref(), Some(expected.as_str()), "{:?}", d);
        }
    }
}

proptest! {
    /// The comparison without normal forms agrees with comparing the normal forms, on lines
    /// of ASCII mixed with the characters `file_text::punctuation` changes.
    #[test]
    fn same_punctuated_agrees_with_the_normal_forms(
        a in "[a-c'\". \u{2018}\u{2019}\u{201c}\u{201d}\u{2013}\u{2026}\u{00a0}]{0,6}",
        b in "[a-c'\". \u{2018}\u{2019}\u{201c}\u{201d}\u{2013}\u{2026}\u{00a0}]{0,6}",
    ) {
        let expected = punctuation(&a) == punctuation(&b);
        prop_assert_eq!(tier::same_punctuated(&a, &b), expected);
        prop_assert!(tier::same_punctuated(&a, &a));
    }
}

proptest! {
    /// The candidate windows, found through one line's key, are every window that matches:
    /// `find_all` agrees with classifying every window of the file.
    #[test]
    fn find_all_finds_every_window_a_full_scan_finds(
        file_lines in prop::collection::vec(0usize..10, 0..14),
        wanted_lines in prop::collection::vec(0usize..10, 1..4),
        crlf in any::<bool>(),
        exact_only in any::<bool>(),
    ) {
        const LINES: [&str; 10] = ["}", "  }", "\t}", "x = 1;", "  x = 1;", "\u{201c}a\u{201d}", "\"a\"", "", "  ", "y  "];
        let sep = if crlf { "\r\n" } else { "\n" };
        let text: String = file_lines.iter().map(|&i| format!("{}{sep}", LINES[i])).collect();
        let block: String = wanted_lines.iter().map(|&i| format!("{}\n", LINES[i])).collect();
        let file = FileText::new(&text);
        let wanted = super::tier::side_lines(&block);
        let scope = Scope { from: 0, at_eof: false, exact_only };
        let found: Vec<(usize, Tier)> = find_all(&file, &wanted, scope).iter().map(|f| (f.first, f.tier)).collect();
        let (n, m) = (file.line_count(), wanted.len());
        let scanned: Vec<(usize, Tier)> = (0..(n + 1).saturating_sub(m))
            .filter(|_| m <= n)
            .filter_map(|i| {
                let (tier, _) = super::tier::classify(file.text, &file.window(i, m), &wanted, exact_only)?;
                Some((i, tier))
            })
            .collect();
        prop_assert_eq!(found, scanned);
    }
}
