//! Ledger benchmark: what recording a receipt costs as the repository grows, and what
//! `verify` costs next to `git status`.
//!
//! Run with `cargo bench --bench ledger`. Environment: `BENCH_RUNS` (default 21) timed runs
//! per row; `BENCH_FILES` (default 100000) files in the large repository.
//!
//! Two repositories with the same shape where the edit happens (the edited file sits in a
//! directory of 100 files, as the stat-scan observation lists that directory): a small one of
//! 100 files, and a large one of `BENCH_FILES` files in directories of 100, committed. Rows:
//! - `edit+receipt`: one `git identedit edit --find/--replace` with its receipt (alternating
//!   between two values, so every run writes);
//! - `edit, no ledger`: the same edit in a plain copy of the directory (no git: no receipt);
//! - `verify`: `git identedit verify` of the newest receipt;
//! - `git status`: `git status --porcelain` on the same repository, the bound for verify.
//!
//! Targets (issue #5): large `edit+receipt` ≤ 1.5 × small `edit+receipt`; `verify` ≤
//! `git status` on the large repository.

use std::error::Error;
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

type Res<T> = Result<T, Box<dyn Error>>;

const BIN: &str = env!("CARGO_BIN_EXE_git-identedit");
const DIR_SIZE: usize = 100;
const EDITED: &str = "d0000/f0050.py";

fn git(repo: &Path, args: &[&str]) -> Res<()> {
    let status = Command::new("git")
        .args(args)
        .current_dir(repo)
        .env("GIT_AUTHOR_NAME", "bench")
        .env("GIT_AUTHOR_EMAIL", "bench@example.invalid")
        .env("GIT_COMMITTER_NAME", "bench")
        .env("GIT_COMMITTER_EMAIL", "bench@example.invalid")
        .stdout(Stdio::null())
        .status()?;
    if !status.success() {
        return Err(format!("git {args:?} failed").into());
    }
    Ok(())
}

/// A directory of `files` small Python files, `DIR_SIZE` per directory.
fn populate(root: &Path, files: usize) -> Res<()> {
    for i in 0..files {
        let dir = root.join(format!("d{:04}", i / DIR_SIZE));
        if i % DIR_SIZE == 0 {
            fs::create_dir_all(&dir)?;
        }
        let body = format!("def f{i}(x):\n    value = {i}\n    return x + value\n");
        fs::write(dir.join(format!("f{:04}.py", i % DIR_SIZE)), body)?;
    }
    Ok(())
}

fn repository(root: &Path, files: usize) -> Res<()> {
    fs::create_dir_all(root)?;
    populate(root, files)?;
    git(root, &["init", "-q", "-b", "main"])?;
    git(root, &["add", "-A"])?;
    git(root, &["commit", "-q", "-m", "base"])?;
    // Warm the index's stat data as a user's repository would have it.
    git(root, &["status", "--porcelain"])?;
    Ok(())
}

fn time(cwd: &Path, program: &str, args: &[&str]) -> Res<Duration> {
    let start = Instant::now();
    let status = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()?;
    let took = start.elapsed();
    let verify = program == BIN && args.first() == Some(&"verify");
    if !(status.success() || verify) {
        return Err(format!("{program} {args:?} failed in {}", cwd.display()).into());
    }
    Ok(took)
}

fn median(mut runs: Vec<Duration>) -> Duration {
    runs.sort();
    runs[runs.len() / 2]
}

/// One edit per run, flipping the value back and forth so every run writes.
fn edits(cwd: &Path, runs: usize) -> Res<Duration> {
    let mut times = Vec::new();
    for run in 0..runs {
        let (from, to) = if run % 2 == 0 {
            ("value = 50", "value = 51")
        } else {
            ("value = 51", "value = 50")
        };
        let args = [
            "edit",
            EDITED,
            "--find",
            from,
            "--replace",
            to,
            "--format",
            "json",
        ];
        times.push(time(cwd, BIN, &args)?);
    }
    Ok(median(times))
}

fn repeat(cwd: &Path, program: &str, args: &[&str], runs: usize) -> Res<Duration> {
    let mut times = Vec::new();
    for _ in 0..runs {
        times.push(time(cwd, program, args)?);
    }
    Ok(median(times))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() -> Res<()> {
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(21);
    let large: usize = std::env::var("BENCH_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let tmp = tempfile::tempdir()?;
    let small_repo = tmp.path().join("small");
    let large_repo = tmp.path().join("large");
    let plain = tmp.path().join("plain");
    eprintln!("building repositories of {DIR_SIZE} and {large} files…");
    repository(&small_repo, DIR_SIZE)?;
    repository(&large_repo, large)?;
    fs::create_dir_all(&plain)?;
    populate(&plain, DIR_SIZE)?;

    let small = edits(&small_repo, runs)?;
    let big = edits(&large_repo, runs)?;
    let bare = edits(&plain, runs)?;
    let verify_small = repeat(&small_repo, BIN, &["verify", "--format", "json"], runs)?;
    let verify_large = repeat(&large_repo, BIN, &["verify", "--format", "json"], runs)?;
    let status_large = repeat(&large_repo, "git", &["status", "--porcelain"], runs)?;
    let status_small = repeat(&small_repo, "git", &["status", "--porcelain"], runs)?;

    println!("ledger benchmark: median of {runs} runs (ms)");
    println!(
        "{:<24}{:>14}{:>14}",
        "",
        format!("{DIR_SIZE} files"),
        format!("{large} files")
    );
    println!("{:<24}{:>14.2}{:>14.2}", "edit+receipt", ms(small), ms(big));
    println!("{:<24}{:>14.2}{:>14}", "edit, no ledger", ms(bare), "-");
    println!(
        "{:<24}{:>14.2}{:>14.2}",
        "verify",
        ms(verify_small),
        ms(verify_large)
    );
    println!(
        "{:<24}{:>14.2}{:>14.2}",
        "git status",
        ms(status_small),
        ms(status_large)
    );
    println!(
        "large/small edit+receipt: {:.2}x (target <= 1.5x); verify/git status (large): {:.2}x (target <= 1x)",
        ms(big) / ms(small),
        ms(verify_large) / ms(status_large)
    );
    Ok(())
}
