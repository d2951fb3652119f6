//! A config-path operation as plan data: the path as written, the action and its JSON value,
//! and the creation and document options. `target::config` checks and resolves it.

/// What a config operation does at its path. Values are JSON text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigAction {
    Set(String),
    Append(String),
    Delete,
}

impl ConfigAction {
    pub fn name(&self) -> &'static str {
        match self {
            ConfigAction::Set(_) => "set",
            ConfigAction::Append(_) => "append",
            ConfigAction::Delete => "delete",
        }
    }
}

/// One config operation (`patch --config-path`, a `config_path` target in a request).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigOp {
    /// The path as the caller wrote it (`a.b`, `items[0]`, `x["a.b"]`).
    pub path: String,
    pub action: ConfigAction,
    pub create_missing: bool,
    /// The YAML document (0-based) of a multi-document stream.
    pub document_index: Option<usize>,
}
