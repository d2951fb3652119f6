//! A receipt's objects as one pack. A receipt of many files holds hundreds of objects (a
//! blob and the trees of its path per file); as loose objects each costs a file creation, a
//! rename and existence checks, which on W2 (100 files) was most of the 6 ms its receipt
//! took. Written as one pack, they cost two files: `pack-<checksum>.pack`, then its `.idx`
//! (git and gix see a pack once its index exists), both read-only, at `pack.compression`
//! (else `core.compression`, else level 1, the fastest).
//!
//! The format is git's pack version 2 with every object whole (no deltas; git's `gc` deltifies
//! them later) and its index version 2.

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use gix::ObjectId;
use gix::objs::Kind;

/// One object to store: its id, kind and bytes (without the loose header).
pub type Object = (ObjectId, Kind, Vec<u8>);

/// Writes `objects` (sorted by id, none twice) as one pack and its index into `pack_dir`.
/// The pack goes to its file as it is made, and each object is let go once it is in: the
/// receipt's objects and their compressed copy are not all held at once.
pub fn write(
    pack_dir: &Path,
    hash: gix::hash::Kind,
    objects: Vec<Object>,
    level: i32,
) -> std::io::Result<()> {
    fs::create_dir_all(pack_dir)?;
    crate::workspace::failpoint::io("write", "ledger")?;
    let file = tempfile::Builder::new()
        .prefix("tmp_pack_")
        .tempfile_in(pack_dir)?;
    let mut pack = Hashed {
        out: std::io::BufWriter::with_capacity(64 << 10, file),
        hasher: gix::hash::hasher(hash),
        written: 0,
    };
    let entries = encode(&mut pack, objects, level)?;
    let checksum = pack.hasher.try_finalize().map_err(std::io::Error::other)?;
    pack.out.write_all(checksum.as_slice())?;
    let name = format!("pack-{}", checksum.to_hex());
    let file = pack.out.into_inner().map_err(|e| e.into_error())?;
    persist(file, &pack_dir.join(format!("{name}.pack")))?;
    let index = index(hash, &entries, &checksum)?;
    place(pack_dir, &format!("{name}.idx"), &index)
}

/// Writes `bytes` to a temp file in `dir`, read-only, and renames it to `name`.
fn place(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    crate::workspace::failpoint::io("write", "ledger")?;
    let mut file = tempfile::Builder::new()
        .prefix("tmp_pack_")
        .tempfile_in(dir)?;
    file.write_all(bytes)?;
    persist(file, &dir.join(name))
}

/// Makes a written temp file durable (as `identedit.fsync` says), read-only, and renames it.
fn persist(file: tempfile::NamedTempFile, to: &Path) -> std::io::Result<()> {
    crate::workspace::durable::sync_file(file.as_file(), "ledger")?;
    file.as_file()
        .set_permissions(fs::Permissions::from_mode(0o444))?;
    file.persist(to).map_err(|e| e.error)?;
    Ok(())
}

/// The pack file being written: every byte also goes into its checksum.
struct Hashed {
    out: std::io::BufWriter<tempfile::NamedTempFile>,
    hasher: gix::hash::Hasher,
    written: u64,
}

impl Hashed {
    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.hasher.update(bytes);
        self.written += bytes.len() as u64;
        self.out.write_all(bytes)
    }
}

/// Where one object went in the pack: its id, offset and the CRC-32 of its entry.
struct Entry {
    id: ObjectId,
    offset: u64,
    crc: u32,
}

/// Writes the pack's header and entries (not its trailing checksum) into `pack`, each
/// object dropped once its entry is written; returns the entries.
fn encode(pack: &mut Hashed, objects: Vec<Object>, level: i32) -> std::io::Result<Vec<Entry>> {
    let count = u32::try_from(objects.len()).map_err(std::io::Error::other)?;
    let level = gix_zlib::Compression::new(level).unwrap_or(gix_zlib::Compression::BEST_SPEED);
    pack.put(b"PACK")?;
    pack.put(&2u32.to_be_bytes())?;
    pack.put(&count.to_be_bytes())?;
    let mut entries = Vec::with_capacity(objects.len());
    // One stream state, reset per object: a new one costs about 370 KiB allocated and cleared.
    let mut zlib = gix_zlib::stream::deflate::Compress::new(level);
    // One entry at a time, in a buffer that keeps the room of the largest.
    let mut entry = Vec::new();
    for (id, kind, data) in objects {
        let offset = pack.written;
        entry.clear();
        entry.extend_from_slice(&entry_header(kind, data.len() as u64));
        zlib.reset();
        let finish = gix_zlib::stream::deflate::FlushCompress::Finish;
        super::loose::deflate(&mut zlib, &data, finish, &mut entry)?;
        drop(data);
        pack.put(&entry)?;
        let crc = crc32fast::hash(&entry);
        entries.push(Entry { id, offset, crc });
    }
    Ok(entries)
}

/// An entry's type and inflated size: type in bits 4-6 of the first byte with the size's
/// low 4 bits, then 7 bits a byte; the high bit says another byte follows.
fn entry_header(kind: Kind, size: u64) -> Vec<u8> {
    let code: u8 = match kind {
        Kind::Commit => 1,
        Kind::Tree => 2,
        Kind::Blob => 3,
        Kind::Tag => 4,
    };
    let mut out = vec![(code << 4) | (size & 0x0f) as u8];
    let mut rest = size >> 4;
    while rest > 0 {
        if let Some(last) = out.last_mut() {
            *last |= 0x80;
        }
        out.push((rest & 0x7f) as u8);
        rest >>= 7;
    }
    out
}

/// The pack index (version 2) of `entries`, which are in id order.
fn index(hash: gix::hash::Kind, entries: &[Entry], pack: &ObjectId) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    out.extend_from_slice(b"\xfftOc");
    out.extend_from_slice(&2u32.to_be_bytes());
    let mut fanout = [0u32; 256];
    for e in entries {
        fanout[usize::from(e.id.as_slice()[0])] += 1;
    }
    let mut total = 0u32;
    for count in fanout {
        total += count;
        out.extend_from_slice(&total.to_be_bytes());
    }
    for e in entries {
        out.extend_from_slice(e.id.as_slice());
    }
    for e in entries {
        out.extend_from_slice(&e.crc.to_be_bytes());
    }
    // Offsets past 2 GiB go to a table of 8-byte offsets, the 4-byte one naming its slot.
    let mut large = Vec::new();
    for e in entries {
        let small = match u32::try_from(e.offset) {
            Ok(o) if o < 0x8000_0000 => o,
            _ => {
                large.push(e.offset);
                0x8000_0000 | u32::try_from(large.len() - 1).map_err(std::io::Error::other)?
            }
        };
        out.extend_from_slice(&small.to_be_bytes());
    }
    for o in large {
        out.extend_from_slice(&o.to_be_bytes());
    }
    out.extend_from_slice(pack.as_slice());
    let checksum = digest(hash, &out)?;
    out.extend_from_slice(checksum.as_slice());
    Ok(out)
}

fn digest(hash: gix::hash::Kind, bytes: &[u8]) -> std::io::Result<ObjectId> {
    let mut hasher = gix::hash::hasher(hash);
    hasher.update(bytes);
    hasher.try_finalize().map_err(std::io::Error::other)
}
