//! The one error type of git identedit.
//!
//! Every failure carries a stable snake_case [`Code`] (a contract: codes are never renamed or
//! reused), a human message, a hint, a `next_action` naming the one legal recovery, and
//! structured `details`. The code also decides the process exit code, in one table below.

use serde_json::{Map, Value};

/// Stable error identities. The string form ([`Code::as_str`]) is what agents match on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    Usage,
    InputNotFound,
    IoError,
    PlanMalformed,
    PlanUnsupported,
    PathRefused,
    FileUnsupported,
    AnchorMissing,
    AnchorAmbiguous,
    EditsOverlap,
    TargetExists,
    EvidenceChanged,
    TargetMissing,
    AmbiguousTarget,
    PreconditionFailed,
    ParseFailure,
    NoProvider,
    ResourceBusy,
    ApplyFailed,
    Internal,
    NotARepository,
    BareRepository,
    ReceiptNotFound,
    ReceiptNotRecorded,
    Drifted,
    NothingToUndo,
    IndexMismatch,
    HookRefused,
    HookConflict,
    InvalidRequest,
    ChangesetTampered,
    NeedsChangeset,
    ConfigUnsupported,
    ApiChangeRefused,
    StaleRead,
}

/// Everything documented about one code, kept in one place.
pub struct CodeInfo {
    pub code: Code,
    pub name: &'static str,
    pub next_action: &'static str,
    pub exit: u8,
    pub meaning: &'static str,
}

/// Exit code of a success.
pub const EXIT_OK: u8 = 0;
/// The input was understood but refused by a check; nothing was written.
pub const EXIT_REFUSED: u8 = 1;
/// The command line or the plan breaks its contract; nothing was read or written.
pub const EXIT_USAGE: u8 = 2;
/// Another process holds a lock; retrying later may succeed.
pub const EXIT_BUSY: u8 = 4;
/// Writing failed and every file was restored.
pub const EXIT_APPLY_FAILED: u8 = 5;
/// The files were written but their receipt could not be recorded.
pub const EXIT_UNRECORDED: u8 = 6;
/// A bug: please report it.
pub const EXIT_INTERNAL: u8 = 70;

const fn info(
    code: Code,
    name: &'static str,
    next_action: &'static str,
    exit: u8,
    meaning: &'static str,
) -> CodeInfo {
    CodeInfo {
        code,
        name,
        next_action,
        exit,
        meaning,
    }
}

/// The code of a failure nothing else classifies; also what an unknown code falls back to.
const INTERNAL: CodeInfo = info(
    Code::Internal,
    "failed",
    "report",
    EXIT_INTERNAL,
    "unclassified failure (a bug)",
);

