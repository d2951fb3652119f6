//! The MCP handler: lists the tools (schemas derived from `tools`), runs a call as the CLI
//! command it stands for (the same parser, locks, journal and write path), and answers with the
//! command's JSON document as structured content. Refusals are results with `isError: true`;
//! only requests the server cannot route (an unknown tool or resource) are JSON-RPC errors.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use clap::{Parser, ValueEnum};
use rmcp::handler::server::common::schema_for_type;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::resources;
use super::session::Session;
use super::tools::{
    ApplyTool, ConfigSetTool, EditTool, LogTool, PatchTool, ReadTool, ShowTool, UndoTool,
    VerifyTool,
};
use crate::cli::{self, Cli, Format, output};
use crate::error::{Error, Result};
use crate::plan::{PathBase, PathSpec};
use crate::report;
use crate::workspace::Workspace;

/// One session's server.
#[derive(Default)]
pub struct Server {
    session: Session,
}

/// The tools, with the CLI command whose registry entry describes each.
const TOOLS: &[(&str, &str)] = &[
    ("read", "read"),
    ("edit", "edit"),
    ("patch", "patch"),
    ("apply", "apply"),
    ("config_set", "config_set"),
    ("verify", "verify"),
    ("undo", "undo"),
    ("log", "log"),
    ("show", "show"),
];

const CONFIG_SET: &str = "set, append to or delete one value of a JSON, YAML or TOML file by key path, keeping every other byte (as `patch FILE --config-path`)";

fn description(command: &str) -> &'static str {
    crate::registry::COMMANDS
        .iter()
        .find(|c| c.name == command)
        .map_or(CONFIG_SET, |c| c.summary)
}

fn schema(tool: &str) -> Option<Arc<JsonObject>> {
    Some(match tool {
        "read" => schema_for_type::<ReadTool>(),
        "edit" => schema_for_type::<EditTool>(),
        "patch" => schema_for_type::<PatchTool>(),
        "apply" => schema_for_type::<ApplyTool>(),
        "config_set" => schema_for_type::<ConfigSetTool>(),
        "verify" => schema_for_type::<VerifyTool>(),
        "undo" => schema_for_type::<UndoTool>(),
        "log" => schema_for_type::<LogTool>(),
        "show" => schema_for_type::<ShowTool>(),
        _ => return None,
    })
}

fn tool(name: &str) -> Option<Tool> {
    let (name, command) = TOOLS.iter().find(|(n, _)| *n == name)?;
    Some(Tool::new(*name, description(command), schema(name)?))
}

/// What a call does to the session's read state.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Effect {
    Reads,
    Writes,
    None,
}

/// A tool call as a command line, with the files it may write (checked against the reads).
struct Call {
    argv: Vec<String>,
    input: Option<Vec<u8>>,
    touches: Vec<PathSpec>,
    effect: Effect,
}

impl Call {
    fn new(argv: Vec<String>, effect: Effect) -> Self {
        Self {
            argv,
            input: None,
            touches: Vec::new(),
            effect,
        }
    }

    fn writing(argv: Vec<String>, file: &str) -> Self {
        let spec = PathSpec {
            raw: file.to_owned(),
            base: PathBase::Cwd,
        };
        Self {
            touches: vec![spec],
            ..Self::new(argv, Effect::Writes)
        }
    }
}

/// The typed arguments of a tool: unknown names are refused (a misspelt option must not be
/// ignored), then serde checks the rest.
fn arguments<T: DeserializeOwned + JsonSchema + 'static>(args: &JsonObject) -> Result<T> {
    let schema = schema_for_type::<T>();
    let known = schema.get("properties").and_then(Value::as_object);
    if let Some(unknown) = args
        .keys()
        .find(|k| known.is_none_or(|p| !p.contains_key(*k)))
    {
        return Err(cli::usage_error(format!("unknown argument `{unknown}`")));
    }
    serde_json::from_value(Value::Object(args.clone()))
        .map_err(|e| cli::usage_error(format!("bad arguments: {e}")))
}

/// The call a tool request stands for; `None` for an unknown tool.
fn prepare(name: &str, args: &JsonObject) -> Option<Result<Call>> {
    let call = || -> Result<Call> {
        Ok(match name {
            "read" => Call::new(arguments::<ReadTool>(args)?.argv()?, Effect::Reads),
            "edit" => {
                let tool = arguments::<EditTool>(args)?;
                Call::writing(tool.argv()?, &tool.file)
            }
            "patch" => {
                let tool = arguments::<PatchTool>(args)?;
                Call::writing(tool.argv()?, &tool.file)
            }
            "config_set" => {
                let tool = arguments::<ConfigSetTool>(args)?;
                Call::writing(tool.argv()?, &tool.file)
            }
            "apply" => apply_call(arguments::<ApplyTool>(args)?),
            "undo" => Call::new(arguments::<UndoTool>(args)?.argv(), Effect::Writes),
            "verify" => Call::new(arguments::<VerifyTool>(args)?.argv(), Effect::None),
            "log" => Call::new(arguments::<LogTool>(args)?.argv(), Effect::None),
            _ => Call::new(arguments::<ShowTool>(args)?.argv(), Effect::None),
        })
    };
    TOOLS.iter().any(|(n, _)| *n == name).then(call)
}

