//! Failpoints for crash testing: `IDENTEDIT_FAILPOINT=<step>` kills the process with SIGKILL
//! when the transaction reaches `<step>` (as `kill -9` would, nothing is cleaned up);
//! `IDENTEDIT_FAILPOINT=<step>:error` makes the step fail with an I/O error instead, which
//! exercises the in-process rollback.

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

const VAR: &str = "IDENTEDIT_FAILPOINT";

/// Reaching `step`: dies or fails when the environment asks for it.
pub fn hit(step: &str) -> std::io::Result<()> {
    let Some(wanted) = std::env::var_os(VAR) else {
        return Ok(());
    };
    let wanted = wanted.to_string_lossy();
    let (name, mode) = wanted.split_once(':').unwrap_or((&wanted, "kill"));
    if name != step {
        return Ok(());
    }
    if mode == "error" {
        return Err(std::io::Error::other(format!("failpoint {step}")));
    }
    kill_self()
}

#[allow(unsafe_code)]
fn kill_self() -> std::io::Result<()> {
    // SAFETY: kill(2) on our own pid with a constant signal has no memory-safety preconditions.
    unsafe {
        libc::kill(libc::getpid(), libc::SIGKILL);
    }
    std::process::abort()
}