/// The code table: name, next action, exit code and meaning of every code.
pub const CODES: &[CodeInfo] = &[
    info(
        Code::Usage,
        "usage",
        "fix_arguments",
        EXIT_USAGE,
        "bad command line",
    ),
    info(
        Code::InputNotFound,
        "input_not_found",
        "provide_input",
        EXIT_REFUSED,
        "a plan file, or a file to edit or delete, does not exist",
    ),
    info(
        Code::IoError,
        "io_error",
        "inspect_working_tree",
        EXIT_APPLY_FAILED,
        "reading a file or the plan failed for a reason other than absence",
    ),
    info(
        Code::PlanMalformed,
        "plan_malformed",
        "replan",
        EXIT_USAGE,
        "the plan breaks its contract (bad JSON, unknown key, wrong type, empty find, ...)",
    ),
    info(
        Code::PlanUnsupported,
        "plan_unsupported",
        "replan",
        EXIT_USAGE,
        "unknown plan type, contract version or operation for this build",
    ),
    info(
        Code::PathRefused,
        "path_refused",
        "replan",
        EXIT_REFUSED,
        "an absolute path, a path into .git/, a symlink, or a path leaving the repository (`..` inside it is resolved)",
    ),
    info(
        Code::FileUnsupported,
        "file_unsupported",
        "replan",
        EXIT_REFUSED,
        "the target is a directory, a special file, binary (NUL byte) or not valid UTF-8",
    ),
    info(
        Code::AnchorMissing,
        "anchor_missing",
        "reread_and_retry",
        EXIT_REFUSED,
        "`find` does not occur in the file (or the requested occurrence does not exist)",
    ),
    info(
        Code::AnchorAmbiguous,
        "anchor_ambiguous",
        "disambiguate_anchor",
        EXIT_REFUSED,
        "`find` occurs more than once; pick one with `occurrence` or use `all`",
    ),
    info(
        Code::EditsOverlap,
        "edits_overlap",
        "merge_edits",
        EXIT_REFUSED,
        "two edits touch the same text, or one file is created, edited or deleted twice",
    ),
    info(
        Code::TargetExists,
        "target_exists",
        "edit_existing_file",
        EXIT_REFUSED,
        "a file to create already exists",
    ),
    info(
        Code::EvidenceChanged,
        "evidence_changed",
        "reread_and_retry",
        EXIT_REFUSED,
        "the file's sha256 differs from `expected_source_sha256`: it changed since it was read",
    ),
    info(
        Code::TargetMissing,
        "target_missing",
        "reread_and_retry",
        EXIT_REFUSED,
        "no structure, identity or selector match in the file as it is now",
    ),
    info(
        Code::AmbiguousTarget,
        "ambiguous_target",
        "disambiguate_target",
        EXIT_REFUSED,
        "a symbol or selector matches several structures (`candidates`)",
    ),
    info(
        Code::PreconditionFailed,
        "precondition_failed",
        "reread_and_retry",
        EXIT_REFUSED,
        "a line anchor no longer matches (`expected`, `actual`, `remaps`, `line_check`)",
    ),
    info(
        Code::ParseFailure,
        "parse_failure",
        "fix_syntax",
        EXIT_REFUSED,
        "the source does not parse (`stage: source`) or the result would not (`stage: proposed_result`)",
    ),
    info(
        Code::NoProvider,
        "no_provider",
        "use_text_or_line_edit",
        EXIT_REFUSED,
        "a structural request on a file with no syntax provider",
    ),
    info(
        Code::ResourceBusy,
        "resource_busy",
        "retry_later",
        EXIT_BUSY,
        "another process holds the lock of a file in the plan",
    ),
    info(
        Code::ApplyFailed,
        "apply_failed",
        "inspect_working_tree",
        EXIT_APPLY_FAILED,
        "writing failed; every file was restored",
    ),
    INTERNAL,
    info(
        Code::NotARepository,
        "not_a_repository",
        "run_inside_a_git_repository",
        EXIT_REFUSED,
        "the command needs the git ledger and no repository was found",
    ),
    info(
        Code::BareRepository,
        "bare_repository",
        "run_inside_a_work_tree",
        EXIT_REFUSED,
        "the repository is bare: it has no work tree to edit",
    ),
    info(
        Code::ReceiptNotFound,
        "receipt_not_found",
        "list_receipts_with_log",
        EXIT_REFUSED,
        "no receipt has this label or id",
    ),
    info(
        Code::ReceiptNotRecorded,
        "receipt_not_recorded",
        "inspect_working_tree",
        EXIT_UNRECORDED,
        "the files were written but their receipt could not be recorded",
    ),
    info(
        Code::Drifted,
        "drifted",
        "inspect_drifted_files",
        EXIT_REFUSED,
        "a file no longer has the bytes its receipt published",
    ),
    info(
        Code::NothingToUndo,
        "nothing_to_undo",
        "none",
        EXIT_REFUSED,
        "the receipt recorded a write that failed, or it was already undone",
    ),
    info(
        Code::IndexMismatch,
        "index_mismatch",
        "stage_or_stash_first",
        EXIT_REFUSED,
        "--stage: a file differs from its index entry, is not in the index, or (to create) is already there",
    ),
    info(
        Code::HookRefused,
        "hook_refused",
        "fix_staged_files",
        EXIT_REFUSED,
        "the pre-commit hook refused the commit: a pending recovery, a syntax regression or edit-format residue in a staged file (`problems`)",
    ),
    info(
        Code::HookConflict,
        "hook_conflict",
        "resolve_hooks_by_hand",
        EXIT_REFUSED,
        "a hook could not be installed or removed without overwriting someone else's (`path`), or the receipts to note moved",
    ),
    info(
        Code::InvalidRequest,
        "invalid_request",
        "fix_request",
        EXIT_REFUSED,
        "an edit request or changeset does not fit the files: stale line anchors (`line_check` with mismatches and remap candidates), a file listed twice, or a scoped regex that matches nothing in its structure",
    ),
    info(
        Code::ChangesetTampered,
        "changeset_tampered",
        "rebuild_changeset",
        EXIT_USAGE,
        "a changeset's digest or previews do not match its operations: it was edited after `edit --json` built it",
    ),
    info(
        Code::NeedsChangeset,
        "needs_changeset",
        "compile_with_edit_json",
        EXIT_USAGE,
        "`apply` received an edit request: compile it with `edit --json` and apply the changeset",
    ),
    info(
        Code::ConfigUnsupported,
        "config_unsupported",
        "use_text_or_line_edit",
        EXIT_REFUSED,
        "a config path through a YAML anchor, alias, tag or merge key, or a TOML table array",
    ),
    info(
        Code::ApiChangeRefused,
        "api_change_refused",
        "use_map_plan_or_acknowledge",
        EXIT_REFUSED,
        "an edit would remove or change a public declaration (`api_changes`); acknowledge with `allow_signature_change`",
    ),
    info(
        Code::StaleRead,
        "stale_read",
        "read_the_file_again",
        EXIT_REFUSED,
        "`mcp`: the file changed on disk since this session last read it",
    ),
];

