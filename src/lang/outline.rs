//! The outline of a parsed file: its named structures with kind, name, qualified name
//! (`Outer.inner`, the chain of enclosing named structures), span, identity and content hash.
//! Anonymous nodes are not listed, so the outline of a large file stays readable.

use std::ops::Range;
use std::sync::{Mutex, PoisonError};

use tree_sitter::{Node, Tree};

use crate::lang::extent::{extent, trimmed_end};
use crate::lang::{NameRule, Provider, Structure, hash, node_text};

/// One named structure.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Item {
    pub kind: String,
    pub name: String,
    pub qualified_name: String,
    /// Byte range of the node (without trailing whitespace): what a replacement covers.
    #[serde(skip)]
    pub span: Range<usize>,
    /// End of the node as the grammar has it (trailing whitespace included), to find it again.
    #[serde(skip)]
    pub node_end: usize,
    pub start_line: usize,
    pub end_line: usize,
    /// Number of enclosing named structures.
    pub depth: usize,
    /// A second view of a structure (JSON's `key` and the `object` a key holds, as identedit
    /// lists them): addressable by identity and selector, not by symbol, and no scope.
    #[serde(skip)]
    pub alias: bool,
}

impl Item {
    /// The identity (see `lang::hash`), computed on demand: most reads print few of them.
    pub fn identity(&self, source: &[u8]) -> String {
        hash::identity(&self.kind, &self.qualified_name, &source[self.span.clone()])
    }

    /// The content hash of the node's bytes.
    pub fn hash(&self, source: &[u8]) -> String {
        hash::content_hash(&source[self.span.clone()])
    }

    /// The span widened over what belongs to the structure (`export`, attributes, comments
    /// directly above, a closing `;` or `,`): what a deletion removes and insertions go beside.
    pub fn extent(&self, tree: &Tree, source: &[u8]) -> Range<usize> {
        let (start, end) = (self.span.start, self.node_end);
        let mut node = tree.root_node().descendant_for_byte_range(start, end);
        while let Some(n) = node.filter(|n| n.start_byte() == start && n.end_byte() == end) {
            if n.kind() == self.kind {
                return extent(n, source);
            }
            node = n.parent();
        }
        self.span.clone()
    }
}

/// The name of `node` under the naming rule of its structure kind.
fn name_of(structure: &Structure, node: Node<'_>, source: &[u8]) -> Option<String> {
    let name = match structure.name {
        NameRule::Field(field) => node
            .child_by_field_name(field)
            .map(|n| node_text(n, source).to_owned()),
        NameRule::Custom(f) | NameRule::Verbatim(f) => f(node, source),
    }?;
    let name = name.trim();
    (!name.is_empty()).then(|| name.to_owned())
}

/// What the walk asks of each node kind of a provider's language, indexed by kind id: the
/// position of the kind's structure rule in `provider.structures`, and whether the walk need
/// not descend into it. Made once per provider and process: a kind id is found by comparing
/// names with every symbol of the grammar, too slow to repeat for each region of each file.
struct KindTable {
    structure: Vec<Option<u16>>,
    opaque: Vec<bool>,
}

impl KindTable {
    fn of(provider: &Provider, tree: &Tree) -> &'static KindTable {
        static MADE: Mutex<Vec<(&str, &KindTable)>> = Mutex::new(Vec::new());
        let mut made = MADE.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, table)) = made.iter().find(|(name, _)| *name == provider.name) {
            return table;
        }
        let table: &'static KindTable = Box::leak(Box::new(Self::new(provider, tree)));
        made.push((provider.name, table));
        table
    }

    fn new(provider: &Provider, tree: &Tree) -> Self {
        let language = tree.language();
        let count = language.node_kind_count().max(1);
        let id = |kind: &str| {
            Some(usize::from(language.id_for_node_kind(kind, true)))
                .filter(|&id| id != 0 && id < count)
        };
        let mut structure = vec![None; count];
        for (at, rule) in provider.structures.iter().enumerate() {
            if let (Some(id), Ok(at)) = (id(rule.kind), u16::try_from(at)) {
                structure[id] = Some(at);
            }
        }
        let mut opaque = vec![false; count];
        let kinds = match provider.name {
            "python" => PYTHON_OPAQUE,
            _ => &[],
        };
        for id in kinds.iter().filter_map(|kind| id(kind)) {
            opaque[id] = true;
        }
        Self { structure, opaque }
    }

    /// The structure rule of nodes of kind `id`, if they are named structures.
    fn structure<'p>(&self, provider: &'p Provider, id: u16) -> Option<&'p Structure> {
        let at = self.structure.get(usize::from(id)).copied().flatten()?;
        provider.structures.get(usize::from(at))
    }

    fn opaque(&self, id: u16) -> bool {
        self.opaque.get(usize::from(id)).copied().unwrap_or(false)
    }
}

