//! The typed plan: what every front-end compiles into and the one transaction engine applies.
//!
//! A plan is pure data, in input order: no I/O happens here. Paths are still as written by
//! the caller (with the base they are relative to); `target::path` resolves and checks them.

pub mod config;
pub mod digest;
pub mod schema;
pub mod splice;
pub mod symbol;

pub use config::{ConfigAction, ConfigOp};
pub use digest::{Digest, Marks};

/// One checked change request: every operation commits together or not at all.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// Caller-chosen label (`target_id` of a `source_edit_plan`, `--task`).
    pub label: Option<String>,
    /// Which front-end produced the plan (`source_edit_plan`, `edit_flags`, ...).
    pub dialect: &'static str,
    /// sha256 of the raw input bytes, when the plan came from a document.
    pub input_sha256: Option<Digest>,
    pub ops: Vec<Op>,
    /// API changes the guard finds are acknowledged (`allow_signature_change`): applied and
    /// reported instead of refused.
    pub allow_signature_change: bool,
}

impl Plan {
    /// A plan of one operation on a file named from the current directory (the command-line
    /// forms).
    pub fn single(dialect: &'static str, file: String, list: &'static str, kind: OpKind) -> Self {
        let origin = Origin::new(list, 0);
        let op = Op {
            path: PathSpec {
                raw: file,
                base: PathBase::Cwd,
            },
            origin,
            kind,
        };
        Self {
            label: None,
            dialect,
            input_sha256: None,
            ops: vec![op],
            allow_signature_change: false,
        }
    }
}

/// Dialects held to identedit's stricter conflict rule: an insertion may not touch the edge
/// of a rewrite (`plan::splice::touching`).
pub const STRICT_CONFLICT_DIALECTS: &[&str] = &["edit_request", "changeset"];

impl Plan {
    pub fn strict_conflicts(&self) -> bool {
        STRICT_CONFLICT_DIALECTS.contains(&self.dialect)
    }
}

/// One operation on one file, with where it came from in the input.
#[derive(Clone, Debug)]
pub struct Op {
    pub path: PathSpec,
    pub origin: Origin,
    pub kind: OpKind,
}

/// A path as the caller wrote it, and what it is relative to.
#[derive(Clone, Debug)]
pub struct PathSpec {
    pub raw: String,
    pub base: PathBase,
}

/// Plan documents name paths from the workspace root; command-line paths from the shell's
/// current directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PathBase {
    Root,
    Cwd,
}

/// Where an operation sits in its input: the list it is in, its index there, and for text
/// dialects the 1-based line of the input where it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    pub list: &'static str,
    pub index: usize,
    pub input_line: Option<usize>,
    /// The entry of an outer list holding `list`, for nested inputs: `("files", 1)` makes
    /// `/files/1/operations/0`.
    pub parent: Option<(&'static str, usize)>,
}

impl Origin {
    /// Index `index` of the top-level list `list`.
    pub fn new(list: &'static str, index: usize) -> Self {
        Self {
            list,
            index,
            input_line: None,
            parent: None,
        }
    }

    /// `edits[3]` (`blocks[1] (line 12)` for text dialects, `files[1].operations[0]` when
    /// nested), as used in messages.
    pub fn label(&self) -> String {
        let outer = self
            .parent
            .map(|(list, i)| format!("{list}[{i}]."))
            .unwrap_or_default();
        match self.input_line {
            Some(line) => format!("{outer}{}[{}] (line {line})", self.list, self.index),
            None => format!("{outer}{}[{}]", self.list, self.index),
        }
    }

    /// Input order: (outer entry, index).
    pub fn order(&self) -> (usize, usize) {
        (self.parent.map_or(0, |(_, i)| i), self.index)
    }

    /// `/edits/3` (`/files/1/operations/0` when nested), a JSON Pointer into the input.
    pub fn pointer(&self) -> String {
        let outer = self
            .parent
            .map(|(list, i)| format!("/{list}/{i}"))
            .unwrap_or_default();
        format!("{outer}/{}/{}", self.list, self.index)
    }
}

#[derive(Clone, Debug)]
pub enum OpKind {
    /// Change text inside an existing file.
    Edit {
        edit: TextEdit,
        expected: Option<Digest>,
    },
    /// Change a structure, a line range or a file boundary (the syntax layer's targets).
    Targeted {
        target: Target,
        op: NodeOp,
        expected: Option<Digest>,
        /// Remap a stale line anchor to the one line its hash now sits on (once, reported).
        repair: bool,
    },
    /// A block of a text dialect (Aider SEARCH/REPLACE, Codex chunk, unified-diff hunk),
    /// found with the tolerance ladder.
    Block(Block),
    /// Move the file to `to`, after its other operations (a rename; Codex `*** Move to:`,
    /// a git rename). The destination must not exist unless the plan is applied with
    /// `--overwrite`.
    Move { to: PathSpec },
    /// Create a new file with exactly these bytes.
    Create { content: String },
    /// Delete an existing file.
    Delete { expected: Option<Digest> },
    /// Put exact bytes back (undo): the file must hold `expected` (or, when `expected` is
    /// absent, must not exist). Only a move may share its file.
    Restore {
        content: std::sync::Arc<Vec<u8>>,
        expected: Option<Digest>,
        /// The mode the file gets back: executable (100755) or not.
        executable: bool,
    },
    /// Set (or clear) the file's executable bit, git mode 100755 (or 100644), with its other
    /// operations (a git diff's `old mode` / `new mode`, a new file of mode 100755).
    Mode { executable: bool },
    /// Set, append or delete the value at a config path of a JSON, YAML or TOML file.
    Config {
        config: ConfigOp,
        expected: Option<Digest>,
    },
    /// A symbol-addressed edit (`replace_body`, `insert_member`, ...), resolved on the syntax
    /// tree of the file as read.
    Symbol(symbol::SymbolEdit),
}

