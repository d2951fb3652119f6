//! The tools' arguments: one typed struct per tool (its input schema is derived from it), each
//! turned into the command line of the CLI command it stands for, so a tool call goes through
//! the same parser, checks and write path as that command.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Options shared by the tools that write.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct WriteOptions {
    /// Prove everything, write nothing.
    #[serde(default)]
    pub dry_run: bool,
    /// Allow text and line edits that add syntax errors.
    #[serde(default)]
    pub allow_syntax_errors: bool,
    /// Label of the receipt.
    pub task: Option<String>,
    /// Also stage the new contents in the index.
    #[serde(default)]
    pub stage: bool,
}

/// `read`: the outline, one structure, a selector listing, or line anchors.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadTool {
    /// Files to read, relative to the server's directory.
    pub files: Vec<String>,
    /// `ast` (structures, the default) or `line` (`LINE:HASH|content`).
    pub mode: Option<ReadMode>,
    /// One structure by bare or qualified name.
    pub symbol: Option<String>,
    /// Lines of context around `symbol`.
    pub context: Option<usize>,
    /// Only structures of this kind.
    pub kind: Option<String>,
    /// Only structures whose name matches this glob.
    pub name: Option<String>,
    /// Leave out structures of these kinds.
    #[serde(default)]
    pub exclude_kind: Vec<String>,
    /// Line mode: first line to show (1-based).
    pub offset: Option<usize>,
    /// Line mode: number of lines to show.
    pub limit: Option<usize>,
    /// Include each structure's text.
    #[serde(default)]
    pub verbose: bool,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReadMode {
    Ast,
    Line,
}

/// `edit`: one exact find/replace, or one symbol-addressed operation.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct EditTool {
    /// File to edit.
    pub file: String,
    /// Exact text to find (must occur once unless `occurrence` or `all`).
    pub find: Option<String>,
    /// Text to put in its place.
    pub replace: Option<String>,
    /// Replace only the N-th occurrence (1-based).
    pub occurrence: Option<u64>,
    /// Replace every occurrence.
    #[serde(default)]
    pub all: bool,
    /// Refuse unless the file's sha256 is this.
    pub expected_sha256: Option<String>,
    /// The declaration to edit (`Greeter::greet()`, `Class.method`, `function()`).
    pub symbol: Option<String>,
    /// What to do with `symbol`.
    pub operation: Option<SymbolOperation>,
    /// The code for `operation`.
    pub text: Option<String>,
    /// `insert_member`: `start` or `end` (default).
    pub position: Option<String>,
    /// `insert_member`: after this member.
    pub after: Option<String>,
    /// `insert_member`: before this member.
    pub before: Option<String>,
    /// Add a namespace-level import.
    pub add_use: Option<String>,
    /// Write the code as given instead of re-indenting it.
    #[serde(default)]
    pub no_reindent: bool,
    /// Apply changes to public declarations and report them.
    #[serde(default)]
    pub allow_signature_change: bool,
    #[serde(flatten)]
    pub write: WriteOptions,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SymbolOperation {
    ReplaceBody,
    ReplaceSymbol,
    InsertMember,
    RemoveSymbol,
}

/// `patch`: one target, one operation.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct PatchTool {
    /// File to change.
    pub file: String,
    /// Target: exact text.
    pub find: Option<String>,
    /// Target: a structure by name.
    pub symbol: Option<String>,
    /// Target: an identity from `read`, `LINE:HASH`, `file-start` or `file-end`.
    pub at: Option<String>,
    /// With a `LINE:HASH` target: the last line of the range.
    pub end_anchor: Option<String>,
    /// Target: structures of this kind (with `name`).
    pub kind: Option<String>,
    /// Target: a name glob (with `kind`).
    pub name: Option<String>,
    /// The operation.
    pub operation: PatchOperation,
    /// The new text (`replace`, `insert`, `insert_before`, `insert_after`).
    pub text: Option<String>,
    /// `scoped_regex`: the pattern, searched inside the target.
    pub scoped_regex: Option<String>,
    /// `scoped_regex`: the replacement.
    pub scoped_replacement: Option<String>,
    /// With `find`: only the N-th occurrence (1-based).
    pub occurrence: Option<u64>,
    /// With `find`: every occurrence.
    #[serde(default)]
    pub all: bool,
    /// Refuse unless the file's sha256 is this.
    pub expected_sha256: Option<String>,
    /// Remap a stale line anchor that moved to exactly one place.
    #[serde(default)]
    pub auto_repair: bool,
    /// Apply changes to public declarations and report them.
    #[serde(default)]
    pub allow_signature_change: bool,
    #[serde(flatten)]
    pub write: WriteOptions,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PatchOperation {
    Replace,
    Delete,
    Insert,
    InsertBefore,
    InsertAfter,
    ScopedRegex,
}

