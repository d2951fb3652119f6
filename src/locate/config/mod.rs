//! Config-path edits of JSON (and JSONC), YAML and TOML files: a path, an action (set, append,
//! delete) and a JSON value become the byte splices that change only the value's bytes, or the
//! fewest bytes in the file's own style for creation, append and deletion. Pure functions:
//! the caller reads and writes. Every result is parsed again before it is returned.
//!
//! Rules shared by the formats:
//! - values are JSON text; JSON files take the payload verbatim (its whitespace included),
//!   YAML and TOML render it in their own idiom;
//! - `create_missing` creates map / table keys, never array elements; delete and append refuse it;
//! - a YAML stream of several documents takes `document_index`; without it the path must exist
//!   in exactly one document, and creation needs it.

mod flow;
mod json;
mod jsonc;
mod number;
pub mod path;
mod text;
mod toml;
mod yaml;
mod yaml_value;

#[cfg(test)]
mod tests;

use std::ops::Range;

use crate::error::{Code, Error, Result};
use crate::lang::parse::{first_error, parse};
use crate::lang::provider_for;
use crate::locate::lines::Endings;
use crate::plan::splice::Splice;
use crate::plan::{ConfigOp, Digest, OpKind};

pub use path::{ConfigPath, Segment};

/// The file formats config paths work on, chosen by extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Json,
    /// JSON with comments and trailing commas (`*.jsonc`, `tsconfig*.json`, `.vscode/*.json`…).
    Jsonc,
    Yaml,
    Toml,
}

impl Format {
    /// `.json` / `.jsonc`, `.yaml` / `.yml`, `.toml` (any case); JSONC by [`jsonc::is_jsonc`].
    pub fn of(path: &str) -> Option<Format> {
        if jsonc::is_jsonc(path) {
            return Some(Format::Jsonc);
        }
        let ext = path.rsplit_once('.')?.1.to_ascii_lowercase();
        match ext.as_str() {
            "json" | "jsonc" => Some(Format::Json),
            "yaml" | "yml" => Some(Format::Yaml),
            "toml" => Some(Format::Toml),
            _ => None,
        }
    }

    /// The text the parser sees: JSONC with its trailing commas masked (offsets unchanged).
    fn view(self, text: &str) -> std::borrow::Cow<'_, str> {
        match self {
            Format::Jsonc => jsonc::mask_trailing_commas(text).into(),
            _ => text.into(),
        }
    }

    fn sample_name(self) -> &'static str {
        match self {
            Format::Json | Format::Jsonc => "x.json",
            Format::Yaml => "x.yaml",
            Format::Toml => "x.toml",
        }
    }
}

pub use crate::plan::ConfigAction as Action;

/// One config operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub path: ConfigPath,
    pub action: Action,
    pub create_missing: bool,
    pub document_index: Option<usize>,
}

impl Request {
    /// Parses the path of a plan's config operation and checks its options.
    pub fn from_op(op: &ConfigOp) -> Result<Self> {
        let path = ConfigPath::parse(&op.path).map_err(|m| {
            Error::usage(format!("bad config path: {m}"))
                .detail("reason", "bad_config_path")
                .hint("Paths look like `a.b`, `items[0].name` or `services[\"sidecar.port\"]`.")
        })?;
        let request = Self {
            path,
            action: op.action.clone(),
            create_missing: op.create_missing,
            document_index: op.document_index,
        };
        request.check()?;
        Ok(request)
    }

    /// Refuses flag combinations that have no meaning, before any file is read.
    pub fn check(&self) -> Result<()> {
        if self.create_missing && !matches!(self.action, Action::Set(_)) {
            return Err(Error::usage(format!(
                "--create-missing goes with --set-value only, not with {}",
                self.action.name()
            ))
            .hint("Append needs an existing array; delete needs an existing key."));
        }
        if let Action::Set(v) | Action::Append(v) = &self.action {
            Payload::parse(v)?;
        }
        Ok(())
    }
}

/// Replace `range` of the file with `text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub range: Range<usize>,
    pub text: String,
}

impl Edit {
    fn new(range: Range<usize>, text: impl Into<String>) -> Self {
        Self {
            range,
            text: text.into(),
        }
    }

    fn insert(at: usize, text: impl Into<String>) -> Self {
        Self::new(at..at, text)
    }
}

/// A value as given (JSON text) and as parsed.
pub(crate) struct Payload<'a> {
    pub raw: &'a str,
    pub value: serde_json::Value,
}

impl<'a> Payload<'a> {
    fn parse(raw: &'a str) -> Result<Self> {
        let value = serde_json::from_str(raw).map_err(|e| {
            Error::usage(format!("the value `{}` is not JSON: {e}", raw.trim()))
                .detail("reason", "invalid_value")
                .hint("Values are JSON text: quote strings as JSON, e.g. --set-value '\"x\"'.")
        })?;
        Ok(Self { raw, value })
    }
}

