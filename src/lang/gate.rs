//! The syntax gate: every touched file in a supported language is checked as it would be
//! after the whole plan, before anything is staged (dry runs included), whatever its size.
//!
//! - Structure targets (symbol, identity, selector) need a source that parses and a result that
//!   parses cleanly (`parse_failure`, `stage: source` / `stage: proposed_result`).
//! - Any other edit is refused when it raises the file's error count, unless syntax errors are
//!   allowed. Errors are the tree's plus what the language's own rule adds
//!   (`parse::syntax_errors`: Python indentation).
//! - Cost follows the edit: a file is checked on the regions around its edits
//!   (`lang::regional`), also when a structure target parsed it already (if that parse had no
//!   errors, a clean region means a clean file); the whole result is parsed only when no
//!   region can be isolated or a region's result has errors, incrementally from the source's
//!   tree when there is one.
//! - `structure_changes` compares the outlines around the edits: structures that appeared,
//!   disappeared or whose count changed (names are relative to the region when one was used).

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::OnceLock;

use serde::Serialize;
use serde_json::json;
use tree_sitter::Tree;

use crate::error::{Code, Error, Result};
use crate::lang::Location;
use crate::lang::outline::{Item, outline, outline_near, touches};
use crate::lang::parse::{edited, grammar_errors, layout_errors, parse, retire, syntax_errors};
use crate::lang::symbols::Declarations;
use crate::lang::{Provider, provider_for};

/// A file's parse, kept for the whole command so each file is parsed once. Its outline is
/// made on demand: whole (`items`) for what searches all of it, or only around some ranges
/// (`items_near`), which walks just the part of the tree that holds them.
///
/// Its errors come in two parts. Those of the tree and of the rules that look at a few node
/// kinds are counted at once: a structure target needs a tree without them. The layout rule
/// (Python's indentation, which reads every token) is counted on first use of
/// [`SourceTree::errors`]: an edit decided on its regions checks the rule there, so a
/// one-symbol patch does not pay for the whole file.
pub struct SourceTree {
    pub provider: &'static Provider,
    pub tree: Tree,
    /// The errors of all rules but the layout rule: how many, and the first.
    pub grammar: (usize, Option<Location>),
    layout: OnceLock<(usize, Option<Location>)>,
    outline: OnceLock<Vec<Item>>,
}

impl SourceTree {
    /// Parses a file and counts its errors but the layout rule's.
    pub fn parse(provider: &'static Provider, source: &[u8]) -> Result<Self> {
        let tree = parse(provider, source, None)?;
        let grammar = grammar_errors(provider, &tree, source);
        Ok(Self {
            provider,
            tree,
            grammar,
            layout: OnceLock::new(),
            outline: OnceLock::new(),
        })
    }

    /// All the errors of `source` (the bytes parsed), the layout rule's included: how many,
    /// and the first.
    pub fn errors(&self, source: &[u8]) -> (usize, Option<Location>) {
        let (count, first) = self.grammar;
        let (extra, at) = *self
            .layout
            .get_or_init(|| layout_errors(self.provider, &self.tree, source));
        (count + extra, Location::earlier(first, at))
    }

    /// `parse_failure` (`stage: source`) when the tree has errors: its structures cannot be
    /// addressed (`what`: what the command would do with them).
    pub fn addressable(&self, path: &str, what: &str) -> Result<()> {
        match self.grammar {
            (0, _) => Ok(()),
            (_, location) => Err(unparsable_source(path, what, location)),
        }
    }

    /// The whole outline of `source` (the bytes parsed), made on first use.
    pub fn items(&self, source: &[u8]) -> &[Item] {
        self.outline
            .get_or_init(|| outline(self.provider, &self.tree, source))
    }

    /// The structures that touch one of `ranges`, and those enclosing them.
    pub fn items_near(&self, source: &[u8], ranges: &[Range<usize>]) -> Vec<Item> {
        match self.outline.get() {
            Some(all) => all
                .iter()
                .filter(|i| touches(&(i.span.start..i.node_end), ranges))
                .cloned()
                .collect(),
            None => outline_near(self.provider, &self.tree, source, ranges),
        }
    }
}

/// One structure in a change report.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Named {
    pub kind: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<usize>,
}

