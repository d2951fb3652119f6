//! SEARCH/REPLACE replies: never panic; an accepted reply, written back as plain blocks,
//! parses to the same blocks.
#![no_main]
#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::blocks(data));
