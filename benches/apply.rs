//! Apply benchmark: `git-identedit apply` against `git apply` and GNU `patch` on the same change.
//!
//! Run with `cargo bench --bench apply`. Environment:
//! - `BENCH_RUNS` (default 15): timed runs per tool and case.
//! - `PERF` (default `/tmp/identedit-bench`): if `$PERF/work/<W>` exists (the real-corpus
//!   workloads of `/work/shared/bench/gen_workloads.py`), W1..W5 are measured too; W4 only with
//!   `BENCH_W4=1`. Corpus repos are reset to `pristine/` between runs and when done.
//!
//! Synthetic cases, each a fresh git repo in a temp dir with deterministic (seeded LCG) content:
//! - C1: one edit in the middle of a 5,000-line file;
//! - C2: 200 edits, two in each of 100 files of 300 lines, one plan / one patch;
//! - C3: one edit 97% of the way into a ~10 MB, 200,000-line file.
//!
//! Every case is written as a unified diff (`a/`/`b/`, 3 lines of context) and a
//! `source_edit_plan`; each tool's result is checked once against the expected after-state (byte
//! comparison, or `sha256sum -c` for corpora). Each timed run is spawn + wait of one process
//! (stdout to /dev/null) after restoring the touched files (not timed). Reported: median and min
//! wall time, identedit's ratio to `git apply` and `patch`, peak RSS of one run (GNU
//! `/usr/bin/time -f %M`) against the target "2 × largest touched file + 16 MiB", and the median
//! of 50 `git-identedit --version` runs against the 5 ms target.

use std::error::Error;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

type Res<T> = Result<T, Box<dyn Error>>;

const BIN: &str = env!("CARGO_BIN_EXE_git-identedit");
const PATCH: &str = "/usr/bin/patch";
const GNU_TIME: &str = "/usr/bin/time";
const CONTEXT: usize = 3;
const VERSION_RUNS: usize = 50;

/// Knuth's MMIX linear congruential generator: deterministic content without a `rand` crate.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        const A: u64 = 6_364_136_223_846_793_005;
        const C: u64 = 1_442_695_040_888_963_407;
        self.0 = self.0.wrapping_mul(A).wrapping_add(C);
        (self.0 >> 33) % n
    }
}

/// How a tool's result is checked.
enum Expect {
    /// The after-state of each touched file, in `Workload::files` order.
    Bytes(Vec<Vec<u8>>),
    /// A `sha256sum -c` file (absolute path) to check in the repo.
    Sha256(PathBuf),
}

/// One change to measure: the repo, the change in both dialects, and the touched files.
struct Workload {
    name: String,
    repo: PathBuf,
    diff: PathBuf,
    plan: PathBuf,
    /// Touched files: repo-relative path and original bytes.
    files: Vec<(String, Vec<u8>)>,
    expect: Expect,
}

impl Workload {
    /// Writes the original bytes back over every touched file.
    fn reset(&self) -> Res<()> {
        for (rel, before) in &self.files {
            fs::write(self.repo.join(rel), before).map_err(|e| format!("resetting {rel}: {e}"))?;
        }
        Ok(())
    }

