//! Finding what an operation targets, on the current bytes: the workspace, checked paths,
//! file snapshots, and exact text (with the diagnostics of a miss).

pub mod anchor;
pub mod config;
pub mod diagnose;
pub mod ladder;
pub mod lines;
pub mod node;
pub mod open;
pub mod path;
pub mod snapshot;
pub mod text;
pub mod workspace;
