//! Replays the committed fuzz corpus (`fuzz/corpus/TARGET/`) through the fuzz targets' own
//! checks (`fuzz/checks.rs`) in every `cargo test`, without the nightly toolchain: every
//! parser still never panics, never loops and round-trips on each input the fuzzer kept.

#[path = "../../fuzz/checks.rs"]
mod checks;

use std::time::{Duration, Instant};

fn replay(target: &str, check: fn(&[u8])) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut inputs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty(), "{target}: empty corpus");
    for input in inputs {
        let bytes = std::fs::read(&input).expect("corpus input");
        let started = Instant::now();
        check(&bytes);
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{target}: {} took {:?}",
            input.display(),
            started.elapsed()
        );
    }
}

#[test]
fn the_fuzz_corpus_replays_cleanly() {
    replay("blocks", checks::blocks);
    replay("codex", checks::codex);
    replay("unified_diff", checks::unified_diff);
    replay("plan_json", checks::plan_json);
    replay("changeset", checks::changeset);
    replay("config_path", checks::config_path);
    replay("line_anchor", checks::line_anchor);
}
