//! Writing a file whole or not at all: the new bytes go to a temp file beside it, created
//! exclusively (a name someone planted is never followed or reused) with the final mode,
//! made durable (as `workspace::durable` says), then renamed over the file. A failure removes the temp file and leaves the
//! file as it was.

use std::fs::{self, File, OpenOptions};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

use crate::plan::Digest;
use crate::workspace::failpoint;

/// Replaces `target` through `tmp` (beside it): `fill` writes the content, the file gets
/// exactly `mode` (not the umask's), then it is fsynced and renamed into place. `area` names
/// the place for injected faults (`write@area`, `fsync@area`).
pub fn replace(
    target: &Path,
    tmp: &Path,
    mode: u32,
    area: &str,
    fill: impl FnOnce(&mut File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let written = (|| -> std::io::Result<()> {
        failpoint::io("write", area)?;
        let mut out = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(tmp)?;
        out.set_permissions(fs::Permissions::from_mode(mode))?;
        fill(&mut out)?;
        crate::workspace::durable::sync_file(&out, area)?;
        fs::rename(tmp, target)
    })();
    if written.is_err() {
        let _ = fs::remove_file(tmp);
    }
    written
}

/// The sha256 (hex) of a file's bytes; `None` when it does not read.
pub fn digest_of(path: &Path) -> Option<String> {
    fs::read(path).ok().map(|bytes| Digest::of(&bytes).to_hex())
}