/// Last line of a structure whose bytes end at `end` (1-based).
fn end_line(node: Node<'_>, end: usize, source: &[u8]) -> usize {
    let trimmed_breaks = source[end..node.end_byte()]
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    let last = node.end_position();
    let row = last.row - trimmed_breaks;
    if trimmed_breaks == 0 && last.column == 0 && last.row > node.start_position().row {
        row
    } else {
        row + 1
    }
}

/// Every named structure, in document order.
pub fn outline(provider: &Provider, tree: &Tree, source: &[u8]) -> Vec<Item> {
    walk(provider, tree, source, None)
}

/// The named structures that touch one of `ranges` (and those that enclose them): enough to
/// compare two versions of a file that differ only inside those ranges.
pub fn outline_near(
    provider: &Provider,
    tree: &Tree,
    source: &[u8],
    ranges: &[Range<usize>],
) -> Vec<Item> {
    walk(provider, tree, source, Some(ranges))
}

/// Whether `node` touches one of `ranges` (ends count).
pub fn touches(span: &Range<usize>, ranges: &[Range<usize>]) -> bool {
    ranges
        .iter()
        .any(|r| span.start <= r.end && r.start <= span.end)
}

/// Ranges in order of their ends, so that a walk near hundreds of them (every occurrence of
/// a common name) asks each node in logarithmic time.
struct Sorted(Vec<Range<usize>>);

impl Sorted {
    fn new(ranges: &[Range<usize>]) -> Self {
        let mut sorted = ranges.to_vec();
        sorted.sort_by_key(|r| r.end);
        // A range that starts later than one ending after it adds nothing to `touches`.
        let mut kept: Vec<Range<usize>> = Vec::with_capacity(sorted.len());
        for r in sorted.into_iter().rev() {
            if kept.last().is_none_or(|k| r.start < k.start) {
                kept.push(r);
            }
        }
        kept.reverse();
        Self(kept)
    }

    /// `touches(span, ranges)`: the first range ending at or after the span's start is the
    /// one that starts earliest among those, so it decides.
    fn touches(&self, span: &Range<usize>) -> bool {
        let i = self.0.partition_point(|r| r.end < span.start);
        self.0.get(i).is_some_and(|r| r.start <= span.end)
    }
}

fn item_of(node: Node<'_>, name: &str, qualified: String, depth: usize, source: &[u8]) -> Item {
    let end = trimmed_end(node, source);
    Item {
        kind: node.kind().to_owned(),
        name: name.to_owned(),
        span: node.start_byte()..end,
        node_end: node.end_byte(),
        start_line: node.start_position().row + 1,
        end_line: end_line(node, end, source),
        depth,
        qualified_name: qualified,
        alias: false,
    }
}

/// The `key` of a JSON pair: its key string, named by the key, in the pair's qualified name.
fn json_key(pair: Node<'_>, qualified: &str, depth: usize, source: &[u8]) -> Option<Item> {
    let key = pair
        .child_by_field_name("key")
        .filter(|_| pair.kind() == "pair")?;
    let name = crate::lang::names::key(pair, source)?;
    let mut item = item_of(key, &name, qualified.to_owned(), depth, source);
    item.kind = "key".to_owned();
    item.alias = true;
    Some(item)
}

/// A JSON object that is the value of a pair (named by its key) or the document's root
/// (unnamed); objects inside arrays are structures of their own.
fn json_object(node: Node<'_>, outer: &str, depth: usize, source: &[u8]) -> Option<Item> {
    let parent = node.parent().filter(|_| node.kind() == "object")?;
    let name = match parent.kind() {
        "pair" => crate::lang::names::key(parent, source)?,
        "document" => String::new(),
        _ => return None,
    };
    let mut item = item_of(node, &name, outer.to_owned(), depth, source);
    item.alias = true;
    Some(item)
}

/// Python node kinds whose subtrees hold no named structure (a `def`, a `class` or an
/// assignment statement is never inside an expression, an import or a simple statement).
/// Most of a file's nodes are below them.
const PYTHON_OPAQUE: &[&str] = &[
    "assignment",
    "augmented_assignment",
    "return_statement",
    "pass_statement",
    "raise_statement",
    "assert_statement",
    "delete_statement",
    "global_statement",
    "nonlocal_statement",
    "import_statement",
    "import_from_statement",
    "future_import_statement",
    "print_statement",
    "exec_statement",
    "decorator",
    "parameters",
    "argument_list",
    "call",
    "attribute",
    "subscript",
    "string",
    "concatenated_string",
    "binary_operator",
    "comparison_operator",
    "boolean_operator",
    "not_operator",
    "unary_operator",
    "conditional_expression",
    "lambda",
    "await",
    "named_expression",
    "parenthesized_expression",
    "list",
    "tuple",
    "set",
    "dictionary",
    "list_comprehension",
    "set_comprehension",
    "dictionary_comprehension",
    "generator_expression",
    "expression_list",
    "keyword_argument",
    "type",
    "comment",
];

