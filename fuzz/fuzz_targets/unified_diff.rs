//! Unified diffs (`git diff`, `diff -u`): never panic, parse deterministically.
#![no_main]
#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::unified_diff(data));