/// `apply`: the files its plan names are those compiled by the same front-ends `apply` uses
/// (an input they refuse is refused again, with its own error, by the command itself).
fn apply_call(tool: ApplyTool) -> Call {
    let dialect = tool
        .dialect
        .and_then(|d| serde_json::to_value(d).ok())
        .and_then(|v| v.as_str().and_then(|s| ValueEnum::from_str(s, true).ok()));
    let touches = crate::formats::compile(tool.input.as_bytes(), dialect)
        .map(|plan| plan.ops.into_iter().map(|op| op.path).collect())
        .unwrap_or_default();
    Call {
        input: Some(tool.input.clone().into_bytes()),
        touches,
        ..Call::new(tool.argv(), Effect::Writes)
    }
}

impl Server {
    /// Runs a prepared call and answers with its document.
    fn run(&self, mut call: Call) -> CallToolResult {
        let command = call.argv.first().cloned().unwrap_or_default();
        let ws = match Workspace::discover() {
            Ok(ws) => ws,
            Err(e) => return answer(&command, Err(e), &[]),
        };
        // The engine proves the edit on the files as this session read them and rebases it
        // under the locks when they changed since (as the CLI does when another edit lands
        // first); a file read without its bytes kept is checked here.
        let read = match self.session.as_read(&ws, &call.touches) {
            Ok(read) => read,
            Err(e) => return answer(&command, Err(e), &[]),
        };
        let mut argv = vec!["git-identedit".to_owned(), "--format=json".to_owned()];
        argv.extend(call.argv.iter().cloned());
        let cli = match Cli::try_parse_from(&argv) {
            Ok(cli) => cli,
            Err(e) => return answer(&command, Err(clap_usage(&e)), &[]),
        };
        cli::serve_command_line(Some(call.argv.clone()));
        crate::workspace::as_read::hand_over(read);
        let run = catch_unwind(AssertUnwindSafe(|| {
            cli::run_with_input(&cli, Format::Json, call.input.take())
        }));
        crate::workspace::as_read::hand_over(Default::default());
        cli::serve_command_line(None);
        let (result, recovered) = run.unwrap_or_else(|_| {
            (
                Err(Error::internal("internal error in a tool call")),
                Vec::new(),
            )
        });
        let answer = answer(&command, result, &recovered);
        if answer.is_error != Some(true)
            && let Some(doc) = &answer.structured_content
        {
            match call.effect {
                Effect::Reads => self.session.remember_read(&ws, doc),
                Effect::Writes => self.session.remember_write(&ws, doc),
                Effect::None => {}
            }
        }
        answer
    }
}

/// A refused command line (a bad value for an option) as the usage error the CLI reports.
fn clap_usage(error: &clap::Error) -> Error {
    let rendered = error.render().to_string();
    let first = rendered.lines().next().unwrap_or_default();
    cli::usage_error(first.trim_start_matches("error: ").to_owned())
}

/// The result of a command: its JSON document, and its text rendering for clients that show
/// text. Anything the CLI would exit non-zero with is `isError`.
fn answer(
    command: &str,
    result: Result<report::Report>,
    recovered: &[crate::txn::journal::Recovered],
) -> CallToolResult {
    let (exit, text) = match &result {
        Ok(r) => (r.exit.unwrap_or(0), r.text.clone()),
        Err(e) => (e.code.exit_code(), report::error_text(e)),
    };
    let (recovered_json, _) = report::recovered(recovered);
    let doc = output::document(command, result, &recovered_json);
    let text = if text.is_empty() {
        doc.to_string()
    } else {
        text
    };
    let mut answer = if exit == 0 {
        CallToolResult::structured(doc)
    } else {
        CallToolResult::structured_error(doc)
    };
    answer.content = vec![ContentBlock::text(text)];
    answer
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new(
                "git-identedit",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(crate::cli::info::instructions().0.text)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListToolsResult, ErrorData> {
        let tools = TOOLS.iter().filter_map(|(name, _)| tool(name)).collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tool(name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        match prepare(&request.name, &args) {
            None => Err(ErrorData::invalid_params(
                format!("unknown tool `{}`", request.name),
                None,
            )),
            Some(Err(e)) => Ok(answer(&request.name, Err(e), &[]).into()),
            Some(Ok(call)) => Ok(self.run(call).into()),
        }
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(resources::list()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ReadResourceResponse, ErrorData> {
        resources::read(&request.uri).map(Into::into)
    }
}
