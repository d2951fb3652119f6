//! What the server remembers per session: the sha256 of each file as the agent last read it
//! through the `read` tool. A write to such a file is refused (`stale_read`) when the file on
//! disk no longer has those bytes; every check hashes the file again, nothing is cached.

use std::collections::HashMap;
use std::sync::Mutex;

use serde::Deserialize;

use crate::error::{Code, Error, Result};
use crate::plan::{Digest, PathBase, PathSpec};
use crate::workspace::Workspace;
use crate::workspace::path;

/// File key (see `TargetPath::key`) → sha256 hex as last seen by the agent.
#[derive(Default)]
pub struct Session {
    seen: Mutex<HashMap<String, String>>,
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

fn key(ws: &Workspace, raw: &str, base: PathBase) -> Option<String> {
    let spec = PathSpec {
        raw: raw.to_owned(),
        base,
    };
    path::resolve(ws, &spec).ok().map(|p| p.key)
}

impl Session {
    fn seen(&self) -> std::sync::MutexGuard<'_, HashMap<String, String>> {
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
            if let Some(key) = key(ws, &file.file, PathBase::Root) {
                seen.insert(key, file.sha256);
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
            let Some(key) = key(ws, &file.path, PathBase::Root) else {
                continue;
            };
            match (seen.get_mut(&key), file.sha256_after) {
                (Some(sha), Some(after)) => *sha = after,
                (Some(_), None) => {
                    seen.remove(&key);
                }
                (None, _) => {}
            }
        }
    }

    /// The sha256 the agent last read `raw` (relative to the current directory) with.
    pub fn read_sha256(&self, ws: &Workspace, raw: &str) -> Option<String> {
        let key = key(ws, raw, PathBase::Cwd)?;
        self.seen().get(&key).cloned()
    }

    /// Refuses with `stale_read` when a file the agent read has changed on disk since.
    pub fn check(&self, ws: &Workspace, paths: &[PathSpec]) -> Result<()> {
        let seen = self.seen();
        for spec in paths {
            let Ok(target) = path::resolve(ws, spec) else {
                continue;
            };
            let Some(read) = seen.get(&target.key) else {
                continue;
            };
            let now = std::fs::read(&target.abs)
                .ok()
                .map(|b| Digest::of(&b).to_hex());
            if now.as_deref() != Some(read.as_str()) {
                return Err(stale(&target.rel, read, now));
            }
        }
        Ok(())
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