    /// Fails unless the touched files are exactly the expected after-state.
    fn check(&self, tool: Tool) -> Res<()> {
        let what = format!("{}: result of {}", self.name, tool.name());
        match &self.expect {
            Expect::Bytes(after) => {
                for ((rel, _), want) in self.files.iter().zip(after) {
                    if &fs::read(self.repo.join(rel))? != want {
                        return Err(format!("{what}: {rel} differs from the expected bytes").into());
                    }
                }
            }
            Expect::Sha256(sums) => {
                let mut cmd = Command::new("sha256sum");
                cmd.args(["-c", "--quiet"]).arg(sums);
                run(cmd.current_dir(&self.repo), &what)?;
            }
        }
        Ok(())
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Tool {
    GitApply,
    Patch,
    /// `git identedit apply` of the source_edit_plan.
    Identedit,
    /// `git identedit apply` of the same change as SEARCH/REPLACE blocks, a Codex patch and
    /// the unified diff (the blocks and Codex files exist for the real-corpus workloads).
    IdentBlocks,
    IdentCodex,
    IdentDiff,
}

impl Tool {
    fn name(self) -> &'static str {
        match self {
            Tool::GitApply => "git-apply",
            Tool::Patch => "patch",
            Tool::Identedit => "identedit",
            Tool::IdentBlocks => "ie-blocks",
            Tool::IdentCodex => "ie-codex",
            Tool::IdentDiff => "ie-diff",
        }
    }

    fn is_identedit(self) -> bool {
        !matches!(self, Tool::GitApply | Tool::Patch)
    }

    /// The input file of this tool for `w`.
    fn input(self, w: &Workload) -> PathBuf {
        match self {
            Tool::Identedit => w.plan.clone(),
            Tool::IdentBlocks => w.diff.with_file_name("edit.blocks"),
            Tool::IdentCodex => w.diff.with_file_name("edit.codex"),
            _ => w.diff.clone(),
        }
    }

    fn argv(self, w: &Workload) -> Vec<OsString> {
        let os = OsString::from;
        let input = self.input(w).into();
        match self {
            Tool::GitApply => vec![os("git"), os("apply"), input],
            Tool::Patch => vec![os(PATCH), os("-p1"), os("-s"), os("-i"), input],
            // W2 and W4 change a default and rename public parameters: under a larger parse
            // budget or `identedit.apiGuard all` the guard would refuse that for a plan unless
            // acknowledged, so the plan row acknowledges it and times the same work either way.
            Tool::Identedit => vec![
                os(BIN),
                os("apply"),
                input,
                os("--allow-signature-change"),
                os("--format"),
                os("json"),
            ],
            _ => vec![os(BIN), os("apply"), input, os("--format"), os("json")],
        }
    }
}

/// Runs a command to completion; an error (with its stderr) unless it exits 0.
fn run(cmd: &mut Command, what: &str) -> Res<Output> {
    let out = cmd
        .output()
        .map_err(|e| format!("{what}: cannot spawn: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!("{what}: {} — {}", out.status, err.trim()).into());
    }
    Ok(out)
}

fn command(argv: &[OsString], cwd: &Path) -> Command {
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..]).current_dir(cwd).stdin(Stdio::null());
    cmd
}

/// A file of the synthetic repo: path, number of lines, 0-based indices of the edited lines.
struct FileSpec(String, usize, Vec<usize>);

/// Deterministic Rust-like lines, each `let` line unique through its `value_<n>` token.
fn gen_lines(rng: &mut Lcg, n: usize) -> Vec<String> {
    const FUNS: [&str; 4] = ["compute", "combine", "lookup", "scale"];
    (0..n)
        .map(|i| match i % 25 {
            0 => format!("fn block_{i}() {{\n"),
            24 => "}\n".to_string(),
            _ => {
                let f = FUNS[rng.below(4) as usize];
                let r = rng.below(1_000_000);
                format!("    let value_{i}: u64 = {f}(&ctx, {i}, {r});\n")
            }
        })
        .collect()
}

/// The edited line index near `i` (never a `fn`/`}` line) and its modified version.
fn edit_at(lines: &[String], i: usize) -> (usize, String) {
    let i = match i % 25 {
        0 => i + 1,
        24 => i - 1,
        _ => i,
    };
    (i, lines[i].replacen('(', "_checked(", 1))
}

/// A unified diff of whole-line replacements (`edits` sorted, far enough apart not to merge).
fn unified_diff(path: &str, lines: &[String], edits: &[(usize, String)]) -> String {
    let mut out = format!("diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n");
    let mut shift = 0isize;
    for (i, new) in edits {
        let i = *i;
        let (lo, hi) = (i.saturating_sub(CONTEXT), lines.len().min(i + 1 + CONTEXT));
        let added = new.split_inclusive('\n').count();
        let (old_len, new_len) = (hi - lo, hi - lo - 1 + added);
        let new_start = (lo + 1) as isize + shift;
        let _ = writeln!(out, "@@ -{},{old_len} +{new_start},{new_len} @@", lo + 1);
        let mut put = |tag: &str, line: &str| out.extend([tag, line]);
        lines[lo..i].iter().for_each(|l| put(" ", l));
        put("-", &lines[i]);
        new.split_inclusive('\n').for_each(|l| put("+", l));
        lines[i + 1..hi].iter().for_each(|l| put(" ", l));
        shift += added as isize - 1;
    }
    out
}

