//! The checks of every fuzz target, shared by the targets (`fuzz_targets/*.rs`, run by
//! `cargo +nightly fuzz run TARGET`) and by `tests/cli/fuzz_corpus.rs`, which replays the
//! committed corpus (`fuzz/corpus/TARGET/`) through them in every `cargo test`. Each one never
//! panics on any input, and round-trips what it accepts where the format has a canonical
//! rendering.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use git_identedit::formats::{blocks, changeset, codex, plan_json, request, unified_diff};
use git_identedit::locate::config::path::ConfigPath;
use git_identedit::plan::{LineAnchor, Occurrence, OpKind, Plan};
use serde_json::json;

fn blocks_of(plan: &Plan) -> Vec<(String, String, String)> {
    plan.ops
        .iter()
        .filter_map(|op| match &op.kind {
            OpKind::Block(b) => Some((op.path.raw.clone(), b.search.clone(), b.replace.clone())),
            _ => None,
        })
        .collect()
}

/// SEARCH/REPLACE replies: never panic; an accepted reply, written back as plain blocks,
/// parses to the same blocks.
pub fn blocks(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(plan) = blocks::parse(text) else {
        return;
    };
    let again = blocks::parse(text).expect("parsing is deterministic");
    assert_eq!(format!("{plan:?}"), format!("{again:?}"));
    // Re-render only blocks whose sides contain no marker-like line and end with a newline
    // (what a plain rendering can carry unambiguously).
    let parts = blocks_of(&plan);
    let plain = |s: &str| {
        (s.is_empty() || s.ends_with('\n'))
            && s.lines().all(|l| {
                let t = l.trim();
                !(t.starts_with("<<<<")
                    || t.starts_with("====")
                    || t.starts_with(">>>>")
                    || t.starts_with("```"))
            })
    };
    let simple_path = |p: &str| {
        !p.is_empty()
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || "._/-".contains(c))
    };
    if parts.is_empty()
        || !parts
            .iter()
            .all(|(p, s, r)| simple_path(p) && plain(s) && plain(r) && !s.is_empty())
    {
        return;
    }
    let rendered: String = parts
        .iter()
        .map(|(p, s, r)| format!("{p}\n```\n<<<<<<< SEARCH\n{s}=======\n{r}>>>>>>> REPLACE\n```\n"))
        .collect();
    let back = blocks::parse(&rendered).expect("a rendered reply parses");
    assert_eq!(blocks_of(&back), parts, "round trip of {rendered:?}");
}

/// Codex `*** Begin Patch` envelopes: never panic, parse deterministically.
pub fn codex(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(plan) = codex::parse(text) else {
        return;
    };
    let again = codex::parse(text).expect("parsing is deterministic");
    assert_eq!(format!("{plan:?}"), format!("{again:?}"));
}

/// Unified diffs (`git diff`, `diff -u`): never panic, parse deterministically.
pub fn unified_diff(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(plan) = unified_diff::parse(text) else {
        return;
    };
    let again = unified_diff::parse(text).expect("parsing is deterministic");
    assert_eq!(format!("{plan:?}"), format!("{again:?}"));
}

/// `source_edit_plan` documents: never panic; an accepted plan's find/replace edits, written
/// back as a plan, parse to the same operations.
pub fn plan_json(data: &[u8]) {
    let Ok(plan) = plan_json::parse(data) else {
        return;
    };
    let mut edits = Vec::new();
    for op in &plan.ops {
        let OpKind::Edit { edit, expected } = &op.kind else {
            return;
        };
        let mut item = json!({"path": op.path.raw, "find": edit.find, "replace": edit.replace});
        match edit.select {
            Occurrence::Unique => {}
            Occurrence::Nth(n) => item["occurrence"] = json!(n),
            Occurrence::All => item["all"] = json!(true),
        }
        if let Some(d) = expected {
            item["expected_source_sha256"] = json!(d.to_hex());
        }
        edits.push(item);
    }
    let doc = json!({"type": "source_edit_plan", "contract_version": "1.0", "edits": edits});
    let back = plan_json::parse(doc.to_string().as_bytes()).expect("a rendered plan parses");
    let ops = |p: &Plan| {
        format!(
            "{:?}",
            p.ops
                .iter()
                .map(|o| (&o.path.raw, format!("{:?}", o.kind)))
                .collect::<Vec<_>>()
        )
    };
    assert_eq!(ops(&back), ops(&plan));
}

/// Changesets and edit requests (`apply` of JSON other than a plan): never panic.
pub fn changeset(data: &[u8]) {
    match changeset::classify(data) {
        changeset::Kind::Changeset(mut doc) => {
            // The input as it is (its digest almost never matches), then with its digest made
            // right, so that the fuzzer reaches the compilation of the operations too.
            let _ = changeset::load(doc.clone(), data, false);
            doc.shift_remove("digest");
            let digest = changeset::canonical_digest(&serde_json::Value::Object(doc.clone()));
            doc.insert("digest".into(), digest.to_hex().into());
            let _ = changeset::load(doc, data, true);
        }
        changeset::Kind::Request => {
            let _ = request::parse(data);
        }
        _ => {}
    }
}

/// Config paths: never panic; the canonical rendering of an accepted path parses back to it.
pub fn config_path(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(path) = ConfigPath::parse(text) else {
        return;
    };
    let rendered = path.render();
    let back = ConfigPath::parse(&rendered).unwrap_or_else(|e| panic!("{rendered:?}: {e}"));
    assert_eq!(back, path, "{text:?} rendered as {rendered:?}");
}

/// `LINE:HASH` anchors: never panic; an accepted anchor displays as text that parses back.
pub fn line_anchor(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(anchor) = LineAnchor::parse(text) else {
        return;
    };
    let back = LineAnchor::parse(&anchor.display()).expect("a displayed anchor parses");
    assert_eq!(back, anchor);
}
