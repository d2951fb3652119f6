//! A subcommand's arguments declared only when the command line names that subcommand.
//!
//! clap builds every subcommand's arguments (names, help text, value parsers) before it reads
//! the command line: with twenty subcommands that was about 8 % of a one-edit `apply`. Each
//! subcommand's arguments are wrapped in [`Deferred`], which hands clap a function to declare
//! them with (`Command::defer`); clap calls it for the subcommand it enters. Man pages and
//! completion scripts read the whole tree, declared up front ([`whole`]).

use clap::{ArgMatches, Args, Command, FromArgMatches};

/// The arguments `T` of one subcommand, declared when clap needs them.
#[derive(Debug)]
pub struct Deferred<T>(pub T);

impl<T> std::ops::Deref for Deferred<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: FromArgMatches> FromArgMatches for Deferred<T> {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches(matches).map(Self)
    }

    fn from_arg_matches_mut(matches: &mut ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches_mut(matches).map(Self)
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches(matches)
    }

    fn update_from_arg_matches_mut(&mut self, matches: &mut ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches_mut(matches)
    }
}

thread_local! {
    /// Declare every subcommand's arguments at once (see [`whole`]).
    static EAGER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The command tree with every subcommand's arguments declared up front, as clap builds it
/// without deferral: man pages and completion scripts read whole trees, and clap mirrors the
/// subcommands into its `help` subcommand before it would declare deferred ones.
pub fn whole() -> Command {
    EAGER.with(|eager| eager.set(true));
    let cmd = <crate::cli::Cli as clap::CommandFactory>::command();
    EAGER.with(|eager| eager.set(false));
    cmd
}

impl<T: Args> Args for Deferred<T> {
    fn augment_args(cmd: Command) -> Command {
        match EAGER.with(std::cell::Cell::get) {
            true => T::augment_args(cmd),
            false => cmd.defer(|cmd| keeping_about(cmd, T::augment_args)),
        }
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        match EAGER.with(std::cell::Cell::get) {
            true => T::augment_args_for_update(cmd),
            false => cmd.defer(|cmd| keeping_about(cmd, T::augment_args_for_update)),
        }
    }

    fn group_id() -> Option<clap::Id> {
        T::group_id()
    }
}

/// `declare` applied to `cmd`, which keeps the description the subcommand's variant gave it
/// (declared eagerly, the arguments' own doc comment is applied first and the variant's
/// replaces it; declared late, it would be the other way round).
fn keeping_about(cmd: Command, declare: fn(Command) -> Command) -> Command {
    let (about, long_about) = (cmd.get_about().cloned(), cmd.get_long_about().cloned());
    let cmd = declare(cmd);
    let cmd = match about {
        Some(about) => cmd.about(about),
        None => cmd,
    };
    match long_about {
        Some(long_about) => cmd.long_about(long_about),
        None => cmd,
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use crate::cli::Cli;

    /// Built whole, every subcommand declares its arguments (help, man pages and completions
    /// read them), and clap's own consistency checks pass.
    #[test]
    fn a_built_tree_declares_every_subcommand_s_arguments() {
        let mut cmd = Cli::command();
        let declared = |cmd: &clap::Command| {
            let apply = cmd.find_subcommand("apply").expect("apply");
            apply.get_arguments().count()
        };
        assert_eq!(
            declared(&cmd),
            0,
            "nothing is declared before clap needs it"
        );
        cmd.build();
        let apply = cmd.find_subcommand("apply").expect("apply");
        assert!(apply.get_arguments().any(|a| a.get_id() == "dialect"));
        cmd.debug_assert();
    }
}