/// Creates `<root>/<name>/repo` with the files committed, plus `edit.diff` and `edit.plan.json`.
fn build_case(root: &Path, name: &str, specs: &[FileSpec], seed: u64) -> Res<Workload> {
    let dir = root.join(name);
    let repo = dir.join("repo");
    let mut rng = Lcg(seed);
    let (mut diff, mut plan_edits) = (String::new(), Vec::new());
    let (mut files, mut after) = (Vec::new(), Vec::new());
    for FileSpec(path, n_lines, at) in specs {
        let lines = gen_lines(&mut rng, *n_lines);
        let before = lines.concat();
        let edits: Vec<(usize, String)> = at.iter().map(|&i| edit_at(&lines, i)).collect();
        if edits.windows(2).any(|p| p[1].0 < p[0].0 + 2 * CONTEXT + 2) {
            return Err(format!("{name}: edits in {path} too close").into());
        }
        let mut new_lines = lines.clone();
        for (i, new) in &edits {
            if before.matches(lines[*i].as_str()).count() != 1 {
                return Err(format!("{name}: find text not unique in {path}").into());
            }
            new_lines[*i].clone_from(new);
            plan_edits.push(serde_json::json!({"path": path, "find": lines[*i], "replace": new}));
        }
        diff.push_str(&unified_diff(path, &lines, &edits));
        let abs = repo.join(path);
        fs::create_dir_all(abs.parent().ok_or("file path has no parent")?)?;
        fs::write(&abs, &before).map_err(|e| format!("writing {}: {e}", abs.display()))?;
        files.push((path.clone(), before.into_bytes()));
        after.push(new_lines.concat().into_bytes());
    }
    git_init(&repo)?;
    let plan = serde_json::json!({
        "type": "source_edit_plan", "contract_version": "1.0", "edits": plan_edits,
    });
    let w = Workload {
        name: name.to_string(),
        repo,
        diff: dir.join("edit.diff"),
        plan: dir.join("edit.plan.json"),
        files,
        expect: Expect::Bytes(after),
    };
    fs::write(&w.diff, diff)?;
    fs::write(&w.plan, serde_json::to_vec_pretty(&plan)?)?;
    Ok(w)
}

fn git_init(repo: &Path) -> Res<()> {
    let steps: [&[&str]; 6] = [
        &["init", "-q", "-b", "main"],
        &["config", "user.name", "Bench"],
        &["config", "user.email", "bench@example.invalid"],
        &["config", "commit.gpgsign", "false"],
        &["add", "-A"],
        &["commit", "-q", "-m", "initial"],
    ];
    for args in steps {
        let what = format!("git {}", args.join(" "));
        run(Command::new("git").args(args).current_dir(repo), &what)?;
    }
    Ok(())
}

/// C1, C2 and C3 (see the module doc), built under `root`.
fn synthetic_cases(root: &Path) -> Res<Vec<Workload>> {
    let one = |path: &str, lines, at| [FileSpec(path.to_string(), lines, vec![at])];
    let mut rng = Lcg(7);
    let c2: Vec<FileSpec> = (0..100)
        .map(|k| {
            let path = format!("src/m{:02}/mod_{k:03}.rs", k / 10);
            let (a, b) = (5 + rng.below(135), 160 + rng.below(130));
            FileSpec(path, 300, vec![a as usize, b as usize])
        })
        .collect();
    Ok(vec![
        build_case(root, "C1", &one("src/big.rs", 5_000, 2_500), 1)?,
        build_case(root, "C2", &c2, 2)?,
        build_case(root, "C3", &one("data/huge.rs", 200_000, 194_000), 3)?,
    ])
}

