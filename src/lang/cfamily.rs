//! What C and C++ compilers reject and tree-sitter-c / tree-sitter-cpp recover from without
//! an error node: a block at a file's top level, and a statement keyword read as a type.

use tree_sitter::{Node, Tree};

use crate::lang::Location;

/// Both rules: how many, and the first.
pub fn errors(tree: &Tree, source: &[u8]) -> (usize, Option<Location>) {
    let (blocks, first_block) = top_level_blocks(tree);
    let (names, first_name) = keyword_types(tree, source);
    (blocks + names, Location::earlier(first_block, first_name))
}

/// A block at the top level (a function whose declarator line was deleted), which
/// tree-sitter-c takes as a statement.
fn top_level_blocks(tree: &Tree) -> (usize, Option<Location>) {
    let blocks = crate::lang::top_level(tree, "compound_statement");
    (blocks.len(), blocks.first().map(|n| Location::of(*n)))
}

/// The statement keywords: no type is named so. (Other reserved words are read as names in
/// valid code by the grammars' recovery: `unsigned(x)` and `static_cast<T>(x)` as calls,
/// `!operator==(x)`, `this` and `true` in macro arguments, `public:` as a label when a
/// class's head holds a macro; and C's names include C++'s words.)
const STATEMENT_KEYWORDS: &[&[u8]] = &[
    b"break",
    b"case",
    b"continue",
    b"default",
    b"do",
    b"else",
    b"for",
    b"goto",
    b"if",
    b"return",
    b"switch",
    b"while",
];

/// A statement keyword in a type's place: the grammars' recovery reads `do;uble x;` in a
/// class as a declaration of type `do`, which the compilers refuse.
fn keyword_types(tree: &Tree, source: &[u8]) -> (usize, Option<Location>) {
    crate::lang::count_stray(tree, source, |node, text| {
        node.kind() == "type_identifier"
            && STATEMENT_KEYWORDS.contains(&text)
            && !in_directive(node)
    })
}

/// Whether `node` is part of a preprocessor directive's own text (a macro's name or
/// parameters, a `defined(...)`, an `#if` condition), where keywords are plain words; the
/// code an `#if` encloses is not.
fn in_directive(node: Node<'_>) -> bool {
    let mut child = node;
    while let Some(parent) = child.parent() {
        match parent.kind() {
            "preproc_def"
            | "preproc_function_def"
            | "preproc_params"
            | "preproc_defined"
            | "preproc_call"
            | "preproc_include" => return true,
            "preproc_if" | "preproc_elif" | "preproc_ifdef" | "preproc_elifdef" => {
                let head = ["condition", "name"]
                    .iter()
                    .filter_map(|f| parent.child_by_field_name(f))
                    .any(|h| h.id() == child.id());
                return head;
            }
            _ => child = parent,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::errors;
    use crate::lang::parse::parse;
    use crate::lang::provider_for;

    fn count(path: &str, source: &str) -> usize {
        let provider = provider_for(path).expect("provider");
        let tree = parse(provider, source.as_bytes(), None).expect("parses");
        errors(&tree, source.as_bytes()).0
    }

    #[test]
    fn a_reserved_word_as_a_type_is_an_error() {
        let class = "class C {\n    do;uble area() const { return 1.0; }\n};\n";
        assert_eq!(count("a.cpp", class), 1);
        assert_eq!(count("a.cpp", &class.replace("do;uble", "double")), 0);
    }

    #[test]
    fn reserved_words_the_grammar_reads_as_names_are_not_counted() {
        let cpp = "unsigned f(int v) { return unsigned(v) + static_cast<unsigned>(v); }\nbool g(const S& o) { return !operator==(o); }\n";
        assert_eq!(count("a.cpp", cpp), 0);
        let c = "struct P { int class; int private; int new; };\n";
        assert_eq!(count("a.c", c), 0);
        assert_eq!(count("a.c", "struct S {\n    do;uble x;\n};\n"), 1);
    }

    #[test]
    fn directives_may_name_keywords() {
        let source = "#define if_t int\n#define PRIO(do, data) ((do) << 13)\n#if defined(do)\nint x;\n#endif\n";
        assert_eq!(count("a.cpp", source), 0);
        let guarded = "#ifdef X\nstruct S { do;uble f(); };\n#endif\n";
        assert_eq!(count("a.cpp", guarded), 1);
    }

    #[test]
    fn a_top_level_block_is_an_error() {
        assert_eq!(count("a.c", "int x;\n{\n    x = 1;\n}\n"), 1);
    }
}
