//! `edit FILE --symbol S --replace-body|--replace-symbol|--insert-member|--remove-symbol`,
//! `edit FILE --add-use NAME`: one symbol-addressed edit from the command line, compiled into
//! the same plan operation as a `source_edit_plan` edit with an `op`; and
//! `--allow-signature-change`, which acknowledges API changes for every form of `edit`.

use clap::Args;

use crate::error::{Error, Result};
use crate::formats::symbol_edit::{Fields, build};
use crate::plan::{Digest, OpKind, Plan};

#[derive(Debug, Args)]
pub struct SymbolFlags {
    /// The declaration to edit: `Greeter::greet()`, `Class::$prop`, `Class.method`, `function()`.
    #[arg(long, value_name = "SYMBOL")]
    pub symbol: Option<String>,
    /// With --symbol: replace the body, keep the signature.
    #[arg(long, requires = "symbol")]
    pub replace_body: bool,
    /// With --symbol: replace the whole declaration (an omitted doc comment / attributes stay).
    #[arg(long, requires = "symbol")]
    pub replace_symbol: bool,
    /// With --symbol (a class-like): add a member (see --position, --after, --before).
    #[arg(long, requires = "symbol")]
    pub insert_member: bool,
    /// With --symbol: remove the declaration with its doc comment and attributes.
    #[arg(long, requires = "symbol")]
    pub remove_symbol: bool,
    /// Add a namespace-level import (`App\Model\User`, `typing.Optional`, `os`, `X from m`).
    #[arg(long, value_name = "NAME")]
    pub add_use: Option<String>,
    /// With --insert-member: `start` or `end` (default).
    #[arg(long, value_name = "WHERE", requires = "insert_member")]
    pub position: Option<String>,
    /// With --insert-member: after this member (`greet()`, `$count`, `method`).
    #[arg(long, value_name = "MEMBER", requires = "insert_member")]
    pub after: Option<String>,
    /// With --insert-member: before this member.
    #[arg(long, value_name = "MEMBER", requires = "insert_member")]
    pub before: Option<String>,
    /// The code, from a file (relative to the current directory).
    #[arg(long, value_name = "PATH", conflicts_with = "text")]
    pub text_file: Option<String>,
    /// The code, inline.
    #[arg(long, allow_hyphen_values = true)]
    pub text: Option<String>,
    /// Write the code as given instead of re-indenting it to its target.
    #[arg(long)]
    pub no_reindent: bool,
    /// Apply changes to public declarations (checked callers yourself) and report them.
    #[arg(long)]
    pub allow_signature_change: bool,
}

impl SymbolFlags {
    /// Whether these flags ask for a symbol edit (rather than --find / --json).
    pub fn wanted(&self) -> bool {
        self.symbol.is_some() || self.add_use.is_some()
    }

    /// The plan of one symbol edit of `file`.
    pub fn plan(&self, file: Option<String>, find: bool, expected: Option<Digest>) -> Result<Plan> {
        if find {
            return Err(super::usage_error(
                "--symbol / --add-use and --find / --replace exclude each other",
            ));
        }
        let file = file.ok_or_else(|| super::usage_error("`FILE` is required"))?;
        Ok(Plan::single(
            "edit_flags",
            file,
            "edits",
            self.op(expected)?,
        ))
    }

    /// The op these flags select, as a plan operation.
    fn op(&self, expected: Option<Digest>) -> Result<OpKind> {
        let chosen: Vec<&str> = [
            (self.replace_body, "replace_body"),
            (self.replace_symbol, "replace_symbol"),
            (self.insert_member, "insert_member"),
            (self.remove_symbol, "remove_symbol"),
            (self.add_use.is_some(), "add_use"),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, name)| *name)
        .collect();
        let op = match chosen.as_slice() {
            [one] => *one,
            [] => {
                return Err(super::usage_error(
                    "--symbol needs one of --replace-body, --replace-symbol, --insert-member, --remove-symbol",
                ));
            }
            _ => {
                return Err(super::usage_error(format!(
                    "choose one operation, not {}",
                    chosen.join(" and ")
                )));
            }
        };
        let fields = Fields {
            symbol: self.symbol.clone(),
            code: self.code()?,
            name: self.add_use.clone(),
            position: self.position.clone(),
            after: self.after.clone(),
            before: self.before.clone(),
        };
        build(op, fields, !self.no_reindent, expected)
            .map(OpKind::Symbol)
            .map_err(|m| super::usage_error(m.replace('`', "")))
    }

    fn code(&self) -> Result<Option<String>> {
        match (&self.text, &self.text_file) {
            (Some(text), _) => Ok(Some(text.clone())),
            (None, Some(path)) => std::fs::read_to_string(path).map(Some).map_err(|e| {
                Error::io(&format!("reading --text-file {path}"), &e).detail("path", path.as_str())
            }),
            (None, None) => Ok(None),
        }
    }

    /// Applies `--allow-signature-change` to a plan of any form.
    pub fn acknowledge(&self, plan: &mut Plan) {
        plan.allow_signature_change |= self.allow_signature_change;
    }
}