/// The real-corpus workloads present under `$PERF/work` (none if it does not exist).
fn corpus_workloads() -> Res<Vec<Workload>> {
    let perf = std::env::var_os("PERF").unwrap_or_else(|| "/tmp/identedit-bench".into());
    let work = PathBuf::from(perf).join("work");
    let with_w4 = std::env::var("BENCH_W4").is_ok_and(|v| v == "1");
    let mut out = Vec::new();
    for name in ["W1", "W2", "W3", "W4", "W5"] {
        let wd = work.join(name);
        if !wd.is_dir() || (name == "W4" && !with_w4) {
            continue;
        }
        let read = |f: &str| fs::read_to_string(wd.join(f)).map_err(|e| format!("{name}/{f}: {e}"));
        let repo = PathBuf::from(read("repo")?.trim());
        let mut files = Vec::new();
        for rel in read("files.txt")?.lines().filter(|l| !l.is_empty()) {
            let bytes = fs::read(wd.join("pristine").join(rel))
                .map_err(|e| format!("{name}: pristine/{rel}: {e}"))?;
            files.push((rel.to_string(), bytes));
        }
        out.push(Workload {
            name: name.to_string(),
            repo,
            diff: wd.join("edit.diff"),
            plan: wd.join("edit.plan.json"),
            files,
            expect: Expect::Sha256(wd.join("expected.sha256")),
        });
    }
    Ok(out)
}

/// One result line of the table.
struct Row {
    case: String,
    tool: Tool,
    /// Wall times of the timed runs, sorted.
    times: Vec<Duration>,
    rss_kib: u64,
    largest: u64,
}

fn median(sorted: &[Duration]) -> Duration {
    let n = sorted.len();
    (sorted[(n - 1) / 2] + sorted[n / 2]) / 2
}

/// Wall time of spawning `argv` in `cwd` and waiting for it (output discarded); must exit 0.
fn time_once(argv: &[OsString], cwd: &Path, what: &str) -> Res<Duration> {
    let mut cmd = command(argv, cwd);
    cmd.stdout(Stdio::null()).stderr(Stdio::null());
    let start = Instant::now();
    let status = cmd.status().map_err(|e| format!("{what}: {e}"))?;
    let elapsed = start.elapsed();
    if !status.success() {
        return Err(format!("{what}: timed run failed: {status}").into());
    }
    Ok(elapsed)
}

/// Max RSS (KiB) of one run of `argv`, as GNU time's `%M` (the last line of its stderr).
fn peak_rss_kib(argv: &[OsString], cwd: &Path, what: &str) -> Res<u64> {
    let mut cmd = Command::new(GNU_TIME);
    cmd.args(["-f", "%M"]).args(argv).current_dir(cwd);
    let out = run(
        cmd.stdout(Stdio::null()),
        &format!("{what} under {GNU_TIME}"),
    )?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let last = stderr.lines().last().ok_or("GNU time printed nothing")?;
    Ok(last
        .trim()
        .parse()
        .map_err(|e| format!("{what}: max RSS {last:?}: {e}"))?)
}

/// One untimed, checked run; then `runs` timed runs; then one run under GNU time for max RSS.
fn measure(w: &Workload, tool: Tool, runs: usize) -> Res<Row> {
    let argv = tool.argv(w);
    let what = format!("{}: {}", w.name, tool.name());
    w.reset()?;
    let out = run(&mut command(&argv, &w.repo), &what)?;
    w.check(tool)?;
    if tool.is_identedit() {
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout)?;
        if doc["ok"] != serde_json::Value::Bool(true) {
            return Err(format!("{what}: report is not ok: {doc}").into());
        }
    }
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        w.reset()?;
        times.push(time_once(&argv, &w.repo, &what)?);
    }
    times.sort();
    w.reset()?;
    let rss_kib = peak_rss_kib(&argv, &w.repo, &what)?;
    w.reset()?;
    let largest = w.files.iter().map(|(_, b)| b.len() as u64).max();
    let (case, largest) = (w.name.clone(), largest.unwrap_or(0));
    Ok(Row {
        case,
        tool,
        times,
        rss_kib,
        largest,
    })
}

