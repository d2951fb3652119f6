//! Syntax-layer benchmark: `cargo bench --bench syntax`.
//!
//! On a generated 5,000-line Python file it measures one tree-sitter parse in process (the
//! unit of cost), the start of the binary (`--version`), and then `read --symbol` and
//! `patch --symbol --replace` through the real binary; the target is at most 1.5x
//! (parse + start) for each. A parse in process is warm (its allocator's memory was touched
//! by the runs before); the first parse of a fresh process, which is the one a command
//! makes, is timed too, and the verdict is given against both; the fresh parse, the start,
//! `read` and `patch` run in interleaved rounds, so a slow phase of the machine weighs on all
//! of them alike. It also times `read --mode line` on a 10,000-line file (target under 20 ms). The gate rows time one `edit --find/--replace` of one line with the gate on
//! (the file as it is) and off (the same bytes under a name no grammar claims, `.txt`): in a
//! generated 200,000-line (9 MB) JavaScript bundle shaped like `typescript.js` (target: on at
//! most 2x off) and in the 5,000-line Python file. Medians of `BENCH_RUNS` runs (default 15).
//! Nothing is written outside a temp directory.

use std::error::Error;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use git_identedit::lang::{outline::outline, parse::parse, parse::syntax_errors, provider_for};

const BIN: &str = env!("CARGO_BIN_EXE_git-identedit");

type Res<T> = Result<T, Box<dyn Error>>;

