//! The language-neutral symbol model: the declarations of one parsed file (classes and other
//! class-like types, functions, methods, properties, constants, enum cases) with their symbol
//! spelling, visibility, signature facts and byte ranges. Symbol-addressed edits
//! ([`edit`]) and the API-change guard (`lang::api`) work on this model only; each language
//! module (PHP, Python, TypeScript) fills it from its tree-sitter grammar.

pub mod edit;
mod facts;
pub mod layout;
pub mod php;
pub mod python;
pub mod strings;
pub mod typescript;

use std::ops::Range;

use tree_sitter::{Node, Tree};

use crate::error::{Code, Error, Result};
use crate::lang::Provider;
pub use facts::Facts;

/// What a declaration declares.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Class,
    Interface,
    Trait,
    Enum,
    Function,
    Method,
    Property,
    Constant,
    Case,
    /// A type alias (TypeScript `type X = …`).
    Type,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Class => "class",
            Kind::Interface => "interface",
            Kind::Trait => "trait",
            Kind::Enum => "enum",
            Kind::Function => "function",
            Kind::Method => "method",
            Kind::Property => "property",
            Kind::Constant => "constant",
            Kind::Case => "case",
            Kind::Type => "type",
        }
    }

    /// Class-like: takes members.
    pub fn is_container(self) -> bool {
        matches!(
            self,
            Kind::Class | Kind::Interface | Kind::Trait | Kind::Enum
        )
    }
}

/// The languages with a symbol model, and how each spells and lays out code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    Php,
    Python,
    TypeScript,
}

impl Lang {
    pub fn of(provider: &Provider) -> Option<Self> {
        match provider.name {
            "php" => Some(Lang::Php),
            "python" => Some(Lang::Python),
            // JavaScript's grammar shares TypeScript's declaration shapes.
            "typescript" | "tsx" | "javascript" => Some(Lang::TypeScript),
            _ => None,
        }
    }

    /// Between a container and a member name: `Greeter::greet()` or `Greeter.greet`.
    pub fn separator(self) -> &'static str {
        match self {
            Lang::Php => "::",
            _ => ".",
        }
    }

    /// Blocks are delimited by indentation (Python), not braces.
    pub fn indented_blocks(self) -> bool {
        self == Lang::Python
    }
}

/// One declaration.
#[derive(Clone, Debug)]
pub struct Declaration {
    pub kind: Kind,
    /// `greet`, `$count`, `PREFIX`, `Greeter`.
    pub name: String,
    /// How edits name it: `Greeter::greet()`, `Greeter.greet`, `helper()`.
    pub symbol: String,
    /// The namespace-qualified form when it differs (`App\Service\Greeter::greet()`).
    pub qualified: Option<String>,
    /// `symbol` of the enclosing class-like declaration.
    pub container: Option<String>,
    /// Not part of the public API (private member, `_name`, not exported, or inside such).
    pub private: bool,
    /// Signature and shape facts the API guard compares (`parameters`, `return_type`, ...).
    pub facts: Facts,
    /// Everything that belongs to it: doc comment, attributes, the declaration, its `;`.
    pub range: Range<usize>,
    /// Where the attributes / decorators start (`range.start..attrs` is the doc comment).
    pub attrs: usize,
    /// Where the declaration proper starts (`attrs..core` is the attribute list).
    pub core: usize,
    /// The body: `{ … }` with braces, or a Python block.
    pub body: Option<Range<usize>>,
    /// Class-likes: the member list (`{ … }` with braces, or a Python block).
    pub members: Option<Range<usize>>,
    /// The name as declared (`greet`, `$count`).
    pub name_range: Range<usize>,
    /// The declaration shares its node with others or is part of a list (a promoted
    /// constructor property, `public $a, $b;`): only its shape can be compared.
    pub embedded: bool,
}

impl Declaration {
    /// The key the API guard compares under: the qualified symbol.
    pub fn key(&self) -> &str {
        self.qualified.as_deref().unwrap_or(&self.symbol)
    }
}

/// Builds a declaration with the common fields filled in; language modules add the rest.
pub(crate) fn declaration(
    kind: Kind,
    name: &str,
    symbol: String,
    range: Range<usize>,
) -> Declaration {
    let start = range.start;
    Declaration {
        kind,
        name: name.to_owned(),
        symbol,
        qualified: None,
        container: None,
        private: false,
        facts: Facts::default(),
        attrs: range.start,
        core: range.start,
        range,
        body: None,
        members: None,
        name_range: start..start,
        embedded: false,
    }
}

