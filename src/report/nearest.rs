//! The nearest place of a refusal, for text errors: the closest windows of a missing text
//! (with line numbers), the candidates of an ambiguous target, the structures a file really
//! has, and every failing block of a multi-block input. Read from the error's details, which
//! JSON carries as they are.

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// A window of the file that resembles a missing text.
#[derive(Deserialize)]
struct Window {
    line: usize,
    similarity: f64,
    text: String,
}

#[derive(Deserialize)]
struct Candidate {
    identity: String,
    kind: String,
    qualified_name: String,
    line: usize,
}

/// A line anchor as it is now (`precondition_failed`).
#[derive(Deserialize)]
struct Anchor {
    line: usize,
    hash: String,
}

#[derive(Deserialize)]
struct Remap {
    to: usize,
}

#[derive(Deserialize)]
struct Failure {
    message: String,
    #[serde(default)]
    closest: Vec<Window>,
}

fn field<T: DeserializeOwned>(details: &Map<String, Value>, key: &str) -> Option<T> {
    details
        .get(key)
        .and_then(|v| serde_json::from_value(v.clone()).ok())
}

/// Windows shown per refusal, and lines shown per window.
const WINDOWS: usize = 2;
const LINES: usize = 6;

fn windows(out: &mut String, path: Option<&str>, closest: &[Window], indent: &str) {
    for w in closest.iter().take(WINDOWS) {
        out.push_str(&format!(
            "{indent}closest{} at line {} (similarity {:.2}):\n",
            path.map(|p| format!(" in {p}")).unwrap_or_default(),
            w.line,
            w.similarity
        ));
        for (i, text) in w.text.lines().take(LINES).enumerate() {
            out.push_str(&format!("{indent}  {:>5} | {text}\n", w.line + i));
        }
    }
}

/// Lines to print between the cause and the hint (empty when the details say nothing more).
pub fn lines(details: &Map<String, Value>) -> String {
    let mut out = String::new();
    let path: Option<String> = field(details, "path");
    let failures: Vec<Failure> = field(details, "failures").unwrap_or_default();
    if failures.len() > 1 {
        for f in &failures {
            out.push_str(&format!("  - {}\n", f.message));
            windows(&mut out, None, &f.closest[..f.closest.len().min(1)], "    ");
        }
        return out;
    }
    let closest: Vec<Window> = field(details, "closest").unwrap_or_default();
    windows(&mut out, path.as_deref(), &closest, "  ");
    let candidates: Vec<Candidate> = field(details, "candidates").unwrap_or_default();
    if !candidates.is_empty() {
        out.push_str("  candidates (use one identity with `--at`):\n");
        for c in &candidates {
            out.push_str(&format!(
                "    {}  {} {}  line {}\n",
                c.identity, c.kind, c.qualified_name, c.line
            ));
        }
    }
    if let Some(now) = field::<Anchor>(details, "actual") {
        out.push_str(&format!(
            "  line {} is now {}:{}\n",
            now.line, now.line, now.hash
        ));
    }
    let remaps: Vec<Remap> = field(details, "remaps").unwrap_or_default();
    for r in &remaps {
        out.push_str(&format!("  the anchored line moved to line {}\n", r.to));
    }
    let structures: Vec<String> = field(details, "structures").unwrap_or_default();
    if !structures.is_empty() {
        let shown: Vec<&str> = structures.iter().take(20).map(String::as_str).collect();
        out.push_str(&format!(
            "  structures{}: {}\n",
            path.map(|p| format!(" in {p}")).unwrap_or_default(),
            shown.join(", ")
        ));
    }
    out
}