/// What a format module is asked to do, with the value already parsed.
pub(crate) struct Job<'a> {
    pub path: &'a ConfigPath,
    pub action: &'a Action,
    pub payload: Option<Payload<'a>>,
    pub create_missing: bool,
    pub document_index: Option<usize>,
}

/// The edits that perform `request` on `source` (a file in `format`), checked: the result
/// parses. Line breaks of new text follow the file's style.
pub fn plan(format: Format, source: &str, request: &Request) -> Result<Vec<Edit>> {
    request.check()?;
    if request.document_index.is_some() && format != Format::Yaml {
        return Err(Error::usage(
            "--document-index picks a document of a YAML stream; drop it for JSON and TOML",
        ));
    }
    let payload = match &request.action {
        Action::Set(v) | Action::Append(v) => Some(Payload::parse(v)?),
        Action::Delete => None,
    };
    let job = Job {
        path: &request.path,
        action: &request.action,
        payload,
        create_missing: request.create_missing,
        document_index: request.document_index,
    };
    let provider = provider_for(format.sample_name())
        .ok_or_else(|| Error::internal("config formats have syntax providers"))?;
    let view = format.view(source);
    let tree = parse(provider, view.as_bytes(), None)?;
    if tree.root_node().has_error()
        || (format == Format::Toml && toml::semantic_error(source).is_some())
    {
        return Err(parse_failure(&tree, "source", None)
            .hint("The file does not parse as it is; repair it with a line or text edit first."));
    }
    let raw = job.payload.as_ref().map_or("", |p| p.raw);
    let edits = number::given(raw, || match format {
        Format::Json | Format::Jsonc => json::plan(&view, &tree, &job),
        Format::Yaml => yaml::plan(&view, &tree, &job),
        Format::Toml => toml::plan(&view, &tree, &job),
    })?;
    let mut edits = edits;
    if format == Format::Jsonc && job.action == &Action::Delete {
        jsonc::keep_trailing_comma(source, &view, &mut edits);
    }
    let endings = Endings::of(source);
    let mut edits: Vec<Edit> = edits
        .into_iter()
        .map(|e| Edit::new(e.range, endings.convert(&e.text)))
        .collect();
    edits.sort_by_key(|e| (e.range.start, e.range.end));
    let after = apply(source, &edits);
    check_result(format, &after)?;
    Ok(edits)
}

/// A checked config operation for a plan (the constructor other front-ends use): the path
/// must parse and the value must be JSON.
pub fn op_kind(config: ConfigOp, expected: Option<Digest>) -> Result<OpKind> {
    Request::from_op(&config)?;
    Ok(OpKind::Config { config, expected })
}

/// The splices of config operation `op` (plan index `index`) on the file `rel` as read.
pub fn splices(rel: &str, source: &str, op: &ConfigOp, index: usize) -> Result<Vec<Splice>> {
    let format = Format::of(rel).ok_or_else(|| {
        Error::new(
            Code::NoProvider,
            format!("{rel} is not a JSON, YAML or TOML file: config paths need one"),
        )
        .detail("path", rel)
        .hint("Config paths work on .json, .jsonc, .yaml, .yml and .toml files.")
    })?;
    let request = Request::from_op(op)?;
    let edits = plan(format, source, &request)?;
    Ok(edits
        .into_iter()
        .map(|e| Splice {
            range: e.range,
            text: e.text,
            op: index,
        })
        .collect())
}

/// Merges the insertions that several config creations put at one point of `rel` (new keys
/// that sort to the same place in one map, or keys of one new table): the creations are
/// performed one after the other on `source`, in path order (so the result does not depend
/// on the order of the operations, and a parent one creates is reused by the next), and when
/// the result is `source` with one text inserted at that point, that text replaces their
/// splices (attributed to the first operation). Otherwise the splices stay as they are and
/// the engine refuses them as overlapping. `creation(op)` is the op's config operation when
/// it creates keys.
pub fn merge_creations<'p>(
    rel: &str,
    source: &str,
    splices: &mut Vec<Splice>,
    creation: impl Fn(usize) -> Option<&'p ConfigOp>,
) {
    let mut i = 0;
    while i < splices.len() {
        let at = splices[i].range.clone();
        let first = splices[i].op;
        if !at.is_empty() || creation(first).is_none() {
            i += 1;
            continue;
        }
        let same: Vec<usize> = (i + 1..splices.len())
            .filter(|&j| {
                let op = splices[j].op;
                splices[j].range == at && op != first && creation(op).is_some()
            })
            .collect();
        let mut ops: Vec<(&ConfigOp, usize)> = std::iter::once(first)
            .chain(same.iter().map(|&j| splices[j].op))
            .filter_map(|op| creation(op).map(|c| (c, op)))
            .collect();
        ops.sort_by(|a, b| (&a.0.path, a.1).cmp(&(&b.0.path, b.1)));
        let merged = match same.is_empty() {
            true => None,
            false => created_in_sequence(rel, source, at.start, &ops),
        };
        if let Some(text) = merged {
            splices[i].text = text;
            splices[i].op = ops.iter().map(|(_, op)| *op).min().unwrap_or(first);
            for j in same.into_iter().rev() {
                splices.remove(j);
            }
        }
        i += 1;
    }
}

