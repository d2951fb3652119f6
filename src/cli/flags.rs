//! Flags shared by the commands that write: how to run the transaction, and how `--find`
//! selects occurrences.

use clap::Args;

use crate::error::{Error, Result};
use crate::plan::{Digest, Occurrence, OpKind, TextEdit};
use crate::txn;

/// `--dry-run`, `--diff`, `--allow-syntax-errors`, `--stage`, `--cached`.
#[derive(Clone, Debug, Args)]
pub struct WriteFlags {
    /// Prove everything, write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Print the unified diff of the result.
    #[arg(long)]
    pub diff: bool,
    /// Leave the `diff: {text, file_moves}` view out of a committed write's JSON.
    #[arg(long, conflicts_with = "diff")]
    pub no_diff: bool,
    /// Allow text and line edits that add syntax errors to files in supported languages.
    #[arg(long)]
    pub allow_syntax_errors: bool,
    /// Also stage the new contents in the index (as `git apply --index`).
    #[arg(long, visible_alias = "index", conflicts_with = "cached")]
    pub stage: bool,
    /// Apply to the index only, leaving the work tree alone (as `git apply --cached`).
    #[arg(long)]
    pub cached: bool,
    /// Label of the receipt (default: the plan's `target_id`, else `plan-<sha256 prefix>`).
    #[arg(long, value_name = "LABEL")]
    pub task: Option<String>,
    /// agent-edit's receipt folder (`.agent-edit/receipts/<label>`): receipts live in git, so
    /// only its last component is used, as the label when `--task` is not given.
    #[arg(long, value_name = "DIR")]
    pub output_dir: Option<String>,
}

impl WriteFlags {
    pub fn options(&self) -> txn::Options {
        txn::Options {
            dry_run: self.dry_run,
            allow_syntax_errors: self.allow_syntax_errors,
            exact: false,
            overwrite: false,
            build_only: false,
            pinned: false,
        }
    }
}

/// `--occurrence`, `--all`, `--expected-sha256`.
#[derive(Debug, Args)]
pub struct FindFlags {
    /// With --find: replace only the N-th occurrence (1-based).
    #[arg(long, value_name = "N", conflicts_with = "all")]
    pub occurrence: Option<u64>,
    /// With --find: replace every occurrence.
    #[arg(long)]
    pub all: bool,
    /// Refuse unless the file's sha256 is this (64 hex, `sha256:` prefix optional).
    #[arg(long, visible_alias = "expected-source-sha256", value_name = "SHA256")]
    pub expected_sha256: Option<String>,
}

impl FindFlags {
    /// The find/replace operation these flags select, checked as the command line is.
    pub fn edit(&self, find: String, replace: String) -> Result<OpKind> {
        if find.is_empty() {
            return Err(super::usage_error("`--find` must not be empty"));
        }
        let select =
            Occurrence::from_fields(self.occurrence, Some(self.all)).map_err(super::usage_error)?;
        let expected = self.expected()?;
        Ok(OpKind::Edit {
            edit: TextEdit {
                find,
                replace,
                select,
            },
            expected,
        })
    }

    /// The `--expected-sha256` digest, checked.
    pub fn expected(&self) -> Result<Option<Digest>> {
        self.expected_sha256
            .as_deref()
            .map(Digest::parse)
            .transpose()
            .map_err(|e| Error::usage(e.message))
    }
}

/// An engine error in the terms of the flag form (`edit`/`patch FILE --find …`): the one
/// operation needs no `edits[0]:` prefix, and the next action names flags, not plan fields.
pub fn in_flag_terms(mut error: crate::error::Error) -> crate::error::Error {
    for prefix in ["edits[0]: ", "operations[0]: "] {
        if let Some(rest) = error.message.strip_prefix(prefix) {
            error.message = rest.to_owned();
        }
    }
    error.message = error.message.replace("`find` ", "`--find` ");
    const TERMS: &[(&str, &str)] = &[
        (
            "or set `occurrence` (1-based) or `all`",
            "or pass `--occurrence N` (1-based) or `--all`",
        ),
        (
            "copy the exact current text into `find`",
            "copy the exact current text into `--find`",
        ),
        (
            "`find` matches more than once",
            "`--find` matches more than once",
        ),
        (
            "(it is relative to the repository root in a plan), or create the file with `creates`",
            "(FILE is relative to the current directory); to create a file, `apply` a plan with `creates` or a SEARCH/REPLACE block with an empty SEARCH",
        ),
        (
            "acknowledge with \"allow_signature_change\": true (--allow-signature-change)",
            "acknowledge with `--allow-signature-change`",
        ),
    ];
    if let Some(hint) = error.hint.as_mut() {
        for (plan, flags) in TERMS {
            *hint = hint.replace(plan, flags);
        }
    }
    error
}
