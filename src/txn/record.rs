//! The journal's record: every file of a transaction with the paths its rollback needs, as
//! written durably before anything is staged, and the directory fsync that makes names
//! durable. The journal (`journal.rs`) writes and recovers records; `restore.rs` puts their
//! files back.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::change::Action;

/// One file of a transaction, with every path the rollback needs.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Entry {
    pub rel: String,
    pub target: PathBuf,
    pub tmp: Option<PathBuf>,
    pub backup: Option<PathBuf>,
    pub action: Action,
    pub before: Option<String>,
    pub after: Option<String>,
}

/// The journal document.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Record {
    pub version: u32,
    pub id: String,
    pub pid: u32,
    /// Lock keys of the transaction's files.
    pub keys: Vec<String>,
    /// Directories created for new files, outermost first.
    pub new_dirs: Vec<PathBuf>,
    pub entries: Vec<Entry>,
}

/// fsyncs a directory, so the names created or removed in it are durable.
pub(crate) fn sync_dir(dir: &Path) -> std::io::Result<()> {
    crate::workspace::durable::sync_dir(dir)
}
