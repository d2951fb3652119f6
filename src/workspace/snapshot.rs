//! Reading a target file as the engine sees it: a regular, UTF-8, NUL-free file, its bytes,
//! digest and permissions. Also the checks for a file that is about to be created or deleted.

use std::fs::{self, Metadata};
use std::io::ErrorKind;
use std::sync::Arc;
use std::time::SystemTime;

use crate::error::{Code, Error, Result};
use crate::plan::{Digest, Marks};
use crate::workspace::image::Image;
use crate::workspace::path::TargetPath;

/// A file's content as read, with what is needed to write it back faithfully.
#[derive(Clone, Debug)]
pub struct Snapshot {
    pub bytes: Image,
    pub digest: Digest,
    /// Hash states along a large file's bytes, for the digest of its new version.
    pub marks: Marks,
    /// Permission bits to give the replacement file.
    pub permissions: fs::Permissions,
    /// The file's identity and times when it was read.
    pub stamp: Stamp,
    /// The clock just before the file's `stat` (see [`Stamp::settled`]).
    pub read_at: std::time::SystemTime,
}

/// What `stat` said about a file just before it was read. Trusted as proof that the file did
/// not change only when its times were not recent at that moment (file times tick coarsely,
/// so a same-size write right after a read could keep them, as git's "racy" entries).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

/// The fields of a [`Stamp`], read-only.
#[derive(Clone, Copy, Debug)]
pub struct StampFields {
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    pub mtime: (i64, i64),
    pub ctime: (i64, i64),
}

impl Stamp {
    pub fn of(meta: &Metadata) -> Self {
        use std::os::unix::fs::MetadataExt;
        Self {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        }
    }

    /// Every field, for a comparison with stat data kept elsewhere (git's index).
    pub fn fields(&self) -> StampFields {
        StampFields {
            dev: self.dev,
            ino: self.ino,
            size: self.size,
            mtime: self.mtime,
            ctime: self.ctime,
        }
    }

    /// The file's identity on its device: equal for two paths of one file (a hard link).
    pub fn file_id(&self) -> (u64, u64) {
        (self.dev, self.ino)
    }

    /// Whether the times are old enough for an equal stamp to prove an unchanged file, for a
    /// stamp taken just after `read_at`. The kernel stamps file times from a clock that lags
    /// the real-time clock by at most one tick (10 ms at the slowest tick rate): a file whose
    /// newest time is older than `read_at` by more than that gets later times from any write
    /// after the read. A margin of twice that allows for clock adjustments.
    pub fn settled(&self, read_at: std::time::SystemTime) -> bool {
        const MARGIN: std::time::Duration = std::time::Duration::from_millis(20);
        let newest = self.mtime.max(self.ctime);
        let Ok(newest_secs) = u64::try_from(newest.0) else {
            return false;
        };
        let nanos = u32::try_from(newest.1).unwrap_or(0);
        let newest = std::time::UNIX_EPOCH + std::time::Duration::new(newest_secs, nanos);
        read_at.duration_since(newest).is_ok_and(|age| age > MARGIN)
    }
}

impl Snapshot {
    /// The content as text; the snapshot was checked to be UTF-8 when read.
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        match self.bytes.get() {
            std::borrow::Cow::Borrowed(b) => std::str::from_utf8(b).unwrap_or_default().into(),
            std::borrow::Cow::Owned(b) => String::from_utf8(b).unwrap_or_default().into(),
        }
    }
}

fn unsupported(path: &TargetPath, reason: &'static str, why: &str) -> Error {
    Error::new(Code::FileUnsupported, format!("{} {why}", path.rel))
        .detail("path", path.rel.as_str())
        .detail("reason", reason)
}

/// The metadata of an existing target, refusing symlinks, directories and special files.
fn existing_file(path: &TargetPath) -> Result<Metadata> {
    let meta = match fs::symlink_metadata(&path.abs) {
        Ok(meta) => meta,
        Err(e) if e.kind() == ErrorKind::NotFound || e.kind() == ErrorKind::NotADirectory => {
            return Err(Error::new(Code::InputNotFound, format!("{} does not exist", path.rel))
                .detail("path", path.rel.as_str())
                .hint("Check the path (it is relative to the repository root in a plan), or create the file with `creates`."));
        }
        Err(e) => return Err(Error::io(&path.rel, &e).detail("path", path.rel.as_str())),
    };
    let kind = meta.file_type();
    if kind.is_symlink() {
        return Err(Error::new(
            Code::PathRefused,
            format!(
                "{} is a symbolic link (symlink); edit the file it points to",
                path.rel
            ),
        )
        .detail("path", path.rel.as_str())
        .detail("reason", "symlink"));
    }
    if kind.is_dir() {
        return Err(unsupported(path, "directory", "is a directory, not a file"));
    }
    if !kind.is_file() {
        return Err(unsupported(path, "special_file", "is not a regular file"));
    }
    Ok(meta)
}

