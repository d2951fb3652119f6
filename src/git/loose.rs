//! A receipt's few objects as loose files, all compressed by one zlib stream state that is
//! reset between them and kept for the thread's next writer (the receipt's commit). Storing
//! each through gix set up a new compressor per object (about 370 KiB of state allocated and
//! cleared), which on a one-edit receipt of ten objects cost more than compressing them. The
//! file is git's loose format: `<kind> <size>\0<bytes>` deflated, written to a temp file in
//! the objects directory, read-only, renamed into `objects/xx/<rest of the id>`. An object
//! already stored loose is not written again.

use std::cell::RefCell;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use gix::ObjectId;
use gix::objs::Kind;
use gix_zlib::stream::deflate::{Compress, FlushCompress};

/// Writes loose objects into one repository's object directory.
pub struct Loose {
    dir: PathBuf,
    level: gix_zlib::Compression,
    /// Taken from [`KEPT`] on the first write, given back when the writer is dropped.
    zlib: Option<Compress>,
    out: Vec<u8>,
}

thread_local! {
    /// The stream state of this thread's last writer and its level, for the next one (a
    /// receipt's objects and then its commit).
    static KEPT: RefCell<Option<(i32, Compress)>> = const { RefCell::new(None) };
}

impl Loose {
    /// The writer of `repo`'s loose objects, at `core.looseCompression` (else
    /// `core.compression`, else 1, the fastest: `git gc` recompresses).
    pub fn new(repo: &gix::Repository) -> Self {
        Self {
            dir: repo.objects.store_ref().path().to_owned(),
            level: compression(repo),
            zlib: None,
            out: Vec::new(),
        }
    }

    /// Stores `data` as the object `id` of `kind` (`id` must be its hash).
    pub fn write(&mut self, id: &ObjectId, kind: Kind, data: &[u8]) -> std::io::Result<()> {
        crate::workspace::failpoint::io("write", "ledger")?;
        let hex = id.to_hex().to_string();
        let (fan, rest) = hex.split_at(2);
        let fan = self.dir.join(fan);
        let target = fan.join(rest);
        if target.symlink_metadata().is_ok() {
            return Ok(());
        }
        let header = gix::objs::encode::loose_header(kind, data.len() as u64);
        let zlib = reset_state(&mut self.zlib, self.level);
        self.out.clear();
        deflate(zlib, &header, FlushCompress::None, &mut self.out)?;
        deflate(zlib, data, FlushCompress::Finish, &mut self.out)?;
        let mut file = tempfile::Builder::new()
            .prefix("tmp_obj_")
            .permissions(std::fs::Permissions::from_mode(0o444))
            .tempfile_in(&self.dir)?;
        file.write_all(&self.out)?;
        crate::workspace::durable::sync_file(file.as_file(), "ledger")?;
        std::fs::create_dir_all(fan)?;
        file.persist(&target).map_err(|e| e.error)?;
        Ok(())
    }
}

impl Drop for Loose {
    fn drop(&mut self) {
        if let Some(zlib) = self.zlib.take() {
            KEPT.with_borrow_mut(|kept| *kept = Some((self.level.level(), zlib)));
        }
    }
}

/// The writer's stream state, reset: on the first write, the one this thread kept when its
/// level is `level`, else a new one.
fn reset_state(zlib: &mut Option<Compress>, level: gix_zlib::Compression) -> &mut Compress {
    let zlib = zlib.get_or_insert_with(|| match KEPT.with_borrow_mut(Option::take) {
        Some((kept, zlib)) if kept == level.level() => zlib,
        _ => Compress::new(level),
    });
    zlib.reset();
    zlib
}

/// Deflates `input` into `out` with `zlib`: with [`FlushCompress::None`] until the input is
/// taken, with [`FlushCompress::Finish`] until the stream ends.
pub fn deflate(
    zlib: &mut Compress,
    mut input: &[u8],
    flush: FlushCompress,
    out: &mut Vec<u8>,
) -> std::io::Result<()> {
    let mut chunk = [0u8; 16 << 10];
    loop {
        let (taken, given) = (zlib.total_in(), zlib.total_out());
        let status = zlib
            .compress(input, &mut chunk, flush)
            .map_err(std::io::Error::other)?;
        let consumed = (zlib.total_in() - taken) as usize;
        let produced = (zlib.total_out() - given) as usize;
        out.extend_from_slice(&chunk[..produced]);
        input = &input[consumed..];
        match status {
            gix_zlib::Status::StreamEnd => return Ok(()),
            _ if flush == FlushCompress::None && input.is_empty() => return Ok(()),
            _ if consumed == 0 && produced == 0 => {
                return Err(std::io::Error::other("zlib made no progress"));
            }
            _ => {}
        }
    }
}

/// `core.looseCompression`, else `core.compression`, else 1.
fn compression(repo: &gix::Repository) -> gix_zlib::Compression {
    gix_zlib::Compression::new(configured_level(repo, "core.looseCompression"))
        .unwrap_or(gix_zlib::Compression::BEST_SPEED)
}

/// The zlib level `key` sets, else `core.compression`, else 1 (the fastest; `git gc`
/// recompresses). A value outside 0–9 counts as unset.
pub fn configured_level(repo: &gix::Repository, key: &str) -> i32 {
    let config = repo.config_snapshot();
    [key, "core.compression"]
        .iter()
        .find_map(|key| config.integer(key))
        .and_then(|level| i32::try_from(level).ok())
        .filter(|level| (0..=9).contains(level))
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two objects in a row through one reset stream inflate to their own bytes.
    #[test]
    fn a_reset_stream_deflates_each_object_whole() {
        let mut zlib = Compress::new(gix_zlib::Compression::BEST_SPEED);
        for data in [&b"first object\n"[..], &[7u8; 100_000][..]] {
            let mut out = Vec::new();
            zlib.reset();
            deflate(&mut zlib, b"blob 5\0", FlushCompress::None, &mut out).expect("header");
            deflate(&mut zlib, data, FlushCompress::Finish, &mut out).expect("data");
            let mut inflated = Vec::new();
            let mut z = gix_zlib::Decompress::default();
            let mut rest = out.as_slice();
            let mut chunk = vec![0u8; 200_000];
            loop {
                let (inn, outn) = (z.total_in(), z.total_out());
                let status = z
                    .decompress(rest, &mut chunk, gix_zlib::FlushDecompress::None)
                    .expect("inflate");
                inflated.extend_from_slice(&chunk[..(z.total_out() - outn) as usize]);
                rest = &rest[(z.total_in() - inn) as usize..];
                if status == gix_zlib::Status::StreamEnd {
                    break;
                }
            }
            assert_eq!(&inflated[..7], b"blob 5\0");
            assert_eq!(&inflated[7..], data);
        }
    }
}