/// The text the creations `ops` insert at `at` of `source` when performed in sequence, if
/// that is all they change.
fn created_in_sequence(
    rel: &str,
    source: &str,
    at: usize,
    ops: &[(&ConfigOp, usize)],
) -> Option<String> {
    let format = Format::of(rel)?;
    let mut text = source.to_owned();
    for (op, _) in ops {
        let request = Request::from_op(op).ok()?;
        let edits = plan(format, &text, &request).ok()?;
        text = apply(&text, &edits);
    }
    let (head, tail) = source.split_at(at);
    let inserted_len = text.len().checked_sub(source.len())?;
    let fits = text.starts_with(head) && text.ends_with(tail);
    fits.then(|| text.get(at..at + inserted_len).map(str::to_owned))
        .flatten()
}

/// Whether `rel` is a config file whose valid content tree-sitter may read with errors (JSONC
/// with trailing commas): its config results are checked here, not held to a clean parse.
pub fn tolerant(rel: &str) -> bool {
    Format::of(rel) == Some(Format::Jsonc)
}

/// Applies sorted, disjoint edits.
pub fn apply(source: &str, edits: &[Edit]) -> String {
    let mut out = String::with_capacity(source.len());
    let mut cursor = 0;
    for e in edits {
        out.push_str(&source[cursor..e.range.start]);
        out.push_str(&e.text);
        cursor = e.range.end;
    }
    out.push_str(&source[cursor..]);
    out
}

/// Refuses a rendered document that does not parse (tree-sitter; for TOML also the TOML
/// rules tree-sitter does not check, such as duplicate keys).
pub fn check_result(format: Format, after: &str) -> Result<()> {
    let provider = provider_for(format.sample_name())
        .ok_or_else(|| Error::internal("config formats have syntax providers"))?;
    let tree = parse(provider, format.view(after).as_bytes(), None)?;
    let semantic = match format {
        Format::Toml => toml::semantic_error(after),
        _ => None,
    };
    if tree.root_node().has_error() || semantic.is_some() {
        return Err(parse_failure(&tree, "proposed_result", semantic)
            .hint("Nothing was written. Check the value, or edit these lines directly."));
    }
    Ok(())
}

fn parse_failure(tree: &tree_sitter::Tree, stage: &str, why: Option<String>) -> Error {
    let what = if stage == "source" {
        "the file does not parse"
    } else {
        "the edited document would not parse"
    };
    let message = match &why {
        Some(why) => format!("{what}: {why}"),
        None => what.to_owned(),
    };
    Error::new(Code::ParseFailure, message)
        .detail("stage", stage)
        .detail("location", serde_json::json!(first_error(tree)))
}

/// `target_missing` for the first segment of `path` that does not exist.
pub(crate) fn missing(path: &ConfigPath, depth: usize, why: &str) -> Error {
    Error::new(
        Code::TargetMissing,
        format!("config path `{path}`: `{}` {why}", path.prefix(depth + 1)),
    )
    .detail("config_path", path.render())
    .detail("missing", path.prefix(depth + 1).render())
    .hint("Read the file again; use --create-missing with --set-value to create map or table keys.")
}

/// A key that its map defines twice: which one the path means is unclear.
pub(crate) fn duplicate(path: &ConfigPath, depth: usize) -> Error {
    Error::new(
        Code::AmbiguousTarget,
        format!(
            "config path `{path}`: `{}` is defined twice in its map",
            path.prefix(depth + 1)
        ),
    )
    .detail("config_path", path.render())
    .detail("reason", "duplicate_key")
    .hint("Remove the duplicate with a line edit first.")
}

/// A path that names something of the wrong kind (a key of a number, an index of a map...).
pub(crate) fn mismatch(path: &ConfigPath, depth: usize, found: &str) -> Error {
    let segment = match &path.0[depth] {
        Segment::Key(k) => format!("key `{k}`"),
        Segment::Index(n) => format!("index [{n}]"),
    };
    Error::new(
        Code::TargetMissing,
        format!(
            "config path `{path}`: {} is {found}, which has no {segment}",
            if depth == 0 {
                "the document".to_owned()
            } else {
                format!("`{}`", path.prefix(depth))
            }
        ),
    )
    .detail("config_path", path.render())
}

/// What config paths do not edit (YAML anchors, aliases, tags, merge keys; TOML table arrays).
pub(crate) fn unsupported(path: &ConfigPath, why: impl Into<String>) -> Error {
    Error::new(
        Code::ConfigUnsupported,
        format!("config path `{path}`: {}", why.into()),
    )
    .detail("config_path", path.render())
    .hint("Edit these lines with a LINE:HASH anchor or an exact find/replace instead.")
}
