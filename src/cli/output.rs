//! The only code that writes to stdout and stderr. JSON mode prints exactly one document on
//! stdout, for success and failure alike; text mode prints results on stdout and problems on
//! stderr. A closed pipe is not an error.

use std::io::{IsTerminal, Write};

use serde_json::{Map, Value};

use crate::cli::{Cli, Format};
use crate::error::{EXIT_OK, Error, Result};
use crate::report::{self, Part, Report, SCHEMA_VERSION};
use crate::txn::journal::Recovered;

/// The format asked for, or JSON when stdout is not a terminal.
pub fn resolve_format(cli: &Cli) -> Format {
    match cli.format {
        Some(format) => format,
        _ if cli.command.wants_json() => Format::Json,
        _ if cli.command.prefers_text() => Format::Text,
        _ => default_format(),
    }
}

/// The format a failure is printed in: a `--diff` run prints its diff as text, but its
/// refusal is the JSON error document on stdout (what a caller branches on), unless a format
/// was asked for or a person reads the terminal.
pub fn failure_format(cli: &Cli, format: Format) -> Format {
    let diff_run = !matches!(
        cli.command,
        crate::cli::Command::Read(_) | crate::cli::Command::Hook(_)
    );
    if format == Format::Text && cli.format.is_none() && diff_run && cli.command.prefers_text() {
        return default_format();
    }
    format
}

fn default_format() -> Format {
    if std::io::stdout().is_terminal() {
        Format::Text
    } else {
        Format::Json
    }
}

/// A unified diff with ANSI colours (`--color always`): removed lines red, added lines
/// green, hunk headers cyan.
pub fn colored_diff(diff: &str) -> String {
    diff.split_inclusive('\n')
        .map(|line| {
            let colour = match line.as_bytes() {
                [b'-', b'-', b'-', ..] | [b'+', b'+', b'+', ..] => None,
                [b'-', ..] => Some("31"),
                [b'+', ..] => Some("32"),
                [b'@', b'@', ..] => Some("36"),
                _ => None,
            };
            match colour {
                Some(c) => {
                    let body = line.trim_end_matches('\n');
                    let end = &line[body.len()..];
                    format!("\u{1b}[{c}m{body}\u{1b}[0m{end}")
                }
                None => line.to_owned(),
            }
        })
        .collect()
}

fn write_ignoring_pipe(mut out: impl Write, bytes: &[u8]) {
    let _ = out.write_all(bytes).and_then(|()| out.flush());
}

/// `document` and a newline, serialized straight into `out` through a buffer: the document of
/// a plan of many files is megabytes (3 MB on W4, diff included), which would otherwise be held
/// twice at the command's end, as values and as text.
fn write_json_line(out: impl Write, document: &impl serde::Serialize) {
    let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
    let _ = serde_json::to_writer(&mut out, document)
        .map_err(std::io::Error::from)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush());
}

/// A document whose top-level keys named in `parts` (holding `null`) are printed with the
/// JSON text of their part instead (see `Report::splice`).
struct Spliced<'a> {
    document: &'a Value,
    parts: &'a [(String, Part)],
}

impl serde::Serialize for Spliced<'_> {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let Value::Object(map) = self.document else {
            return self.document.serialize(serializer);
        };
        let mut out = serializer.serialize_map(Some(map.len()))?;
        for (key, value) in map {
            match self.parts.iter().find(|(k, _)| k == key) {
                Some((_, text)) => out.serialize_entry(key, text)?,
                None => out.serialize_entry(key, value)?,
            }
        }
        out.end()
    }
}

/// Prints the result of `command` and returns the process exit code.
pub fn emit(command: &str, format: Format, result: Result<Report>, recovered: &[Recovered]) -> u8 {
    let code = match &result {
        Ok(report) => report.exit.unwrap_or(EXIT_OK),
        Err(e) => e.code.exit_code(),
    };
    let (recovered_json, recovered_text) = report::recovered(recovered);
    match format {
        Format::Json => {
            // The spliced parts are printed as they are, not read back into the document.
            let (result, parts) = match result {
                Ok(mut report) => {
                    let parts = std::mem::take(&mut report.spliced);
                    (Ok(report), parts)
                }
                Err(error) => (Err(error), Vec::new()),
            };
            let document = document(command, result, &recovered_json);
            write_json_line(
                std::io::stdout().lock(),
                &Spliced {
                    document: &document,
                    parts: &parts,
                },
            );
        }
        _ => {
            if !recovered_text.is_empty() {
                write_ignoring_pipe(std::io::stderr().lock(), recovered_text.as_bytes());
            }
            match result {
                Ok(report) => {
                    if !report.note.is_empty() {
                        write_ignoring_pipe(std::io::stderr().lock(), report.note.as_bytes());
                    }
                    write_ignoring_pipe(std::io::stdout().lock(), report.text.as_bytes());
                }
                Err(error) => write_ignoring_pipe(
                    std::io::stderr().lock(),
                    report::error_text(&error).as_bytes(),
                ),
            }
        }
    }
    code
}

