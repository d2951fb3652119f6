//! The file entries of a compiled request or changeset, checked on disk before the engine
//! runs (the formats only turn bytes into a plan): each names an existing file inside the
//! workspace, and no file is named twice (the same path, an alias such as `./a.py`, or a hard
//! link of it): its operations would be proven against two reads.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;

use crate::error::{Code, Error, Result};
use crate::formats::request::Compiled;
use crate::plan::{PathBase, PathSpec};
use crate::workspace::Workspace;
use crate::workspace::path;

fn twice(first: &str, second: &str, rel: &str, how: &str) -> Error {
    Error::new(
        Code::InvalidRequest,
        format!("{second} names {how} {first} ({rel}): list each file once"),
    )
    .detail("path", rel)
    .detail(
        "request_pointers",
        vec![first.to_owned(), second.to_owned()],
    )
    .hint("Put all operations of a file in one file entry.")
}

/// Refuses a file entry whose path is refused or missing (an entry without operations too),
/// and two file entries naming one file.
pub fn check_entries(ws: &Workspace, compiled: &Compiled, base: PathBase) -> Result<()> {
    let mut keys: HashMap<String, &str> = HashMap::new();
    let mut inodes: HashMap<(u64, u64), &str> = HashMap::new();
    for entry in &compiled.files {
        let spec = PathSpec {
            raw: entry.file.clone(),
            base,
        };
        let place = match entry.pointer.as_str() {
            "" => "/file".to_owned(),
            entry => entry.to_owned(),
        };
        let located = |e: Error| e.detail("request_pointers", vec![place.clone()]);
        let p = path::resolve(ws, &spec).map_err(located)?;
        if let Err(e) = std::fs::symlink_metadata(&p.abs) {
            let what = format!("{} names {}", place, p.rel);
            return Err(located(Error::io(&what, &e).detail("path", p.rel.as_str())));
        }
        if let Some(first) = keys.insert(p.key.clone(), &entry.pointer) {
            return Err(twice(first, &entry.pointer, &p.rel, "the same file as"));
        }
        if let Ok(meta) = std::fs::metadata(&p.abs)
            && let Some(first) = inodes.insert((meta.dev(), meta.ino()), &entry.pointer)
        {
            return Err(twice(
                first,
                &entry.pointer,
                &p.rel,
                "a hard link of the file of",
            ));
        }
    }
    Ok(())
}
