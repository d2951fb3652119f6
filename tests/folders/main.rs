//! One test per fixture folder, so a failing folder is reported by name and hides no other:
//! every scenario under `fixtures/scenarios/<front-end>/<name>/` and config case under
//! `fixtures/config/<name>/` (checked by `scenarios.rs`), every identedit conformance case
//! under `fixtures/identedit/<name>/` (`identedit.rs`) and every symbol case under
//! `fixtures/symbols/<lang>/<name>/` (`symbols.rs`), in the hermetic harness of
//! `tests/cli/common.rs`. What the folders share (set-up, command, expected tree) is
//! `case.rs`.
//!
//! A custom harness (`libtest-mimic`, `harness = false`): the folders are listed when the
//! binary starts, so a new folder needs no code, and the usual filters work
//! (`cargo test --test folders -- scenarios/blocks`).

use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};

mod case;
#[allow(dead_code)]
#[path = "../cli/common.rs"]
mod common;
mod identedit;
mod scenarios;
mod symbols;

/// The sub-folders of `dir`, sorted.
fn folders(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    out.sort();
    out
}

/// `parent/name` of a folder, as its test is named.
fn label(dir: &Path) -> String {
    let part = |p: Option<&Path>| {
        p.and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    format!("{}/{}", part(dir.parent()), part(Some(dir)))
}

fn trial(name: String, dir: PathBuf, run: fn(&Path)) -> Trial {
    Trial::test(name, move || {
        run(&dir);
        Ok(())
    })
}

/// Refuses a fixture tree that lost its folders (a moved root would pass with no tests).
fn at_least(what: &'static str, found: usize, expected: usize) -> Trial {
    Trial::test(format!("{what}_are_found"), move || {
        match found >= expected {
            true => Ok(()),
            false => Err(Failed::from(format!(
                "expected at least {expected} {what}, found {found}"
            ))),
        }
    })
}

/// The folders one level (`fixtures/NAME/*`) or two levels (`fixtures/NAME/*/*`) down.
fn cases(root: &Path, name: &str, nested: bool) -> Vec<PathBuf> {
    let top = folders(&root.join(name));
    match nested {
        true => top.iter().flat_map(|dir| folders(dir)).collect(),
        false => top,
    }
}

/// A fixture suite: its folder under `fixtures/`, whether its cases are one level deeper
/// (`<front-end>/<case>`), how many it has at least, and the check of one case.
type Suite = (&'static str, bool, usize, fn(&Path));

fn main() {
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let suites: [Suite; 4] = [
        ("scenarios", true, 10, scenarios::run_scenario),
        ("config", false, 40, scenarios::run_scenario),
        ("identedit", false, 30, identedit::run_case),
        ("symbols", true, 10, symbols::run_case),
    ];
    let mut trials = Vec::new();
    for (name, nested, expected, run) in suites {
        let found = cases(&root, name, nested);
        trials.push(at_least(name, found.len(), expected));
        for dir in found {
            let test = match nested {
                true => format!("{name}/{}", label(&dir)),
                false => label(&dir),
            };
            trials.push(trial(test, dir, run));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}