/// The declarations of a parsed file, in document order; `None` when the language has no
/// symbol model.
pub fn declarations(provider: &Provider, tree: &Tree, source: &[u8]) -> Option<Vec<Declaration>> {
    let mut decls = match Lang::of(provider)? {
        Lang::Php => php::declarations(tree, source),
        Lang::Python => python::declarations(tree, source),
        Lang::TypeScript => typescript::declarations(tree, source),
    };
    for d in &mut decls {
        d.name_range = name_range(source, d);
    }
    Some(decls)
}

/// Where the name is declared: its first whole-word occurrence after the modifiers.
fn name_range(source: &[u8], d: &Declaration) -> Range<usize> {
    let text = std::str::from_utf8(&source[d.core..d.range.end]).unwrap_or_default();
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let mut from = 0;
    while let Some(i) = text[from..].find(d.name.as_str()) {
        let (start, end) = (from + i, from + i + d.name.len());
        let clear_before = !text[..start].chars().next_back().is_some_and(word);
        if clear_before && !text[end..].chars().next().is_some_and(word) {
            return d.core + start..d.core + end;
        }
        from = end;
    }
    d.core..d.core
}

/// The one declaration `query` names. Unknown or ambiguous symbols are refused with the list
/// of declarations the file really has.
pub fn find<'d>(
    decls: &'d [Declaration],
    query: &str,
    lang: Lang,
    path: &str,
) -> Result<&'d Declaration> {
    let wanted = normalize(query, lang);
    let exact: Vec<&Declaration> = decls
        .iter()
        .filter(|d| {
            normalize(&d.symbol, lang) == wanted
                || d.qualified
                    .as_deref()
                    .is_some_and(|q| normalize(q, lang) == wanted)
        })
        .collect();
    let found = if exact.is_empty() {
        // `Greeter::greet` for `Greeter::greet()`. A query that names a namespace must name
        // the declaration's own; a short one matches in any namespace.
        let qualified = lang == Lang::Php && namespace_of(&wanted).is_some();
        decls
            .iter()
            .filter(|d| {
                if qualified {
                    normalize(d.key(), lang).replace("()", "") == wanted.replace("()", "")
                } else {
                    loose(&d.symbol, lang) == loose(&wanted, lang)
                }
            })
            .collect()
    } else {
        exact
    };
    let listing = || {
        decls
            .iter()
            .map(|d| canonical(d, lang, false))
            .collect::<Vec<_>>()
    };
    match found.as_slice() {
        [one] => Ok(one),
        [] => Err(Error::new(
            Code::TargetMissing,
            format!("no declaration `{query}` in {path}"),
        )
        .detail("symbol", query)
        .detail("declarations", listing())
        .hint("Pick one of `details.declarations` (the declarations the file has now).")),
        many => Err(Error::new(
            Code::AmbiguousTarget,
            format!("`{query}` names {} declarations in {path}", many.len()),
        )
        .detail("symbol", query)
        .detail(
            "candidates",
            many.iter()
                .map(|d| canonical(d, lang, true))
                .collect::<Vec<_>>(),
        )
        .detail("declarations", listing())
        .hint("Qualify the symbol (namespace, class) so that it names one declaration.")),
    }
}

/// A symbol as written, without a leading `\` and surrounding spaces, with the language's
/// own separator (`Greeter.greet` and `Greeter->greet` are `Greeter::greet` in PHP;
/// `Processor::run` is `Processor.run` elsewhere): see `lang::notation`.
fn normalize(symbol: &str, lang: Lang) -> String {
    let s = symbol.trim().replace(' ', "");
    match lang {
        Lang::Php if s.contains("::") => s.trim_start_matches('\\').to_owned(),
        Lang::Php => s
            .trim_start_matches('\\')
            .replace("->", "::")
            .replacen('.', "::", 1),
        _ => s.replace("::", "."),
    }
}

/// A declaration's name in the canonical notation `read` prints (`Greeter.greet`), with its
/// namespace when `qualified`.
fn canonical(d: &Declaration, lang: Lang, qualified: bool) -> String {
    let symbol = if qualified { d.key() } else { &d.symbol };
    match lang {
        Lang::Php => crate::lang::notation::canonical_php(symbol, qualified),
        _ => crate::lang::notation::read(symbol).canonical,
    }
}

/// The namespace a PHP symbol names (`App\Model` of `App\Model\User::save()`), if any.
fn namespace_of(symbol: &str) -> Option<&str> {
    let head = symbol
        .split_once("::")
        .map_or(symbol, |(container, _)| container);
    head.rsplit_once('\\').map(|(namespace, _)| namespace)
}

