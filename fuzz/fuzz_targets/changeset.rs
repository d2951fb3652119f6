//! Changesets and edit requests (`apply` of JSON other than a plan): never panic.
#![no_main]
#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::changeset(data));
