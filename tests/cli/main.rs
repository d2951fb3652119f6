//! End-to-end tests: the real binary in temp git repositories.

mod apply;
mod changeset;
mod changeset_config;
mod changeset_moves;
mod common;
mod concurrency;
mod config;
mod crash;
mod dialects;
mod edit;
mod faults;
mod fuzz_corpus;
mod help;
mod hook_notes;
mod hook_scale;
mod hooks;
mod identedit;
mod indentation;
mod index_entries;
mod languages;
mod ledger;
mod ledger_chain;
mod ledger_cost;
mod ledger_text;
mod mcp;
mod output;
mod precommit_framework;
mod public_shapes;
mod range;
mod read;
mod readme;
mod rebase;
mod reliability;
mod scope;
mod swaps;
mod symbols;
mod syntax;
mod text_errors;
mod tolerance;
mod torture;
mod travel;
mod undo;
mod verify;
mod worktrees;

#[test]
fn no_forgotten_test_files() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli");
    let main = std::fs::read_to_string(dir.join("main.rs")).expect("main.rs");
    for entry in std::fs::read_dir(&dir).expect("tests/cli").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(module) = name.strip_suffix(".rs").filter(|m| *m != "main") {
            assert!(
                main.contains(&format!("mod {module};")),
                "tests/cli/{name} is not declared in main.rs"
            );
        }
    }
}
