//! `git-identedit`: parses the command line, runs it, prints the result, exits with its code.

use std::process::ExitCode;

use clap::Parser;
use git_identedit::cli::{self, Cli, output};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return ExitCode::from(output::clap_error(error)),
    };
    let format = output::resolve_format(&cli);
    let (result, recovered) = cli::run(&cli);
    ExitCode::from(output::emit(cli.command.name(), format, result, &recovered))
}
