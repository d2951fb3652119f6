//! Finding what an operation targets in a file's current bytes: exact text (with the
//! diagnostics of a miss), line anchors, structure nodes, the tolerance ladder of the text
//! dialects, line facts, and config paths of JSON/YAML/TOML files.

pub mod anchor;
pub mod config;
pub mod diagnose;
pub mod file_text;
pub mod ladder;
pub mod line_index;
pub mod lines;
pub mod node;
pub mod text;