/// Measures every available tool on `w`.
fn bench(w: &Workload, runs: usize, rows: &mut Vec<Row>) -> Res<()> {
    let bytes: usize = w.files.iter().map(|(_, b)| b.len()).sum();
    eprintln!("{}: {} files, {bytes} bytes touched", w.name, w.files.len());
    let have_patch = Path::new(PATCH).exists();
    let tools = [
        Tool::GitApply,
        Tool::Patch,
        Tool::Identedit,
        Tool::IdentBlocks,
        Tool::IdentCodex,
        Tool::IdentDiff,
    ];
    for tool in tools {
        if (tool != Tool::Patch || have_patch) && tool.input(w).exists() {
            rows.push(measure(w, tool, runs)?);
        }
    }
    Ok(())
}

/// Mirrors the corpus `verify.sh` reset: also refresh the index entries of the touched files.
fn reset_corpus(w: &Workload) -> Res<()> {
    w.reset()?;
    let mut cmd = Command::new("git");
    cmd.args(["reset", "-q", "--"])
        .args(w.files.iter().map(|(p, _)| p));
    run(cmd.current_dir(&w.repo), &format!("{}: git reset", w.name))?;
    Ok(())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn print_table(rows: &[Row]) {
    println!(
        "{:<5} {:<10} {:>10} {:>10} {:>8} {:>8} {:>9}  rss target",
        "case", "tool", "median ms", "min ms", "/git", "/patch", "rss KiB"
    );
    for r in rows {
        let base = |t: Tool| rows.iter().find(|b| b.case == r.case && b.tool == t);
        let med = ms(median(&r.times));
        let ratio = |t: Tool| match base(t) {
            Some(b) if r.tool.is_identedit() => format!("{:.2}x", med / ms(median(&b.times))),
            _ => String::new(),
        };
        let target = r.tool.is_identedit().then(|| {
            let limit = 2 * r.largest / 1024 + 16 * 1024;
            let verdict = if r.rss_kib <= limit { "ok" } else { "OVER" };
            format!("<= {limit} KiB {verdict}")
        });
        println!(
            "{:<5} {:<10} {:>10.2} {:>10.2} {:>8} {:>8} {:>9}  {}",
            r.case,
            r.tool.name(),
            med,
            ms(r.times[0]),
            ratio(Tool::GitApply),
            ratio(Tool::Patch),
            r.rss_kib,
            target.unwrap_or_default()
        );
    }
}

fn time_version() -> Res<Duration> {
    let argv = [OsString::from(BIN), OsString::from("--version")];
    let cwd = std::env::temp_dir();
    let mut times = Vec::with_capacity(VERSION_RUNS);
    for _ in 0..VERSION_RUNS {
        times.push(time_once(&argv, &cwd, "git-identedit --version")?);
    }
    times.sort();
    Ok(median(&times))
}

fn main() -> Res<()> {
    let runs: usize = match std::env::var("BENCH_RUNS") {
        Ok(v) => v.parse().map_err(|e| format!("BENCH_RUNS={v:?}: {e}"))?,
        Err(_) => 15,
    };
    if runs == 0 {
        return Err("BENCH_RUNS must be at least 1".into());
    }
    let tmp = tempfile::tempdir().map_err(|e| format!("creating the temp dir: {e}"))?;
    eprintln!("generating synthetic repos in {}", tmp.path().display());
    let mut rows = Vec::new();
    for w in synthetic_cases(tmp.path())? {
        bench(&w, runs, &mut rows)?;
    }
    for w in corpus_workloads()? {
        let result = bench(&w, runs, &mut rows);
        reset_corpus(&w)?;
        result?;
    }
    println!("{runs} timed runs per tool; ratios are identedit median / baseline median");
    print_table(&rows);
    let version = ms(time_version()?);
    let verdict = if version < 5.0 { "ok" } else { "OVER" };
    println!(
        "git-identedit --version: median {version:.2} ms of {VERSION_RUNS} (target < 5 ms: {verdict})"
    );
    Ok(())
}
