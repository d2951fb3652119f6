//! `LINE:HASH` anchors: never panic; an accepted anchor displays as text that parses back.
#![no_main]
#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::line_anchor(data));
