//! What the server remembers per session: each file as the agent last read it through the
//! `read` tool (or left it with its own write): its sha256 and its bytes. A write hands the
//! bytes to the engine, which proves the edit on them and, when the file changed since,
//! rebases it onto the current bytes where every region it touches is unchanged and unique
//! (`txn::rebase`; else `evidence_changed` / `ambiguous_target`, as the CLI refuses). A file
//! whose bytes were not kept (it changed between the read and the session's look at it, or
//! is larger than [`KEEP_LIMIT`]) is refused `stale_read` when it changed.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde::Deserialize;

use crate::error::{Code, Error, Result};
use crate::plan::{Digest, PathBase, PathSpec};
use crate::workspace::Workspace;
use crate::workspace::path;

/// The largest file whose bytes a session keeps.
pub const KEEP_LIMIT: u64 = 8 << 20;

/// File key (see `TargetPath::key`) → the file as last seen by the agent.
#[derive(Default)]
pub struct Session {
    seen: Mutex<HashMap<String, Seen>>,
}

/// One file as the agent saw it.
struct Seen {
    sha256: String,
    abs: PathBuf,
    /// Its bytes, when they were read back with that sha256.
    bytes: Option<Arc<Vec<u8>>>,
}

impl Seen {
    /// The file at `abs` as seen with `sha256`, its bytes kept when the file still has them.
    fn new(abs: PathBuf, sha256: String) -> Self {
        let small = std::fs::metadata(&abs).is_ok_and(|m| m.len() <= KEEP_LIMIT);
        let bytes = small
            .then(|| std::fs::read(&abs).ok())
            .flatten()
            .filter(|b| Digest::of(b).to_hex() == sha256)
            .map(Arc::new);
        Self { sha256, abs, bytes }
    }
}

/// The part of a `read` document naming what was read.
#[derive(Deserialize)]
struct ReadDoc {
    #[serde(default)]
    files: Vec<ReadFile>,
}

#[derive(Deserialize)]
struct ReadFile {
    file: String,
    sha256: String,
}

/// The part of a write's document naming what was written.
#[derive(Deserialize)]
struct WriteDoc {
    #[serde(default)]
    changed_files: Vec<WrittenFile>,
    #[serde(default)]
    dry_run: bool,
}

#[derive(Deserialize)]
struct WrittenFile {
    path: String,
    sha256_after: Option<String>,
}

fn target(ws: &Workspace, raw: &str, base: PathBase) -> Option<path::TargetPath> {
    let spec = PathSpec {
        raw: raw.to_owned(),
        base,
    };
    path::resolve(ws, &spec).ok()
}

impl Session {
    fn seen(&self) -> std::sync::MutexGuard<'_, HashMap<String, Seen>> {
        self.seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Remembers the files of a `read` result with the sha256 the read reported.
    pub fn remember_read(&self, ws: &Workspace, document: &serde_json::Value) {
        let Ok(doc) = ReadDoc::deserialize(document) else {
            return;
        };
        let mut seen = self.seen();
        for file in doc.files {
            if let Some(t) = target(ws, &file.file, PathBase::Root) {
                seen.insert(t.key, Seen::new(t.abs, file.sha256));
            }
        }
    }

    /// After a write through this session: the agent's view of the files it had read is the
    /// result of its own edit.
    pub fn remember_write(&self, ws: &Workspace, document: &serde_json::Value) {
        let Ok(doc) = WriteDoc::deserialize(document) else {
            return;
        };
        if doc.dry_run {
            return;
        }
        let mut seen = self.seen();
        for file in doc.changed_files {
            let Some(t) = target(ws, &file.path, PathBase::Root) else {
                continue;
            };
            match (seen.get_mut(&t.key), file.sha256_after) {
                (Some(was), Some(after)) => *was = Seen::new(t.abs, after),
                (Some(_), None) => {
                    seen.remove(&t.key);
                }
                (None, _) => {}
            }
        }
    }

    /// The bytes the agent last saw each file of `paths` with (the engine's preflight reads
    /// them, by absolute path). A file seen without its bytes kept that changed since is
    /// refused here (`stale_read`).
    pub fn as_read(
        &self,
        ws: &Workspace,
        paths: &[PathSpec],
    ) -> Result<HashMap<PathBuf, Arc<Vec<u8>>>> {
        let seen = self.seen();
        let mut out = HashMap::new();
        for spec in paths {
            let Ok(target) = path::resolve(ws, spec) else {
                continue;
            };
            let Some(read) = seen.get(&target.key) else {
                continue;
            };
            if let Some(bytes) = &read.bytes {
                out.insert(read.abs.clone(), Arc::clone(bytes));
                continue;
            }
            let now = std::fs::read(&target.abs)
                .ok()
                .map(|b| Digest::of(&b).to_hex());
            if now.as_deref() != Some(read.sha256.as_str()) {
                return Err(stale(&target.rel, &read.sha256, now));
            }
        }
        Ok(out)
    }
}

pub fn stale(rel: &str, read: &str, now: Option<String>) -> Error {
    Error::new(
        Code::StaleRead,
        format!("`{rel}` changed on disk since this session read it"),
    )
    .hint("Read the file again with the `read` tool and make the edit against what is there now.")
    .detail("path", rel)
    .detail("read_sha256", read)
    .detail(
        "current_sha256",
        now.map_or(serde_json::Value::Null, Into::into),
    )
}