/// An exact find/replace, resolved against the file as read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextEdit {
    pub find: String,
    pub replace: String,
    pub select: Occurrence,
}

/// Which occurrences of `find` an edit replaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Occurrence {
    /// `find` must occur exactly once.
    Unique,
    /// The n-th occurrence (1-based).
    Nth(usize),
    /// Every occurrence.
    All,
}

impl Occurrence {
    /// Builds the selection from the plan's `occurrence` / `all` fields.
    pub fn from_fields(occurrence: Option<u64>, all: Option<bool>) -> Result<Self, String> {
        match (occurrence, all.unwrap_or(false)) {
            (Some(_), true) => Err("`occurrence` and `all` exclude each other".into()),
            (Some(0), false) => Err("`occurrence` counts from 1".into()),
            (Some(n), false) => usize::try_from(n)
                .map(Occurrence::Nth)
                .map_err(|_| "`occurrence` is too large".into()),
            (None, true) => Ok(Occurrence::All),
            (None, false) => Ok(Occurrence::Unique),
        }
    }
}

/// What a targeted operation addresses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A bare or qualified name (`Class.method`); must name exactly one structure.
    Symbol(String),
    /// A structure by the identity `read` printed, with optional guards.
    Node {
        identity: String,
        kind: Option<String>,
        expected_hash: Option<String>,
        span_hint: Option<(usize, usize)>,
    },
    /// Structures of `kind` whose name matches the glob `name`; must match exactly one.
    Selector {
        kind: String,
        name: Option<String>,
        exclude_kinds: Vec<String>,
    },
    /// One line, or a range up to `end`, by `LINE:HASH` anchors.
    Lines {
        start: LineAnchor,
        end: Option<LineAnchor>,
    },
    FileStart,
    FileEnd,
}

impl Target {
    /// Whether the target needs the file's syntax tree.
    pub fn is_structural(&self) -> bool {
        matches!(
            self,
            Target::Symbol(_) | Target::Node { .. } | Target::Selector { .. }
        )
    }
}

/// `LINE:HASH`: a 1-based line number and the 8-hex hash of that line without its terminator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineAnchor {
    pub line: usize,
    pub hash: String,
}

impl LineAnchor {
    /// Parses `12:abcd0123`, also in the display form `12:abcd0123|text` that `read` prints.
    pub fn parse(text: &str) -> Result<Self, String> {
        let anchor = text.split_once('|').map_or(text, |(a, _)| a).trim();
        let (line, hash) = anchor
            .split_once(':')
            .ok_or_else(|| format!("`{text}` is not a LINE:HASH anchor"))?;
        let line: usize = line
            .parse()
            .map_err(|_| format!("`{line}` is not a line number"))?;
        let valid = hash.len() == 8
            && hash
                .bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase());
        if line == 0 || !valid {
            return Err(format!(
                "`{text}` is not a LINE:HASH anchor (1-based line, 8 lowercase hex)"
            ));
        }
        Ok(Self {
            line,
            hash: hash.to_owned(),
        })
    }

    pub fn display(&self) -> String {
        format!("{}:{}", self.line, self.hash)
    }
}

/// What a targeted operation does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeOp {
    Replace(String),
    Delete,
    InsertBefore(String),
    InsertAfter(String),
    /// Insert at a file boundary.
    Insert(String),
    /// A regex replacement bounded to the target's text.
    ScopedRegex {
        pattern: String,
        replacement: String,
    },
    /// Remove exactly the structure's bytes (its extent): the source half of a move.
    MoveOut,
    /// Insert the bytes of a structure moved from elsewhere beside the target: the
    /// destination half of a move.
    MoveIn(Box<MoveIn>),
}

/// Where a moved structure comes from and the literal text around it. Nothing is inferred:
/// no separator, no re-indentation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveIn {
    /// The file the structure is moved out of (may be the destination's own file).
    pub from: PathSpec,
    /// The moved structure in `from`.
    pub source: Target,
    /// Insert after the destination (else before it).
    pub after: bool,
    pub prefix: String,
    pub suffix: String,
    /// The structure's bytes, filled in by the engine (`txn::moves::materialize`) from the
    /// source file as read.
    pub moved: Option<String>,
}