/// `config_set`: set, append to or delete a JSON/YAML/TOML value by key path.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ConfigSetTool {
    /// The config file.
    pub file: String,
    /// Key path (`a.b.0.c`).
    pub path: String,
    /// `set` (default), `append` or `delete`.
    pub action: Option<ConfigAction>,
    /// The value, as JSON (required for `set` and `append`).
    pub value: Option<serde_json::Value>,
    /// Create missing parents.
    #[serde(default)]
    pub create_missing: bool,
    /// YAML: which document of a multi-document file.
    pub document_index: Option<usize>,
    /// Refuse unless the file's sha256 is this.
    pub expected_sha256: Option<String>,
    #[serde(flatten)]
    pub write: WriteOptions,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ConfigAction {
    Set,
    Append,
    Delete,
}

/// `apply`: any dialect as text, all or nothing.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ApplyTool {
    /// The edit: a source_edit_plan, SEARCH/REPLACE blocks (a whole reply is fine), a Codex
    /// patch, a unified diff, an edit list or a changeset.
    pub input: String,
    /// Skip detection: `plan`, `blocks`, `codex`, `diff` or `list`.
    pub dialect: Option<DialectName>,
    /// Blocks, hunks and chunks must match exact bytes.
    #[serde(default)]
    pub exact: bool,
    /// Let creations and moves replace an existing file.
    #[serde(default)]
    pub overwrite: bool,
    /// Changesets: remap stale line anchors that moved to exactly one place.
    #[serde(default)]
    pub repair: bool,
    /// Apply changes to public declarations and report them.
    #[serde(default)]
    pub allow_signature_change: bool,
    #[serde(flatten)]
    pub write: WriteOptions,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DialectName {
    Plan,
    Blocks,
    Codex,
    Diff,
    List,
}

/// `verify`: re-prove a receipt.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VerifyTool {
    /// Label or receipt commit (default: the newest).
    pub label: Option<String>,
    /// Accept edit-format residue in the result, giving the reason.
    pub accept_residue: Option<String>,
}

/// `undo`: restore a receipt's pre-images.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UndoTool {
    /// Label or receipt commit (default: the newest).
    pub label: Option<String>,
    /// Prove everything, write nothing.
    #[serde(default)]
    pub dry_run: bool,
}

/// `log`: the receipts, newest first.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LogTool {
    /// At most this many (default 50).
    pub max_count: Option<usize>,
}

/// `show`: one receipt and its diff.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShowTool {
    /// Label or receipt commit (default: the newest).
    pub label: Option<String>,
}

/// A command line under construction: `--flag=value` forms, so values may start with `-`.
#[derive(Default)]
pub struct Argv(Vec<String>);

impl Argv {
    fn new(command: &str) -> Self {
        Self(vec![command.to_owned()])
    }

    fn flag(&mut self, name: &str, on: bool) -> &mut Self {
        if on {
            self.0.push(format!("--{name}"));
        }
        self
    }

    fn value(&mut self, name: &str, value: Option<impl ToString>) -> &mut Self {
        if let Some(value) = value {
            self.0.push(format!("--{name}={}", value.to_string()));
        }
        self
    }

    /// Positional arguments, after `--`.
    fn positional<'a>(mut self, values: impl IntoIterator<Item = &'a String>) -> Vec<String> {
        self.0.push("--".into());
        self.0.extend(values.into_iter().cloned());
        self.0
    }

    fn write(&mut self, write: &WriteOptions) -> &mut Self {
        self.flag("dry-run", write.dry_run)
            .flag("allow-syntax-errors", write.allow_syntax_errors)
            .value("task", write.task.as_deref())
            .flag("stage", write.stage)
    }
}

fn needed(what: &str) -> Error {
    crate::cli::usage_error(what.to_owned())
}

impl ReadTool {
    pub fn argv(&self) -> Result<Vec<String>> {
        if self.files.is_empty() {
            return Err(needed("`files` must name at least one file"));
        }
        let mut argv = Argv::new("read");
        argv.flag("json", true)
            .flag("verbose", self.verbose)
            .value("mode", self.mode.map(|m| name_of(&m)))
            .value("symbol", self.symbol.as_deref())
            .value("context", self.context)
            .value("kind", self.kind.as_deref())
            .value("name", self.name.as_deref())
            .value("offset", self.offset)
            .value("limit", self.limit);
        for kind in &self.exclude_kind {
            argv.value("exclude-kind", Some(kind));
        }
        Ok(argv.positional(&self.files))
    }
}

