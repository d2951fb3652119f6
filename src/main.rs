//! `git-identedit`: parses the command line, runs it, prints the result, exits with its code.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::process::ExitCode;

use clap::Parser;
use git_identedit::cli::{self, Cli, output};
use git_identedit::error::Error;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return ExitCode::from(output::clap_error(error)),
    };
    if let cli::Command::Mcp(args) = &cli.command {
        return git_identedit::mcp::main(args);
    }
    let format = output::resolve_format(&cli);
    git_identedit::lang::parse::defer_frees_to_exit();
    git_identedit::alloc::use_mimalloc_for_parsers();
    git_identedit::alloc::keep_medium_allocations_on_the_heap();
    // A bug must still answer with one document (code `failed`), not a backtrace.
    std::panic::set_hook(Box::new(|_| {}));
    let (result, recovered) = catch_unwind(AssertUnwindSafe(|| cli::run(&cli, format)))
        .unwrap_or_else(|panic| {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned());
            (
                Err(Error::internal(format!(
                    "internal error: {}",
                    what.unwrap_or_default()
                ))),
                Vec::new(),
            )
        });
    let format = match result {
        Err(_) => output::failure_format(&cli, format),
        Ok(_) => format,
    };
    ExitCode::from(output::emit(cli.command.name(), format, result, &recovered))
}