fn runs() -> usize {
    std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(15)
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// A Python module of `classes` classes with 10 methods of ~9 lines each.
fn python_source(classes: usize) -> String {
    let mut out = String::from("import os\nimport sys\n\n\n");
    for c in 0..classes {
        out.push_str(&format!(
            "class Service{c}:\n    \"\"\"Service number {c}.\"\"\"\n\n"
        ));
        for m in 0..10 {
            out.push_str(&format!(
                "    def handle_{m}(self, request, retries={m}):\n        total = 0\n        for item in request.items:\n            if item.value > {m}:\n                total += item.value * {c}\n            else:\n                total -= 1\n        return total + retries\n\n"
            ));
        }
        out.push('\n');
    }
    out
}

/// A bundle like `typescript.js`: one IIFE whose body is 2-space indented functions and
/// classes, 15 lines a unit, about 45 bytes a line.
fn javascript_bundle(lines: usize) -> String {
    let mut out = String::from("var lib = {};\n((module) => {\n  \"use strict\";\n");
    for i in 0..lines / 15 {
        let unit = format!(
            "  function computeTheValueOf{i}(request, options) {{\n    const result{i} = request.value + options.scale * {i};\n    if (result{i} > options.limit && request.enabled) {{\n      return reportTheValueTo(result{i}, \"message number {i}\");\n    }}\n    return result{i} + normalizeTheRequest(request);\n  }}\n  class NodeWithAPayload{i} extends BaseNodeType {{\n    constructor(value, parent) {{\n      super(parent); this.value = value;\n    }}\n    getTheValue(argument, fallback) {{\n      return this.value + argument + fallback + {i};\n    }}\n  }}\n"
        );
        out.push_str(&unit.replace('\n', " /* pad */\n"));
    }
    out.push_str("})(lib);\n");
    out
}

/// Median times of one line edit with the gate on (`name`) and off (`name.txt`, same bytes).
fn time_gate(dir: &Path, name: &str, source: &str, find: &str, replace: &str) -> Res<(f64, f64)> {
    let off = format!("{name}.txt");
    let mut out = Vec::new();
    for file in [name, off.as_str()] {
        let path = dir.join(file);
        std::fs::write(&path, source)?;
        let args = [
            "edit",
            file,
            "--find",
            find,
            "--replace",
            replace,
            "--format",
            "json",
        ];
        out.push(time_command(dir, &args, Some((&path, source)))?);
    }
    Ok((out[0], out[1]))
}

fn time_command(dir: &Path, args: &[&str], reset: Option<(&Path, &str)>) -> Res<f64> {
    let mut xs = Vec::new();
    for _ in 0..runs() {
        xs.push(run_command(dir, args, reset)?);
    }
    Ok(median(xs))
}

/// One run of the binary, in milliseconds (`reset`: a file written back first, not timed).
fn run_command(dir: &Path, args: &[&str], reset: Option<(&Path, &str)>) -> Res<f64> {
    if let Some((file, content)) = reset {
        std::fs::write(file, content)?;
    }
    let start = Instant::now();
    let status = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()?;
    let ms = start.elapsed().as_secs_f64() * 1e3;
    match status.success() {
        true => Ok(ms),
        false => Err(format!("{args:?} failed").into()),
    }
}

/// The median of each probe over `runs()` rounds; every round runs each probe once, so a
/// slow phase of the machine weighs on all of them alike.
fn interleaved(probes: &mut [&mut dyn FnMut() -> Res<f64>]) -> Res<Vec<f64>> {
    let mut xs = vec![Vec::new(); probes.len()];
    for _ in 0..runs() {
        for (probe, out) in probes.iter_mut().zip(&mut xs) {
            out.push(probe()?);
        }
    }
    Ok(xs.into_iter().map(median).collect())
}

/// One parse in this process, in milliseconds.
fn parse_in_process(path: &str, source: &str) -> Res<f64> {
    let provider = provider_for(path).ok_or("no provider")?;
    let start = Instant::now();
    let tree = parse(provider, source.as_bytes(), None)?;
    let ms = start.elapsed().as_secs_f64() * 1e3;
    drop(tree);
    Ok(ms)
}

/// Set in a child of this bench: the file it parses once, printing the milliseconds.
const PARSE_ONCE: &str = "SYNTAX_BENCH_PARSE_ONCE";

/// One parse as a command makes it: the first in a fresh process, whose allocator has not
/// touched any memory yet (each page of the new tree is a first-touch fault). Timed in a
/// child of this bench, from just before the parse to just after.
fn fresh_parse(path: &Path) -> Res<f64> {
    let out = Command::new(std::env::current_exe()?)
        .env(PARSE_ONCE, path)
        .stderr(Stdio::inherit())
        .output()?;
    Ok(String::from_utf8(out.stdout)?.trim().parse::<f64>()?)
}

/// The child's side of [`fresh_parse`].
fn parse_once(path: &str) -> Res<()> {
    git_identedit::alloc::use_mimalloc_for_parsers();
    let source = std::fs::read(path)?;
    let provider = provider_for(path).ok_or("no provider")?;
    let start = Instant::now();
    let tree = parse(provider, &source, None)?;
    println!("{}", start.elapsed().as_secs_f64() * 1e3);
    std::mem::forget(tree);
    Ok(())
}

/// Median time of `work` on an already parsed file (its provider, tree and bytes).
fn time_on_tree<T>(
    path: &str,
    source: &str,
    work: impl Fn(&'static git_identedit::lang::Provider, &tree_sitter::Tree, &[u8]) -> T,
) -> Res<f64> {
    let provider = provider_for(path).ok_or("no provider")?;
    let tree = parse(provider, source.as_bytes(), None)?;
    let mut xs = Vec::new();
    for _ in 0..runs() {
        let start = Instant::now();
        let out = work(provider, &tree, source.as_bytes());
        xs.push(start.elapsed().as_secs_f64() * 1e3);
        drop(out);
    }
    Ok(median(xs))
}

fn main() -> Res<()> {
    if let Some(path) = std::env::var_os(PARSE_ONCE) {
        return parse_once(&path.to_string_lossy());
    }
    // The unit of cost is a parse as the binary makes it (tree-sitter on mimalloc).
    git_identedit::alloc::use_mimalloc_for_parsers();
    let dir = tempfile::tempdir()?;
    Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir.path())
        .status()?;
    let source = python_source(55);
    let lines = source.lines().count();
    let file = dir.path().join("service.py");
    std::fs::write(&file, &source)?;
    let big: String = (0..10_000)
        .map(|i| format!("value_{i} = compute({i})  # line {i}\n"))
        .collect();
    std::fs::write(dir.path().join("lines.txt"), &big)?;

    let outline_ms = time_on_tree("service.py", &source, outline)?;
    // The tree's errors and the language's own rules (Python's indentation).
    let errors_ms = time_on_tree("service.py", &source, |p, tree, bytes| {
        let found = syntax_errors(p, tree, bytes);
        assert_eq!(found.0, 0, "the generated file parses cleanly");
    })?;
    let read_args = [
        "read",
        "service.py",
        "--symbol",
        "Service27.handle_5",
        "--context",
        "3",
    ];
    let new_body =
        "def handle_5(self, request, retries=5):\n        return len(request.items) + retries";
    let patch_args = [
        "patch",
        "service.py",
        "--symbol",
        "Service27.handle_5",
        "--replace",
        new_body,
        "--format",
        "json",
    ];
    let at = dir.path();
    // Warm: back to back, so each parse reuses the memory the one before touched.
    let mut warm = Vec::new();
    for _ in 0..runs() {
        warm.push(parse_in_process("service.py", &source)?);
    }
    let parse_ms = median(warm);
    let medians = interleaved(&mut [
        &mut || fresh_parse(&file),
        &mut || run_command(at, &["--version"], None),
        &mut || run_command(at, &read_args, None),
        &mut || run_command(at, &patch_args, Some((&file, &source))),
    ])?;
    let [fresh_ms, start_ms, read_ms, patch_ms] = medians[..] else {
        return Err("four probes".into());
    };
    let budget = 1.5 * (parse_ms + start_ms);
    let fresh_budget = 1.5 * (fresh_ms + start_ms);
    let lines_ms = time_command(dir.path(), &["read", "--mode", "line", "lines.txt"], None)?;
    let bundle = javascript_bundle(200_000);
    let units = bundle.matches("  function computeTheValueOf").count();
    let near_end = units * 98 / 100;
    let find = format!("    const result{near_end} = request.value + options.scale * {near_end};");
    let replace = format!(
        "    const result{near_end} = request.value + options.scale * {};",
        near_end + 1
    );
    let (js_on, js_off) = time_gate(dir.path(), "bundle.js", &bundle, &find, &replace)?;
    let (py_on, py_off) = time_gate(
        dir.path(),
        "edit.py",
        &source,
        "    def handle_5(self, request, retries=5):\n        total = 0\n        for item in request.items:\n            if item.value > 5:\n                total += item.value * 27",
        "    def handle_5(self, request, retries=5):\n        total = 0\n        for item in request.items:\n            if item.value > 5:\n                total += item.value * 28",
    )?;

    println!(
        "service.py: {lines} lines, {} bytes; lines.txt: 10,000 lines",
        source.len()
    );
    println!("one parse (in process, warm) {parse_ms:8.2} ms");
    println!("one parse (fresh process)    {fresh_ms:8.2} ms");
    println!("outline (in process)         {outline_ms:8.2} ms");
    println!("syntax errors (in process)   {errors_ms:8.2} ms");
    println!("process start (--version)    {start_ms:8.2} ms");
    println!("target for --symbol (1.5x)   {budget:8.2} ms  (fresh parse: {fresh_budget:.2} ms)");
    let verdict = |ms: f64, limit: f64| if ms <= limit { "ok" } else { "OVER" };
    println!(
        "read --symbol                {read_ms:8.2} ms  {} (fresh: {})",
        verdict(read_ms, budget),
        verdict(read_ms, fresh_budget)
    );
    println!(
        "patch --symbol --replace     {patch_ms:8.2} ms  {} (fresh: {})",
        verdict(patch_ms, budget),
        verdict(patch_ms, fresh_budget)
    );
    println!(
        "read --mode line (10k lines) {lines_ms:8.2} ms  {} (target 20 ms)",
        verdict(lines_ms, 20.0)
    );
    println!(
        "bundle.js: {} lines, {} bytes; one line edit at 98 %",
        bundle.lines().count(),
        bundle.len()
    );
    println!("edit, gate off (.txt)        {js_off:8.2} ms");
    println!(
        "edit, gate on                {js_on:8.2} ms  {} (target 2x off: {:.2} ms)",
        verdict(js_on, 2.0 * js_off),
        2.0 * js_off
    );
    println!("service.py one line edit, gate off {py_off:8.2} ms");
    println!(
        "service.py one line edit, gate on  {py_on:8.2} ms  {} (target 2x off)",
        verdict(py_on, 2.0 * py_off)
    );
    Ok(())
}
