//! `git identedit mcp`: the commands as Model Context Protocol tools over stdio, through the
//! official Rust SDK (`rmcp`). This module only adapts: every tool call runs the CLI command it
//! stands for (`server`), with typed arguments (`tools`) and per-session read state (`session`).

mod resources;
mod server;
mod session;
pub mod tools;

use std::path::PathBuf;
use std::process::ExitCode;

use rmcp::ServiceExt;

use crate::error::{EXIT_OK, EXIT_USAGE};

#[derive(Debug, clap::Args)]
pub struct McpArgs {
    /// Serve this directory instead of the current one.
    #[arg(long, value_name = "PATH")]
    pub repo: Option<PathBuf>,
}

/// Serves one session on stdin/stdout until the client closes stdin.
pub fn main(args: &McpArgs) -> ExitCode {
    if let Some(repo) = &args.repo
        && let Err(e) = std::env::set_current_dir(repo)
    {
        eprintln!("git identedit mcp: cannot serve {}: {e}", repo.display());
        return ExitCode::from(EXIT_USAGE);
    }
    crate::alloc::use_mimalloc_for_parsers();
    let served = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())
        .and_then(|runtime| runtime.block_on(serve()));
    match served {
        Ok(()) => ExitCode::from(EXIT_OK),
        Err(e) => {
            eprintln!("git identedit mcp: {e}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

async fn serve() -> Result<(), String> {
    let running = server::Server::default()
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| e.to_string())?;
    running.waiting().await.map_err(|e| e.to_string())?;
    Ok(())
}
