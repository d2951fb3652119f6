//! One test per fixture folder, so a failing folder is reported by name and hides no other:
//! every scenario under `fixtures/scenarios/<front-end>/<name>/` (checked by
//! `tests/cli/scenarios.rs`) and every identedit conformance case under
//! `fixtures/identedit/<name>/` (checked by `identedit.rs`), in the hermetic harness of
//! `tests/cli/common.rs`.
//!
//! A custom harness (`libtest-mimic`, `harness = false`): the folders are listed when the
//! binary starts, so a new folder needs no code, and the usual filters work
//! (`cargo test --test folders -- scenarios/blocks`).

use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};

#[allow(dead_code)]
#[path = "../cli/common.rs"]
mod common;
mod identedit;
#[allow(dead_code)]
#[path = "../cli/scenarios.rs"]
mod scenarios;

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

fn main() {
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let scenarios: Vec<PathBuf> = folders(&root.join("scenarios"))
        .iter()
        .flat_map(|dialect| folders(dialect))
        .collect();
    let cases = folders(&root.join("identedit"));
    let mut trials = vec![
        at_least("scenarios", scenarios.len(), 10),
        at_least("identedit_cases", cases.len(), 30),
    ];
    for dir in scenarios {
        trials.push(trial(
            format!("scenarios/{}", label(&dir)),
            dir,
            scenarios::run_scenario,
        ));
    }
    for dir in cases {
        trials.push(trial(label(&dir), dir, identedit::run_case));
    }
    libtest_mimic::run(&args, trials).exit();
}