/// What the gate observed about one file.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Checked {
    /// `checked` or `unavailable` (no provider).
    pub status: &'static str,
    /// What was parsed: `file`, or `region` (the regions around the edits, see
    /// `lang::regional`; the error counts are then the regions').
    pub scope: &'static str,
    /// Why nothing was observed, when `status` is not `checked`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
    pub language: Option<&'static str>,
    pub errors_before: Option<usize>,
    pub errors_after: Option<usize>,
    pub appeared: Vec<Named>,
    pub disappeared: Vec<Named>,
    pub count_changed: Vec<Named>,
    /// The declarations of both versions, read from the trees parsed here, for the API guard
    /// (which then parses nothing again); absent for languages without a symbol model.
    #[serde(skip)]
    pub declarations: Option<Declarations>,
}

impl Checked {
    fn unobserved(
        status: &'static str,
        reason: &'static str,
        language: Option<&'static str>,
    ) -> Self {
        Self {
            status,
            scope: "file",
            reason: Some(reason),
            language,
            errors_before: None,
            errors_after: None,
            appeared: Vec::new(),
            disappeared: Vec::new(),
            count_changed: Vec::new(),
            declarations: None,
        }
    }
}

/// How strict the gate is for one file.
#[derive(Clone, Copy, Debug)]
pub struct Rules {
    /// Structure targets were used: the result must parse cleanly.
    pub strict: bool,
    /// Text edits may add syntax errors.
    pub allow_errors: bool,
}

impl Rules {
    pub fn new(strict: bool, allow_errors: bool) -> Self {
        Self {
            strict,
            allow_errors,
        }
    }
}

/// Checks `after` (and reports its structure changes against `before`).
pub fn check(
    path: &str,
    before: Option<(&[u8], Option<&SourceTree>)>,
    after: &[u8],
    ranges: &[(Range<usize>, Range<usize>)],
    rules: Rules,
) -> Result<Checked> {
    let Some(provider) = provider_for(path) else {
        return Ok(Checked::unobserved("unavailable", "no_provider", None));
    };
    // A parsed source qualifies too when it has no errors: a clean region then means a
    // clean file, cheaper than re-parsing and re-reading the whole result.
    let regions_decide = match before {
        Some((_, None)) => true,
        Some((_, Some(tree))) => tree.grammar.0 == 0,
        None => false,
    };
    if let Some((bytes, _)) = before.filter(|_| regions_decide)
        && let Some(clean) = crate::lang::regional::check(provider, bytes, after, ranges)?
    {
        return Ok(regional(provider, clean));
    }
    let parsed_here = match before {
        Some((bytes, None)) => Some(SourceTree::parse(provider, bytes)?),
        _ => None,
    };
    let source = match (before, parsed_here.as_ref()) {
        (Some((bytes, Some(tree))), _) => Some((bytes, tree)),
        (Some((bytes, None)), Some(here)) => Some((bytes, here)),
        _ => None,
    };
    let checked = check_file(provider, path, source, after, ranges, rules);
    if let Some(SourceTree { tree, .. }) = parsed_here {
        retire(tree);
    }
    checked
}

/// Parses `after` (reusing the source's tree for the unchanged parts), refuses new syntax
/// errors as `rules` say, and compares the structures around the edits.
fn check_file(
    provider: &'static Provider,
    path: &str,
    source: Option<(&[u8], &SourceTree)>,
    after: &[u8],
    ranges: &[(Range<usize>, Range<usize>)],
    rules: Rules,
) -> Result<Checked> {
    let old = source.map(|(bytes, s)| edited(&s.tree, bytes, after, ranges));
    let tree = parse(provider, after, old.as_ref())?;
    let (errors_after, first) = syntax_errors(provider, &tree, after);
    let (errors_before, first_before) = source.map_or((0, None), |(b, s)| s.errors(b));
    if rules.strict && errors_before > 0 {
        return Err(unparsable_source(path, "addressed", first_before));
    }
    // Words bash takes that tree-sitter-bash does not (`lang::shell`).
    let shell_word = provider.name == "bash"
        && source.is_some_and(|(bytes, _)| crate::lang::shell::word_edit(bytes, after, ranges));
    let added = errors_after > errors_before && !shell_word;
    if (rules.strict && errors_after > 0) || (added && !rules.allow_errors) {
        return Err(refusal(
            path,
            first,
            errors_before,
            errors_after,
            rules.strict,
        ));
    }
    // Outside the edited ranges both versions are byte for byte the same, so only the
    // structures around the edits can differ.
    let old_ranges: Vec<Range<usize>> = ranges.iter().map(|(o, _)| o.clone()).collect();
    let new_ranges: Vec<Range<usize>> = ranges.iter().map(|(_, n)| n.clone()).collect();
    let items_after = outline_near(provider, &tree, after, &new_ranges);
    let items_before = source.map_or_else(Vec::new, |(bytes, s)| s.items_near(bytes, &old_ranges));
    let (appeared, disappeared, count_changed) = compare(&items_before, &items_after);
    let clean_source = source.filter(|_| errors_before == 0);
    let declarations = declarations(provider, clean_source, (after, &tree), errors_after == 0);
    retire(tree);
    if let Some(old) = old {
        retire(old);
    }
    Ok(Checked {
        status: "checked",
        scope: "file",
        reason: None,
        language: Some(provider.name),
        errors_before: source.map(|_| errors_before),
        errors_after: Some(errors_after),
        appeared,
        disappeared,
        count_changed,
        declarations,
    })
}