impl Code {
    /// The documented facts of this code.
    pub fn info(self) -> &'static CodeInfo {
        CODES
            .iter()
            .find(|entry| entry.code == self)
            .unwrap_or(&INTERNAL)
    }

    pub fn as_str(self) -> &'static str {
        self.info().name
    }

    pub fn next_action(self) -> &'static str {
        self.info().next_action
    }

    pub fn exit_code(self) -> u8 {
        self.info().exit
    }
}

/// A failure with its code, message, hint and structured details.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    pub code: Code,
    pub message: String,
    pub hint: Option<String>,
    /// Boxed so that `Result<T, Error>` stays small on the success path.
    pub details: Box<Map<String, Value>>,
    /// The `error.type` when it is more precise than the code's (a bad glob is
    /// `invalid_selector`, a stale line anchor in `patch` is `invalid_request`).
    pub error_type: Option<&'static str>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            hint: None,
            details: Box::default(),
            error_type: None,
        }
    }

    /// Reports this failure as the identedit error type `error_type` (one of [`crate::error_types::ERROR_TYPES`]).
    #[must_use]
    pub fn typed(mut self, error_type: &'static str) -> Self {
        self.error_type = Some(error_type);
        self
    }

    /// The `error.type` of this failure.
    pub fn type_name(&self) -> &'static str {
        self.error_type.unwrap_or_else(|| self.code.error_type())
    }

    /// Adds a hint for a human or an agent (what to do next, in words).
    #[must_use]
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Adds one structured detail.
    #[must_use]
    pub fn detail(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.details.insert(key.to_owned(), value.into());
        self
    }

    /// Prefixes the message with where in the input the problem is (e.g. `edits[2]`).
    #[must_use]
    pub fn at(mut self, place: &str) -> Self {
        self.message = format!("{place}: {}", self.message);
        self
    }

    pub fn usage(message: impl Into<String>) -> Self {
        Self::new(Code::Usage, message)
    }

    pub fn malformed(message: impl Into<String>) -> Self {
        Self::new(Code::PlanMalformed, message)
    }

    /// An I/O failure while reading input; `what` names the object being read.
    pub fn io(what: &str, err: &std::io::Error) -> Self {
        let code = match err.kind() {
            std::io::ErrorKind::NotFound => Code::InputNotFound,
            _ => Code::IoError,
        };
        Self::new(code, format!("{what}: {err}")).detail("io_error", err.to_string())
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(Code::Internal, message)
    }

    /// The hint shown to the caller: the specific one, or the code's default.
    pub fn effective_hint(&self) -> String {
        // A failure after (part of) the write says so, whatever its code.
        let state = self.details.get("written").and_then(Value::as_str);
        let written = match (state, self.code) {
            (Some("all"), _) => "Every file WAS written.",
            (Some("partial"), _) => "Not every file could be restored: see details.files.",
            (_, code) => Self::written_by_code(code),
        };
        match &self.hint {
            Some(hint) => format!("{written} {hint}"),
            None => written.to_owned(),
        }
    }

    fn written_by_code(code: Code) -> &'static str {
        match code {
            Code::ApplyFailed => "Every file was restored.",
            Code::ReceiptNotRecorded => "The files listed in details.changed_files WERE changed.",
            Code::Internal => "This is a bug; please report it with the command and input.",
            Code::HookRefused => "The commit was not made.",
            _ => "Nothing was changed.",
        }
    }
}

