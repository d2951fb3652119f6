//! Failpoints for crash and fault testing, compiled only into debug builds and builds with the
//! `failpoints` feature (a release binary ignores `IDENTEDIT_FAILPOINT`: an inherited variable
//! can never kill a real transaction).
//!
//! - `IDENTEDIT_FAILPOINT=<step>` kills the process with SIGKILL when the transaction reaches
//!   `<step>` (as `kill -9` would, nothing is cleaned up); `<step>:error` makes the step fail
//!   with an I/O error instead, which exercises the in-process rollback.
//! - `IDENTEDIT_FAILPOINT=<op>@<area>:<ERRNO>` (optionally `<op>@<area>#<n>:<ERRNO>`, the n-th
//!   time, 1-based) makes one file-system operation fail with a real errno before it runs:
//!   `op` is one of [`OPS`], `area` one of [`AREAS`], `ERRNO` one of [`ERRNOS`], or `KILL`
//!   (SIGKILL just before that operation).

/// Whether this build honours `IDENTEDIT_FAILPOINT` at all.
pub const ENABLED: bool = cfg!(any(debug_assertions, feature = "failpoints"));

/// Every step, in the order a transaction passes them.
pub const STEPS: &[(&str, &str)] = &[
    ("after_lock", "file locks held, nothing written"),
    ("after_journal", "journal durable, nothing staged"),
    (
        "after_stage",
        "every new content written to a temp file beside its target",
    ),
    ("after_backup", "pre-images linked into the journal folder"),
    (
        "after_first_rename",
        "the first file published, the others not",
    ),
    (
        "after_publish",
        "every file published, the journal not yet removed",
    ),
];

/// File-system operations an injected error can hit.
pub const OPS: &[&str] = &["mkdir", "write", "fsync", "link", "rename", "unlink"];

/// Where they happen: the journal, staging temp files, the pre-image backups, publishing
/// renames, the commit point, directory fsyncs, rollback, the ledger's refs, the index and
/// installed hooks.
pub const AREAS: &[&str] = &[
    "journal", "stage", "backup", "publish", "commit", "dir", "rollback", "ledger", "index", "hook",
];

/// The errors that can be injected.
pub const ERRNOS: &[(&str, i32)] = &[
    ("ENOSPC", libc::ENOSPC),
    ("EIO", libc::EIO),
    ("EACCES", libc::EACCES),
    ("EROFS", libc::EROFS),
    ("EXDEV", libc::EXDEV),
];

/// Reaching `step`: dies or fails when the environment asks for it.
pub fn hit(step: &str) -> std::io::Result<()> {
    let Some(wanted) = wanted() else {
        return Ok(());
    };
    let (name, mode) = wanted.split_once(':').unwrap_or((&wanted, "kill"));
    if name != step {
        return Ok(());
    }
    if mode == "error" {
        return Err(std::io::Error::other(format!("failpoint {step}")));
    }
    kill_self()
}

/// About to run file-system operation `op` in `area`: fails with the injected errno when the
/// environment names this operation (and this occurrence of it). Several faults are separated
/// by `,` (`rename@publish#2:EIO,rename@rollback:EIO`).
pub fn io(op: &str, area: &str) -> std::io::Result<()> {
    let Some(wanted) = wanted() else {
        return Ok(());
    };
    for spec in wanted.split(',') {
        let Some((site, errno)) = spec.rsplit_once(':') else {
            continue;
        };
        let (site, nth) = match site.split_once('#') {
            Some((site, n)) => (site, n.parse::<usize>().unwrap_or(1)),
            None => (site, 1),
        };
        if site.split_once('@') != Some((op, area)) {
            continue;
        }
        let code = ERRNOS.iter().find(|(name, _)| *name == errno).map(|e| e.1);
        if (code.is_some() || errno == "KILL") && count(spec) == nth {
            return match code {
                Some(code) => Err(std::io::Error::from_raw_os_error(code)),
                None => kill_self(),
            };
        }
    }
    Ok(())
}

/// How many times `spec`'s operation was reached in this process, this one included.
fn count(spec: &str) -> usize {
    static SEEN: std::sync::Mutex<Vec<(String, usize)>> = std::sync::Mutex::new(Vec::new());
    let mut seen = SEEN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    match seen.iter_mut().find(|(s, _)| s == spec) {
        Some((_, n)) => {
            *n += 1;
            *n
        }
        None => {
            seen.push((spec.to_owned(), 1));
            1
        }
    }
}

/// The failpoint the environment asks for; always `None` in release builds without the
/// `failpoints` feature.
fn wanted() -> Option<String> {
    if !ENABLED {
        return None;
    }
    std::env::var("IDENTEDIT_FAILPOINT").ok()
}

#[allow(unsafe_code)]
fn kill_self() -> std::io::Result<()> {
    // SAFETY: kill(2) on our own pid with a constant signal has no memory-safety preconditions.
    unsafe {
        libc::kill(libc::getpid(), libc::SIGKILL);
    }
    std::process::abort()
}