impl MoveIn {
    /// `prefix` + the moved bytes + `suffix`; `None` until the engine filled in the bytes.
    pub fn text(&self) -> Option<String> {
        let moved = self.moved.as_deref()?;
        Some(format!("{}{moved}{}", self.prefix, self.suffix))
    }
}

impl PartialEq for PathSpec {
    fn eq(&self, other: &Self) -> bool {
        self.raw == other.raw && self.base == other.base
    }
}

impl Eq for PathSpec {}

impl NodeOp {
    pub fn name(&self) -> &'static str {
        match self {
            NodeOp::Replace(_) => "replace",
            NodeOp::Delete => "delete",
            NodeOp::InsertBefore(_) => "insert_before",
            NodeOp::InsertAfter(_) => "insert_after",
            NodeOp::Insert(_) => "insert",
            NodeOp::ScopedRegex { .. } => "scoped_regex",
            NodeOp::MoveOut => "move_out",
            NodeOp::MoveIn(m) if m.after => "move_in_after",
            NodeOp::MoveIn(_) => "move_in_before",
        }
    }

    /// Refuses combinations that have no meaning (an insert into a function, a regex on a
    /// file boundary, an end anchor on an insertion).
    pub fn check(&self, target: &Target) -> Result<(), String> {
        let boundary = matches!(target, Target::FileStart | Target::FileEnd);
        match (self, target) {
            (NodeOp::Insert(_), _) if !boundary => Err(
                "`insert` works on file-start / file-end; use insert_before / insert_after".into(),
            ),
            (op, _) if boundary && !matches!(op, NodeOp::Insert(_) | NodeOp::MoveIn(_)) => Err(
                format!("file boundaries take `insert`, not `{}`", op.name()),
            ),
            (NodeOp::ScopedRegex { .. }, Target::Lines { .. }) => {
                Err("scoped_regex needs a structure target".into())
            }
            (NodeOp::MoveOut, t) if !t.is_structural() => {
                Err("a move takes a structure (node, symbol, selector) as its source".into())
            }
            (
                NodeOp::InsertBefore(_) | NodeOp::InsertAfter(_) | NodeOp::MoveIn(_),
                Target::Lines { end: Some(_), .. },
            ) => Err("an end anchor goes with replace or delete only".into()),
            _ => Ok(()),
        }
    }
}

/// Refuses a line operation named by a request (`set_line`, `replace_lines`, …) on a target
/// that is not a line, and a single-line operation given an end anchor.
pub fn check_line_op(name: &str, target: &Target) -> Result<(), String> {
    let lines = matches!(target, Target::Lines { .. });
    let ranged = matches!(target, Target::Lines { end: Some(_), .. });
    let line_op = matches!(
        name,
        "set_line" | "replace_lines" | "replace_range" | "insert_after_line" | "line_insert_after"
    );
    if line_op && !lines {
        return Err(format!(
            "`{name}` is a line operation but the target is not a line: use a `line` target \
             (`anchor` from `read --mode line`), or `replace` / `insert_after` for a structure"
        ));
    }
    if ranged && matches!(name, "set_line" | "insert_after_line" | "line_insert_after") {
        return Err(format!(
            "`{name}` takes one line: drop `end_anchor`, or use `replace_lines` for a range"
        ));
    }
    Ok(())
}

/// A block of a text dialect: `search` (whole lines, possibly empty) replaced by `replace`.
///
/// Matching goes down the tolerance ladder (exact bytes, line endings, trailing whitespace,
/// indentation, Unicode punctuation, blank lines at the edges) and must be unique across every
/// tier. Lines on both sides keep the file's bytes; only changed lines come from the block. A
/// block whose `replace` is present once, around every match of `search` (or where `search` is
/// absent), is already applied.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Block {
    pub search: String,
    pub replace: String,
    /// Lines that must come before the match, in order (Codex `@@ context` anchors). With an
    /// empty `search`, `replace` goes right after the last anchor line.
    pub anchors: Vec<String>,
    /// The match must end at the end of the file (Codex `*** End of File`).
    pub at_eof: bool,
    /// Where the hunk says it starts in the file (1-based; unified diffs): a hint only.
    pub hint_line: Option<usize>,
    /// How the body's lines pair up, in order, when the dialect says it (diff and Codex bodies:
    /// context lines are [`Side::Both`]); empty when the ladder aligns `search` and `replace`
    /// itself with a line diff (SEARCH/REPLACE blocks).
    pub script: Vec<Side>,
    /// Other readings of a SEARCH/REPLACE block whose divider cannot be told from the code's
    /// own `=======` lines: `(search, replace)` pairs. The ladder tries every reading (this
    /// block's first) against the file; exactly one may match.
    pub readings: Vec<(String, String)>,
}

/// Which sides of a block one of its body lines is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// Context: on both sides, so the file's own bytes are kept.
    Both,
    /// Removed: in `search` only.
    Old,
    /// Added: in `replace` only.
    New,
}
