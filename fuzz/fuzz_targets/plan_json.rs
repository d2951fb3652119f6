//! `source_edit_plan` documents: never panic; an accepted plan's find/replace edits, written
//! back as a plan, parse to the same operations.
#![no_main]
#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::plan_json(data));