impl Error {
    /// One error for several failed operations: the first one's code and message, and every
    /// failure (code, message, next action, where) in `details.failures`.
    pub fn combine(mut errors: Vec<Error>) -> Option<Error> {
        if errors.len() <= 1 {
            return errors.pop();
        }
        let failures: Vec<Value> = errors
            .iter()
            .flat_map(|e| match e.details.get("failures") {
                Some(Value::Array(inner)) => inner.clone(),
                _ => vec![e.summary()],
            })
            .collect();
        let mut first = errors.swap_remove(0);
        first.message = format!(
            "{} operations failed; the first: {}",
            failures.len(),
            first.message
        );
        first.details.remove("failures");
        first
            .details
            .insert("failures".into(), Value::Array(failures));
        Some(first)
    }

    fn summary(&self) -> Value {
        let mut v = serde_json::json!({
            "code": self.code.as_str(), "message": self.message, "next_action": self.code.next_action(),
        });
        for key in [
            "pointer",
            "path",
            "input_line",
            "lines",
            "closest",
            "line_check",
        ] {
            if let (Some(value), Some(obj)) = (self.details.get(key), v.as_object_mut()) {
                obj.insert(key.to_owned(), value.clone());
            }
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_one_unique_entry() {
        let mut names: Vec<_> = CODES.iter().map(|c| c.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), CODES.len());
        for entry in CODES {
            assert_eq!(entry.code.info().name, entry.name);
        }
        let all = [
            Code::Usage,
            Code::InputNotFound,
            Code::IoError,
            Code::PlanMalformed,
            Code::PlanUnsupported,
            Code::PathRefused,
            Code::FileUnsupported,
            Code::AnchorMissing,
            Code::AnchorAmbiguous,
            Code::EditsOverlap,
            Code::TargetExists,
            Code::EvidenceChanged,
            Code::TargetMissing,
            Code::AmbiguousTarget,
            Code::PreconditionFailed,
            Code::ParseFailure,
            Code::NoProvider,
            Code::ResourceBusy,
            Code::ApplyFailed,
            Code::Internal,
            Code::NotARepository,
            Code::BareRepository,
            Code::ReceiptNotFound,
            Code::ReceiptNotRecorded,
            Code::Drifted,
            Code::HookRefused,
            Code::HookConflict,
            Code::InvalidRequest,
            Code::ChangesetTampered,
            Code::NeedsChangeset,
            Code::ConfigUnsupported,
            Code::ApiChangeRefused,
            Code::StaleRead,
            Code::NothingToUndo,
            Code::IndexMismatch,
        ];
        for code in all {
            assert!(
                CODES.iter().any(|c| c.code == code),
                "{code:?} has no table entry"
            );
        }
    }
}
