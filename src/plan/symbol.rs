//! Symbol-addressed edits (agent-edit's `op` edits of a `source_edit_plan`): which declaration
//! an edit names and what it does to it. Pure data; `lang::symbols::edit` resolves it.

/// One symbol-addressed edit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SymbolEdit {
    pub op: SymbolOp,
    /// `Greeter::greet()`, `Class.method`, `function()`; absent for `add_use`.
    pub symbol: Option<String>,
    /// The new code (body, declaration or member); empty for `remove_symbol` and `add_use`.
    pub code: String,
    /// Re-indent `code` to its target (default); `false` keeps it verbatim.
    pub reindent: bool,
    /// `expected_source_sha256`: refuse a file that changed since it was read.
    pub expected: Option<super::Digest>,
}

/// What a symbol edit does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SymbolOp {
    /// Replace the body, keeping the signature.
    ReplaceBody,
    /// Replace the whole declaration (an omitted doc comment or attribute list is kept).
    ReplaceSymbol,
    /// Add a member to a class-like declaration.
    InsertMember(Position),
    /// Remove the declaration with its doc comment and attributes.
    RemoveSymbol,
    /// Add a namespace-level import (`use`, `import`, `from … import`) in sorted position.
    AddUse(String),
}

impl SymbolOp {
    pub fn name(&self) -> &'static str {
        match self {
            SymbolOp::ReplaceBody => "replace_body",
            SymbolOp::ReplaceSymbol => "replace_symbol",
            SymbolOp::InsertMember(_) => "insert_member",
            SymbolOp::RemoveSymbol => "remove_symbol",
            SymbolOp::AddUse(_) => "add_use",
        }
    }
}

/// Where `insert_member` puts the new member.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Position {
    Start,
    End,
    After(String),
    Before(String),
}
