//! git identedit: precise, provable, reversible source edits for coding agents.
//!
//! Front-ends (`cli`, `formats`) compile every input into one typed [`plan::Plan`]; the one
//! transaction engine ([`txn`]) resolves it against the current bytes ([`locate`], inside a
//! [`workspace`]), proves
//! every precondition and publishes all or nothing; [`report`] renders what happened.
//! See `docs/ARCHITECTURE.md`.

pub mod alloc;
pub mod change;
pub mod cli;
pub mod error;
pub mod error_types;
pub mod formats;
pub mod git;
pub mod hook;
pub mod lang;
pub mod locate;
pub mod mcp;
pub mod plan;
pub mod receipt;
pub mod registry;
pub mod report;
pub mod txn;
pub mod workspace;