impl EditTool {
    pub fn argv(&self) -> Result<Vec<String>> {
        let mut argv = Argv::new("edit");
        argv.value("find", self.find.as_deref())
            .value("replace", self.replace.as_deref())
            .value("occurrence", self.occurrence)
            .flag("all", self.all)
            .value("expected-sha256", self.expected_sha256.as_deref())
            .value("symbol", self.symbol.as_deref())
            .value("text", self.text.as_deref())
            .value("position", self.position.as_deref())
            .value("after", self.after.as_deref())
            .value("before", self.before.as_deref())
            .value("add-use", self.add_use.as_deref())
            .flag("no-reindent", self.no_reindent)
            .flag("allow-signature-change", self.allow_signature_change)
            .write(&self.write);
        if let Some(op) = self.operation {
            argv.flag(&name_of(&op).replace('_', "-"), true);
        }
        Ok(argv.positional([&self.file]))
    }
}

impl PatchTool {
    pub fn argv(&self) -> Result<Vec<String>> {
        let mut argv = Argv::new("patch");
        argv.value("find", self.find.as_deref())
            .value("symbol", self.symbol.as_deref())
            .value("at", self.at.as_deref())
            .value("end-anchor", self.end_anchor.as_deref())
            .value("kind", self.kind.as_deref())
            .value("name", self.name.as_deref())
            .value("occurrence", self.occurrence)
            .flag("all", self.all)
            .value("expected-sha256", self.expected_sha256.as_deref())
            .flag("auto-repair", self.auto_repair)
            .flag("allow-signature-change", self.allow_signature_change)
            .write(&self.write);
        let op = name_of(&self.operation).replace('_', "-");
        match self.operation {
            PatchOperation::Delete => argv.flag("delete", true),
            PatchOperation::ScopedRegex => argv
                .value("scoped-regex", self.scoped_regex.as_deref())
                .value("scoped-replacement", self.scoped_replacement.as_deref()),
            _ => {
                let text = self.text.as_deref().ok_or_else(|| {
                    needed(&format!("`text` is required for the `{op}` operation"))
                })?;
                argv.value(&op, Some(text))
            }
        };
        Ok(argv.positional([&self.file]))
    }
}

impl ConfigSetTool {
    pub fn argv(&self) -> Result<Vec<String>> {
        let mut argv = Argv::new("patch");
        argv.value("config-path", Some(&self.path))
            .flag("create-missing", self.create_missing)
            .value("document-index", self.document_index)
            .value("expected-sha256", self.expected_sha256.as_deref())
            .write(&self.write);
        let action = self.action.unwrap_or(ConfigAction::Set);
        let value = self.value.as_ref().map(serde_json::Value::to_string);
        match (action, value) {
            (ConfigAction::Delete, _) => argv.flag("delete", true),
            (ConfigAction::Set, Some(v)) => argv.value("set-value", Some(v)),
            (ConfigAction::Append, Some(v)) => argv.value("append-value", Some(v)),
            (_, None) => return Err(needed("`value` is required for `set` and `append`")),
        };
        Ok(argv.positional([&self.file]))
    }
}

impl ApplyTool {
    pub fn argv(&self) -> Vec<String> {
        let mut argv = Argv::new("apply");
        argv.value("dialect", self.dialect.map(|d| name_of(&d)))
            .flag("exact", self.exact)
            .flag("overwrite", self.overwrite)
            .flag("repair", self.repair)
            .flag("allow-signature-change", self.allow_signature_change)
            .write(&self.write);
        argv.0
    }
}

impl VerifyTool {
    pub fn argv(&self) -> Vec<String> {
        let mut argv = Argv::new("verify");
        argv.value("accept-residue", self.accept_residue.as_deref());
        argv.positional(&self.label)
    }
}

impl UndoTool {
    pub fn argv(&self) -> Vec<String> {
        let mut argv = Argv::new("undo");
        argv.flag("dry-run", self.dry_run);
        argv.positional(&self.label)
    }
}

impl LogTool {
    pub fn argv(&self) -> Vec<String> {
        let mut argv = Argv::new("log");
        argv.flag("json", true).value("max-count", self.max_count);
        argv.0
    }
}

impl ShowTool {
    pub fn argv(&self) -> Vec<String> {
        Argv::new("show").positional(&self.label)
    }
}

/// The snake_case name serde gives a unit variant.
fn name_of(value: &impl Serialize) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}
