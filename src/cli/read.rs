//! `read FILE…`: what an agent needs before an edit. The outline (named structures with
//! identities and hashes), one structure with context (`--symbol`), a selector listing
//! (`--kind`, `--name`, `--exclude-kind`) or line anchors (`--mode line`). Writes nothing.
//! `read --json` without files takes identedit's read request on stdin:
//! `{"command": "read", "file" | "files", "selector"?: {"kind"?, "name_pattern"?,
//! "exclude_kinds"?}}` (structures only).

use std::io::{IsTerminal, Read};

use clap::{Args, ValueEnum};
use serde::Deserialize;

use crate::error::{Code, Error, Result};
use crate::lang::gate::SourceTree;
use crate::lang::provider_for;
use crate::locate::lines::split;
use crate::locate::node;
use crate::plan::{PathBase, PathSpec, Target};
use crate::report::Report;
use crate::report::read::{FileView, Focus, LineView, render};
use crate::txn::journal::Recovered;
use crate::workspace::Workspace;
use crate::workspace::path::{self, TargetPath};
use crate::workspace::snapshot::{self, Snapshot};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    Ast,
    Line,
}

#[derive(Debug, Args)]
pub struct ReadArgs {
    /// Files to read, relative to the current directory (none with --json: a read request on
    /// stdin).
    pub files: Vec<String>,
    /// `ast` (structures, the default) or `line` (`LINE:HASH|content`).
    #[arg(long, value_enum, default_value = "ast")]
    pub mode: Mode,
    /// One structure by bare or qualified name, with its identity for `patch --at`.
    #[arg(long, value_name = "NAME")]
    pub symbol: Option<String>,
    /// Lines of context around `--symbol`.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub context: usize,
    /// Only structures of this kind.
    #[arg(long, value_name = "KIND")]
    pub kind: Option<String>,
    /// Only structures whose name matches this glob.
    #[arg(long, value_name = "GLOB")]
    pub name: Option<String>,
    /// Leave out structures of this kind (repeatable).
    #[arg(long, value_name = "KIND")]
    pub exclude_kind: Vec<String>,
    /// Line mode: first line to show (1-based).
    #[arg(long, value_name = "N")]
    pub offset: Option<usize>,
    /// Line mode: number of lines to show.
    #[arg(long, value_name = "M")]
    pub limit: Option<usize>,
    /// Structured output (the same as --format json).
    #[arg(long)]
    pub json: bool,
    /// Include each structure's text.
    #[arg(long)]
    pub verbose: bool,
}

