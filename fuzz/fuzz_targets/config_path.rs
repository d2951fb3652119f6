//! Config paths: never panic; the canonical rendering of an accepted path parses back to it.
#![no_main]
#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::config_path(data));