/// The loose form: short container name, no `()`.
fn loose(symbol: &str, lang: Lang) -> String {
    let s = normalize(symbol, lang).replace("()", "");
    match s.split_once(lang.separator()) {
        Some((container, member)) => {
            let short = container.rsplit('\\').next().unwrap_or(container);
            format!("{short}{}{member}", lang.separator())
        }
        None => s.rsplit('\\').next().unwrap_or(&s).to_owned(),
    }
}

/// Text with whitespace runs collapsed, and none next to punctuation (`( int $a )` and
/// `(int $a)` are one signature); a trailing comma before a closer is dropped.
/// Records the decorators directly under `node` (Python, TypeScript) as the `decorators` fact.
pub fn decorators_fact(node: Node<'_>, source: &[u8], d: &mut Declaration) {
    let decorators: Vec<String> = children(node)
        .into_iter()
        .filter(|c| c.kind() == "decorator")
        .map(|c| decorator_name(text(c, source)))
        .collect();
    if !decorators.is_empty() {
        d.facts.insert("decorators", decorators.join(" "));
    }
}

/// A decorator as the guard compares it: its name, without arguments (`@skipUnless(…)` is
/// `@skipUnless`). Adding or removing a decorator changes how a declaration is called; its
/// arguments are values, which the guard never reports.
pub fn decorator_name(text: &str) -> String {
    let name = text.split('(').next().unwrap_or(text);
    squash(name)
}

pub fn squash(text: &str) -> String {
    const TIGHT: &[char] = &[
        '(', ')', '[', ']', '{', '}', ',', '=', '&', '?', ':', '|', '<', '>', ';',
    ];
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space && !out.is_empty() && !TIGHT.contains(&c) && !out.ends_with(TIGHT) {
            out.push(' ');
        }
        space = false;
        if matches!(c, ')' | ']' | '}') && out.ends_with(',') {
            out.pop();
        }
        out.push(c);
    }
    out
}

/// Text of a node.
pub(crate) fn text<'a>(node: Node<'_>, source: &'a [u8]) -> &'a str {
    crate::lang::node_text(node, source)
}

/// Named children of a node.
pub(crate) fn children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.children(&mut cursor).collect()
}

/// The start of the comments directly above `node` (on the lines right above it, no blank
/// line between), or the node's own start.
pub(crate) fn doc_start(node: Node<'_>, source: &[u8], comment_kinds: &[&str]) -> usize {
    let mut start = node.start_byte();
    let mut prev = node.prev_sibling();
    while let Some(p) = prev.filter(|p| comment_kinds.contains(&p.kind())) {
        let gap = &source[p.end_byte()..start];
        let breaks = gap.iter().filter(|&&b| b == b'\n').count();
        let own_line = layout::line_start(source, p.start_byte()) == p.start_byte()
            || source[layout::line_start(source, p.start_byte())..p.start_byte()]
                .iter()
                .all(|b| *b == b' ' || *b == b'\t');
        if !gap.iter().all(u8::is_ascii_whitespace) || breaks > 1 || !own_line {
            break;
        }
        start = p.start_byte();
        prev = p.prev_sibling();
    }
    start
}

/// What the API guard compares of a declaration: its key, kind, visibility and facts. The
/// rest (names, byte ranges) serves edits; a plan of many files keeps only this for the guard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    /// [`Declaration::key`].
    pub key: Box<str>,
    pub kind: Kind,
    pub private: bool,
    pub facts: Facts,
}

impl From<Declaration> for Signature {
    fn from(d: Declaration) -> Self {
        let mut facts = d.facts;
        facts.shrink_to_fit();
        Signature {
            key: d.qualified.unwrap_or(d.symbol).into_boxed_str(),
            kind: d.kind,
            private: d.private,
            facts,
        }
    }
}

/// The signatures of `declarations`, in order.
pub fn signatures(declarations: Vec<Declaration>) -> Vec<Signature> {
    declarations.into_iter().map(Signature::from).collect()
}

/// Declarations of a file before and after an edit, as the API guard compares them.
#[derive(Clone, Debug)]
pub struct Declarations {
    /// `None` when there was no source, or it did not parse cleanly.
    pub before: Option<Vec<Signature>>,
    pub after: Vec<Signature>,
    /// The result parsed without errors.
    pub after_clean: bool,
}

#[cfg(test)]
mod review_tests;
#[cfg(test)]
pub(crate) mod tests;
