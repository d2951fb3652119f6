//! Opening a target without a check-then-use gap: every parent of the (symlink-resolved)
//! path is opened relative to the one before it with `O_NOFOLLOW | O_DIRECTORY`, the file
//! itself with `O_NOFOLLOW`, and what was opened is checked with `fstat`. A symlink swapped
//! in after the path was checked is refused (`ELOOP` / `ENOTDIR`), never followed.

use std::fs::File;
use std::path::Path;

use rustix::fs::{Mode, OFlags, openat};

/// Opens `key` (root-relative, `/`-separated, no symlinked parents) under `root` for reading.
pub fn open_beneath(root: &Path, key: &str) -> std::io::Result<File> {
    let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mut dir = rustix::fs::open(
        root,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let mut parts: Vec<&str> = key
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    let Some(name) = parts.pop() else {
        return Err(std::io::Error::from(std::io::ErrorKind::InvalidInput));
    };
    for part in parts {
        dir = openat(&dir, part, dir_flags, Mode::empty())?;
    }
    // O_NONBLOCK: a FIFO swapped in must not block the open; it is refused by the fstat check.
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK;
    Ok(File::from(openat(&dir, name, flags, Mode::empty())?))
}

/// Whether an open error means a symlink was met where a file or directory was expected.
pub fn is_symlink_error(e: &std::io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::ELOOP) | Some(libc::ENOTDIR))
}