/// The one JSON document of a result (as `--format json` prints it; the `mcp` tools' result).
pub fn document(command: &str, result: Result<Report>, recovered: &Value) -> Value {
    match result {
        Ok(report) if report.raw => Value::Object(report.into_json()),
        Ok(report) => envelope(command, true, report.into_json(), recovered),
        Err(error) => {
            let body = Map::from_iter([("error".to_owned(), report::error_json(&error))]);
            envelope(command, false, body, recovered)
        }
    }
}

fn envelope(command: &str, ok: bool, body: Map<String, Value>, recovered: &Value) -> Value {
    let mut doc = Map::new();
    doc.insert("schema_version".into(), SCHEMA_VERSION.into());
    doc.insert("command".into(), command.into());
    doc.insert("ok".into(), ok.into());
    doc.extend(body);
    if recovered.as_array().is_some_and(|r| !r.is_empty()) {
        doc.insert("recovered".into(), recovered.clone());
    }
    Value::Object(doc)
}

/// Reports a command line clap refused (or prints help and version) and returns the exit code.
/// A bare `git identedit` prints the command list and succeeds.
pub fn clap_error(error: clap::Error) -> u8 {
    use clap::error::ErrorKind;
    let args: Vec<String> = std::env::args().collect();
    if matches!(
        error.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    ) {
        write_ignoring_pipe(
            std::io::stdout().lock(),
            error.render().to_string().as_bytes(),
        );
        return EXIT_OK;
    }
    let missing = matches!(
        error.kind(),
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand | ErrorKind::MissingSubcommand
    );
    if missing && names_no_command(&args) {
        let list = crate::cli::help::command_list();
        write_ignoring_pipe(std::io::stdout().lock(), list.as_bytes());
        return EXIT_OK;
    }
    let command = args.get(1).map_or("", String::as_str).to_owned();
    let rendered = error.render().to_string();
    let usage = usage_from_clap(&error, &rendered, missing, &args);
    emit(
        &command,
        asked_format(&args).unwrap_or_else(default_format),
        Err(usage),
        &[],
    )
}

/// Whether the command line holds only global options (no subcommand at all).
fn names_no_command(args: &[String]) -> bool {
    args.iter().skip(1).all(|a| {
        a.starts_with('-') || matches!(a.as_str(), "json" | "text" | "auto" | "always" | "never")
    })
}

fn asked_format(args: &[String]) -> Option<Format> {
    args.iter().enumerate().find_map(|(i, a)| match a.as_str() {
        "--format=json" | "--json" => Some(Format::Json),
        "--format=text" => Some(Format::Text),
        "--format" => match args.get(i + 1).map(String::as_str) {
            Some("json") => Some(Format::Json),
            Some("text") => Some(Format::Text),
            _ => None,
        },
        _ => None,
    })
}

/// The usage error: clap's first line as the cause, its suggestion (`aply` → `apply`,
/// `--fnd` → `--find`) as the next action, its whole message in `details.clap`.
fn usage_from_clap(error: &clap::Error, rendered: &str, missing: bool, args: &[String]) -> Error {
    use clap::error::{ContextKind, ContextValue};
    let first_line = if missing {
        format!("`{}` needs a subcommand", named_command(args))
    } else {
        rendered
            .lines()
            .next()
            .unwrap_or("bad command line")
            .trim_start_matches("error: ")
            .to_owned()
    };
    let suggested = [ContextKind::SuggestedSubcommand, ContextKind::SuggestedArg]
        .into_iter()
        .find_map(|kind| match error.get(kind) {
            Some(ContextValue::String(s)) => Some(s.clone()),
            Some(ContextValue::Strings(v)) => v.first().cloned(),
            _ => None,
        });
    let command = args.get(1).filter(|a| !a.starts_with('-'));
    let hint = match (&suggested, error.get(ContextKind::SuggestedSubcommand)) {
        (Some(s), Some(_)) => {
            format!("Did you mean `git identedit {s}`? `git identedit` alone lists the commands.")
        }
        (Some(s), None) => format!(
            "Did you mean `{s}`? `git identedit {} -h` lists the options.",
            command.map_or("<command>", String::as_str)
        ),
        (None, _) if missing => format!("`{} -h` lists the subcommands.", named_command(args)),
        (None, _) => format!(
            "`git identedit {} -h` lists the accepted options.",
            command.map_or("<command>", String::as_str)
        ),
    };
    let mut usage = Error::usage(first_line)
        .hint(hint)
        .detail("clap", rendered.trim_end());
    if let Some(s) = suggested {
        usage = usage.detail("suggestion", s);
    }
    usage
}

/// `git identedit` and the subcommands named before the first option.
fn named_command(args: &[String]) -> String {
    let named: Vec<&str> = args
        .iter()
        .skip(1)
        .map(String::as_str)
        .take_while(|a| !a.starts_with('-'))
        .collect();
    format!("git identedit {}", named.join(" "))
}