/// The declarations of both versions, for languages with a symbol model (`clean_source`:
/// the source, when it parsed cleanly).
fn declarations(
    provider: &'static Provider,
    clean_source: Option<(&[u8], &SourceTree)>,
    (after, tree): (&[u8], &Tree),
    after_clean: bool,
) -> Option<Declarations> {
    crate::lang::symbols::Lang::of(provider)?;
    let read = |tree: &Tree, bytes: &[u8]| {
        let declared = crate::lang::symbols::declarations(provider, tree, bytes);
        crate::lang::symbols::signatures(declared.unwrap_or_default())
    };
    Some(Declarations {
        before: clean_source.map(|(bytes, s)| read(&s.tree, bytes)),
        after: read(tree, after),
        after_clean,
    })
}

/// What a clean regional check reports.
fn regional(provider: &'static Provider, clean: crate::lang::regional::Clean) -> Checked {
    let (appeared, disappeared, count_changed) = compare(&clean.items_before, &clean.items_after);
    Checked {
        status: "checked",
        scope: "region",
        reason: None,
        language: Some(provider.name),
        errors_before: Some(0),
        errors_after: Some(0),
        appeared,
        disappeared,
        count_changed,
        declarations: clean.declarations,
    }
}

/// A source with syntax errors, whose structures cannot be `what` (addressed, moved).
pub fn unparsable_source(path: &str, what: &str, location: Option<Location>) -> Error {
    Error::new(
        Code::ParseFailure,
        format!("{path} does not parse, so its structures cannot be {what}"),
    )
    .detail("path", path)
    .detail("stage", "source")
    .detail("location", json!(location))
    .hint("Repair the file with a line or text edit first.")
}

fn refusal(
    path: &str,
    location: Option<Location>,
    before: usize,
    after: usize,
    strict: bool,
) -> Error {
    let at = location.map_or(String::new(), |l| {
        format!(" at line {}, column {}", l.line, l.column)
    });
    let message = if strict {
        format!("the result would not parse{at} in {path}")
    } else {
        format!("the edit adds syntax errors{at} in {path} ({before} before, {after} after)")
    };
    Error::new(Code::ParseFailure, message)
        .detail("path", path)
        .detail("stage", "proposed_result")
        .detail("location", json!(location))
        .detail("errors_before", before)
        .detail("errors_after", after)
        .hint(if strict {
            "Fix the replacement text (or the other edits of this file) and retry with --dry-run."
        } else {
            "Fix the edit, or pass --allow-syntax-errors if the file is meant to be incomplete."
        })
}

type Changes = (Vec<Named>, Vec<Named>, Vec<Named>);

fn compare(before: &[Item], after: &[Item]) -> Changes {
    let count = |items: &[Item]| {
        let mut map: BTreeMap<(String, String), usize> = BTreeMap::new();
        for i in items {
            *map.entry((i.kind.clone(), i.qualified_name.clone()))
                .or_default() += 1;
        }
        map
    };
    let (b, a) = (count(before), count(after));
    let named = |(kind, name): &(String, String), before, after| Named {
        kind: kind.clone(),
        name: name.clone(),
        before,
        after,
    };
    let appeared = a
        .keys()
        .filter(|k| !b.contains_key(*k))
        .map(|k| named(k, None, None))
        .collect();
    let disappeared = b
        .keys()
        .filter(|k| !a.contains_key(*k))
        .map(|k| named(k, None, None))
        .collect();
    let count_changed = b
        .iter()
        .filter_map(|(k, &n)| {
            a.get(k)
                .filter(|&&m| m != n)
                .map(|&m| named(k, Some(n), Some(m)))
        })
        .collect();
    (appeared, disappeared, count_changed)
}