/// The file checked by [`existing_file`], opened without following a symlink (parents
/// included) and checked again on the open handle: what is read is what was checked.
fn open_checked(path: &TargetPath) -> Result<(fs::File, Metadata, std::time::SystemTime)> {
    let read_at = std::time::SystemTime::now();
    existing_file(path)?;
    let depth = path.rel.split('/').filter(|p| !p.is_empty()).count();
    let root = path.abs.ancestors().nth(depth).unwrap_or(&path.abs);
    let io = |e: std::io::Error| Error::io(&path.rel, &e).detail("path", path.rel.as_str());
    let file = super::open::open_beneath(root, &path.key).map_err(|e| {
        if super::open::is_symlink_error(&e) {
            Error::new(
                Code::PathRefused,
                format!(
                    "{} became a symlink while it was read; edit the file it points to",
                    path.rel
                ),
            )
            .detail("path", path.rel.as_str())
            .detail("reason", "symlink")
        } else {
            io(e)
        }
    })?;
    let meta = file.metadata().map_err(io)?;
    if !meta.file_type().is_file() {
        return Err(unsupported(path, "special_file", "is not a regular file"));
    }
    Ok((file, meta, read_at))
}

fn read_all(path: &TargetPath, mut file: fs::File, meta: &Metadata) -> Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = crate::alloc::buffer(usize::try_from(meta.len()).unwrap_or(0));
    file.read_to_end(&mut bytes)
        .map_err(|e| Error::io(&path.rel, &e).detail("path", path.rel.as_str()))?;
    Ok(bytes)
}

/// Reads a file to edit: it must be a regular, UTF-8 file without NUL bytes.
pub fn read_text(path: &TargetPath) -> Result<Snapshot> {
    let (bytes, meta, stamp, read_at) = read_bytes(path)?;
    if let Some(at) = memchr::memchr(0, &bytes) {
        return Err(
            unsupported(path, "binary", "is binary (it contains a NUL byte)").detail("offset", at),
        );
    }
    if let Err(e) = std::str::from_utf8(&bytes) {
        return Err(
            unsupported(path, "not_utf8", "is not valid UTF-8").detail("offset", e.valid_up_to())
        );
    }
    let (digest, marks) = Marks::of(&bytes);
    Ok(Snapshot {
        digest,
        marks,
        bytes: bytes.into(),
        permissions: meta.permissions(),
        stamp,
        read_at,
    })
}

/// A file's bytes and metadata: the bytes a caller read it with earlier when a preflight takes
/// them (`as_read`; their stamp then proves nothing, so the engine compares the file's bytes
/// under the locks), else the file's.
fn read_bytes(path: &TargetPath) -> Result<(Arc<Vec<u8>>, Metadata, Stamp, SystemTime)> {
    let (file, meta, read_at) = open_checked(path)?;
    if let Some(bytes) = super::as_read::earlier(&path.abs) {
        let stamp = Stamp {
            mtime: (0, 0),
            ctime: (0, 0),
            ..Stamp::of(&meta)
        };
        return Ok((bytes, meta, stamp, read_at));
    }
    let bytes = read_all(path, file, &meta)?;
    let stamp = Stamp::of(&meta);
    Ok((Arc::new(bytes), meta, stamp, read_at))
}

/// Reads a file to delete: any regular file (its bytes are the pre-image).
pub fn read_any(path: &TargetPath) -> Result<Snapshot> {
    let (bytes, meta, stamp, read_at) = read_bytes(path)?;
    let (digest, marks) = Marks::of(&bytes);
    Ok(Snapshot {
        digest,
        marks,
        bytes: bytes.into(),
        permissions: meta.permissions(),
        stamp,
        read_at,
    })
}

/// Checks that a file to create does not exist (not even as a dangling symlink) and that
/// its nearest existing ancestor is a directory.
pub fn check_absent(path: &TargetPath) -> Result<()> {
    match fs::symlink_metadata(&path.abs) {
        Ok(_) => Err(
            Error::new(Code::TargetExists, format!("{} already exists", path.rel))
                .detail("path", path.rel.as_str())
                .hint("Edit the existing file with `edits` instead of `creates`."),
        ),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) if e.kind() == ErrorKind::NotADirectory => Err(unsupported(
            path,
            "parent_not_directory",
            "cannot be created: a parent is a file",
        )),
        Err(e) => Err(Error::io(&path.rel, &e).detail("path", path.rel.as_str())),
    }
}