fn walk(
    provider: &Provider,
    tree: &Tree,
    source: &[u8],
    near: Option<&[Range<usize>]>,
) -> Vec<Item> {
    let table = KindTable::of(provider, tree);
    let near = near.map(Sorted::new);
    let mut items = Vec::new();
    let mut scope: Vec<(usize, String)> = Vec::new();
    let mut cursor = tree.walk();
    'walk: loop {
        let node = cursor.node();
        let relevant = near.as_ref().is_none_or(|n| n.touches(&node.byte_range()));
        while scope
            .last()
            .is_some_and(|(end, _)| node.start_byte() >= *end)
        {
            scope.pop();
        }
        let structure = table.structure(provider, node.kind_id());
        let mut named = false;
        if let Some(name) = structure
            .filter(|_| relevant)
            .and_then(|s| name_of(s, node, source))
        {
            let qualified = match scope.last() {
                Some((_, outer)) => format!("{outer}.{name}"),
                None => name.clone(),
            };
            items.push(item_of(node, &name, qualified.clone(), scope.len(), source));
            if provider.name == "json" {
                items.extend(json_key(node, &qualified, scope.len() + 1, source));
            }
            scope.push((node.end_byte(), qualified));
            named = true;
        }
        if relevant && provider.name == "json" && !named {
            let outer = scope.last().map_or("", |(_, q)| q.as_str());
            items.extend(json_object(node, outer, scope.len(), source));
        }
        // Error recovery can put anything anywhere: only a clean subtree is skipped.
        let skip = table.opaque(node.kind_id()) && !node.has_error();
        if relevant && !skip && cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    items
}

#[cfg(test)]
mod tests {
    use super::{KindTable, Sorted, name_of, outline, touches};
    use crate::lang::{parse::parse, provider_for};

    /// The sorted search answers as the plain scan does, for every span and set of ranges
    /// over a few positions (nested, overlapping, equal and empty ranges included).
    #[test]
    fn sorted_ranges_touch_what_the_scan_touches() {
        let all: Vec<std::ops::Range<usize>> =
            (0..6).flat_map(|a| (a..6).map(move |b| a..b)).collect();
        for mask in 1u32..(1 << 10) {
            let ranges: Vec<_> = (0..10)
                .filter(|i| mask & (1 << i) != 0)
                .map(|i| all[(i * 7 + mask as usize) % all.len()].clone())
                .collect();
            let sorted = Sorted::new(&ranges);
            for span in &all {
                assert_eq!(
                    sorted.touches(span),
                    touches(span, &ranges),
                    "{span:?} {ranges:?}"
                );
            }
        }
    }

    /// Every structure node a walk into every subtree names: (kind, start byte).
    fn every_named(path: &str, source: &[u8]) -> Vec<(String, usize)> {
        let provider = provider_for(path).expect("provider");
        let tree = parse(provider, source, None).expect("parse");
        let table = KindTable::of(provider, &tree);
        let mut found = Vec::new();
        let mut stack = vec![tree.root_node()];
        while let Some(node) = stack.pop() {
            let structure = table.structure(provider, node.kind_id());
            if structure.is_some_and(|s| name_of(s, node, source).is_some()) {
                found.push((node.kind().to_owned(), node.start_byte()));
            }
            let mut cursor = node.walk();
            stack.extend(node.children(&mut cursor));
        }
        found.sort();
        found
    }

    /// The walk skips Python's expressions and simple statements: it still finds every
    /// structure a full walk finds, in every Python file of the fixtures (broken ones too).
    #[test]
    fn skipping_opaque_python_nodes_loses_no_structure() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let mut files = vec![root];
        let mut checked = 0;
        while let Some(path) = files.pop() {
            if path.is_dir() {
                let entries = std::fs::read_dir(&path).expect("fixtures");
                files.extend(entries.map(|e| e.expect("entry").path()));
                continue;
            }
            if path.extension().is_none_or(|e| e != "py") {
                continue;
            }
            let source = std::fs::read(&path).expect("read");
            let name = path.to_string_lossy().into_owned();
            let provider = provider_for(&name).expect("provider");
            let tree = parse(provider, &source, None).expect("parse");
            let mut items: Vec<(String, usize)> = outline(provider, &tree, &source)
                .into_iter()
                .map(|i| (i.kind, i.span.start))
                .collect();
            items.sort();
            assert_eq!(items, every_named(&name, &source), "{name}");
            checked += 1;
        }
        assert!(checked > 100, "{checked} Python files");
    }

    #[test]
    fn a_broken_python_file_is_walked_whole() {
        let broken = b"class A:\n    def f(self):\n        x = (1,\n    def g(self):\n        return [\n\ndef h(:\n    y = 2\n";
        let provider = provider_for("b.py").expect("provider");
        let tree = parse(provider, broken, None).expect("parse");
        assert!(tree.root_node().has_error());
        let mut items: Vec<(String, usize)> = outline(provider, &tree, broken)
            .into_iter()
            .map(|i| (i.kind, i.span.start))
            .collect();
        items.sort();
        assert_eq!(items, every_named("b.py", broken));
    }
}
