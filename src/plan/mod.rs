//! The typed plan: what every front-end compiles into and the one transaction engine applies.
//!
//! A plan is pure data, in input order: no I/O happens here. Paths are still as written by
//! the caller (with the base they are relative to); `target::path` resolves and checks them.

pub mod digest;
pub mod schema;
pub mod splice;

pub use digest::Digest;

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

/// Where an operation sits in its input: the list it is in and its index there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    pub list: &'static str,
    pub index: usize,
}

impl Origin {
    /// `edits[3]`, as used in messages.
    pub fn label(&self) -> String {
        format!("{}[{}]", self.list, self.index)
    }

    /// `/edits/3`, a JSON Pointer into the input document.
    pub fn pointer(&self) -> String {
        format!("/{}/{}", self.list, self.index)
    }
}

#[derive(Clone, Debug)]
pub enum OpKind {
    /// Change text inside an existing file.
    Edit {
        edit: TextEdit,
        expected: Option<Digest>,
    },
    /// Create a new file with exactly these bytes.
    Create { content: String },
    /// Delete an existing file.
    Delete { expected: Option<Digest> },
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