pub fn run(ws: &Workspace, args: &ReadArgs, json: bool) -> Result<(Report, Vec<Recovered>)> {
    if args.files.is_empty() {
        let from_stdin = args.json && !std::io::stdin().is_terminal();
        if !from_stdin {
            return Err(super::usage_error(
                "give the files to read, or `--json` and a read request on stdin",
            ));
        }
        let request = stdin_request(args)?;
        return run_files(ws, &request, json);
    }
    run_files(ws, args, json)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReadRequest {
    command: String,
    file: Option<String>,
    files: Option<Vec<String>>,
    selector: Option<SelectorWire>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SelectorWire {
    kind: Option<String>,
    #[serde(alias = "name")]
    name_pattern: Option<String>,
    #[serde(default)]
    exclude_kinds: Vec<String>,
}

/// The arguments of identedit's read request on stdin (its selector replaces the flags).
fn stdin_request(args: &ReadArgs) -> Result<ReadArgs> {
    let flags = args.kind.is_some() || args.name.is_some() || !args.exclude_kind.is_empty();
    if flags || args.symbol.is_some() || args.mode == Mode::Line {
        return Err(super::usage_error(
            "a read request on stdin carries its own selector: drop --kind, --name, \
             --exclude-kind, --symbol and --mode line",
        ));
    }
    let mut input = String::new();
    std::io::stdin()
        .read_to_string(&mut input)
        .map_err(|e| Error::io("reading the read request from stdin", &e))?;
    let shape = "A read request is {\"command\": \"read\", \"file\": \"a.py\", \"selector\": {\"kind\": \"function_definition\", \"name_pattern\": \"test_*\"}}.";
    let request: ReadRequest = serde_json::from_str(&input)
        .map_err(|e| Error::malformed(format!("bad read request: {e}")).hint(shape))?;
    let files = match (request.command.as_str(), request.file, request.files) {
        ("read", Some(file), None) => vec![file],
        ("read", None, Some(files)) if !files.is_empty() => files,
        ("read", _, _) => {
            return Err(Error::malformed(
                "a read request names exactly one of `file` and `files` (not empty)",
            )
            .hint(shape));
        }
        (other, _, _) => {
            return Err(
                Error::malformed(format!("`command` is `{other}`, not `read`")).hint(shape),
            );
        }
    };
    let selector = request.selector.unwrap_or(SelectorWire {
        kind: None,
        name_pattern: None,
        exclude_kinds: Vec::new(),
    });
    Ok(ReadArgs {
        files,
        mode: Mode::Ast,
        symbol: None,
        context: 0,
        kind: selector.kind,
        name: selector.name_pattern,
        exclude_kind: selector.exclude_kinds,
        offset: None,
        limit: None,
        json: true,
        verbose: args.verbose,
    })
}

fn run_files(ws: &Workspace, args: &ReadArgs, json: bool) -> Result<(Report, Vec<Recovered>)> {
    check_flags(args)?;
    let mut keys = std::collections::HashSet::new();
    let mut views = Vec::new();
    for file in &args.files {
        let path = path::resolve(
            ws,
            &PathSpec {
                raw: file.clone(),
                base: PathBase::Cwd,
            },
        )?;
        if !keys.insert(path.key.clone()) {
            return Err(super::usage_error(format!("{} is listed twice", path.rel)));
        }
        let snapshot = snapshot::read_text(&path)?;
        views.push(match args.mode {
            Mode::Line => line_view(&path, &snapshot, args),
            Mode::Ast => ast_view(&path, &snapshot, args)?,
        });
    }
    let several = views.len() > 1;
    Ok((render(&views, json, args.verbose, several), Vec::new()))
}

fn check_flags(args: &ReadArgs) -> Result<()> {
    let structural = args.symbol.is_some()
        || args.kind.is_some()
        || args.name.is_some()
        || !args.exclude_kind.is_empty();
    if args.mode == Mode::Line && structural {
        return Err(super::usage_error(
            "--symbol, --kind, --name and --exclude-kind need --mode ast",
        ));
    }
    if args.mode == Mode::Ast && (args.offset.is_some() || args.limit.is_some()) {
        return Err(super::usage_error("--offset and --limit need --mode line"));
    }
    if args.offset == Some(0) {
        return Err(super::usage_error("--offset counts from 1"));
    }
    if args.symbol.is_some() && (args.kind.is_some() || args.name.is_some()) {
        return Err(super::usage_error(
            "use --symbol or --kind/--name, not both",
        ));
    }
    Ok(())
}

fn line_view(path: &TargetPath, snapshot: &Snapshot, args: &ReadArgs) -> FileView {
    let text = snapshot.text();
    let text = &*text;
    let lines = split(text);
    let first = args.offset.unwrap_or(1);
    let shown: Vec<LineView> = lines
        .iter()
        .enumerate()
        .skip(first - 1)
        .take(args.limit.unwrap_or(usize::MAX))
        .map(|(i, l)| LineView::of(i + 1, &text[l.start..l.content_end]))
        .collect();
    let before = (first - 1).min(lines.len());
    let after = lines.len() - before - shown.len();
    FileView::new(
        path,
        snapshot,
        None,
        Focus::Lines {
            shown,
            omitted_before: before,
            omitted_after: after,
            total: lines.len(),
        },
    )
}

fn ast_view(path: &TargetPath, snapshot: &Snapshot, args: &ReadArgs) -> Result<FileView> {
    let provider = provider_for(&path.rel).ok_or_else(|| {
        Error::new(
            Code::NoProvider,
            format!("{} has no syntax provider", path.rel),
        )
        .detail("path", path.rel.as_str())
        .hint("Use `read --mode line` for LINE:HASH anchors.")
    })?;
    let bytes = snapshot.bytes.get();
    let parsed = SourceTree::parse(provider, &bytes)?;
    let (count, first) = parsed.errors(&bytes);
    let errors = (count > 0).then_some((count, first));
    let text = snapshot.text();
    let text = &*text;
    let focus = if let Some(symbol) = &args.symbol {
        let (item, _) = node::find_in(&parsed, &Target::Symbol(symbol.clone()), text, &path.rel)?;
        let lines = split(text);
        let view = |from: usize, to: usize| -> Vec<LineView> {
            (from..to)
                .filter_map(|n| {
                    lines
                        .get(n - 1)
                        .map(|l| LineView::of(n, &text[l.start..l.content_end]))
                })
                .collect()
        };
        let ctx_start = item.start_line.saturating_sub(args.context).max(1);
        let ctx_end = (item.end_line + args.context).min(lines.len());
        Focus::Symbol {
            before: view(ctx_start, item.start_line),
            body: view(item.start_line, item.end_line + 1),
            after: view(item.end_line + 1, ctx_end + 1),
            item: Box::new(item.clone()),
        }
    } else {
        let pattern = args.name.as_deref().map(node::glob).transpose()?;
        let items = parsed
            .items(&bytes)
            .iter()
            .filter(|i| args.kind.as_ref().is_none_or(|k| i.kind == *k))
            .filter(|i| !args.exclude_kind.contains(&i.kind))
            .filter(|i| pattern.as_ref().is_none_or(|p| p.is_match(&i.name)))
            .cloned()
            .collect();
        Focus::Outline { items }
    };
    crate::lang::parse::retire(parsed.tree);
    Ok(FileView::new(
        path,
        snapshot,
        Some((provider.name, errors)),
        focus,
    ))
}
