//! The document and table of `verify --range`, and its policy (`--require`).
//!
//! Exit 1 when a receipt claims a region of the range but does not verify; else 3 when a hunk
//! the policy requires is not covered; else 0 (hunks made by hand are reported either way).

use std::str::FromStr;

use serde_json::{Map, json};

use super::Report;
use crate::error::{EXIT_REFUSED, Error};
use crate::receipt::range::{FileProvenance, HunkProvenance, Provenance};

/// Exit code of hunks a policy requires that no verified receipt covers.
pub const EXIT_UNCOVERED: u8 = 3;

/// One `--require` policy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Require {
    /// Every hunk must be covered.
    All,
    /// Hunks of files matching this glob must be covered: git's wildmatch, `*` not crossing
    /// `/` and `**` crossing it; a glob without `/` is matched against the file's name.
    Files(String),
}

impl FromStr for Require {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        match s.split_once('=') {
            None if s == "all" => Ok(Self::All),
            Some(("files", glob)) if !glob.is_empty() => Ok(Self::Files(glob.to_owned())),
            _ => Err(Error::usage(format!(
                "`--require {s}`: the policy is `all` or `files=GLOB`"
            ))),
        }
    }
}

impl Require {
    fn applies_to(&self, path: &str) -> bool {
        use gix::bstr::ByteSlice;
        let glob = match self {
            Self::All => return true,
            Self::Files(glob) => glob,
        };
        let subject = match glob.contains('/') {
            true => path,
            false => path.rsplit('/').next().unwrap_or(path),
        };
        gix::glob::wildmatch(
            glob.as_bytes().as_bstr(),
            subject.as_bytes().as_bstr(),
            gix::glob::wildmatch::Mode::NO_MATCH_SLASH_LITERAL,
        )
    }

    fn text(&self) -> String {
        match self {
            Self::All => "all".to_owned(),
            Self::Files(glob) => format!("files={glob}"),
        }
    }
}

/// A hunk the policy requires that came by hand.
struct Violation<'p> {
    commit: &'p str,
    file: &'p FileProvenance,
    hunk: &'p HunkProvenance,
}

fn violations<'p>(prov: &'p Provenance, require: &[Require]) -> Vec<Violation<'p>> {
    let mut out = Vec::new();
    for commit in &prov.commits {
        for file in &commit.files {
            if !require.iter().any(|r| r.applies_to(&file.path)) {
                continue;
            }
            for hunk in file.hunks.iter().filter(|h| h.covered_by.is_none()) {
                out.push(Violation {
                    commit: &commit.commit,
                    file,
                    hunk,
                });
            }
        }
    }
    out
}

/// The report of `verify --range`.
pub fn report(prov: &Provenance, require: &[Require]) -> Report {
    let violations = violations(prov, require);
    let (status, exit) = if !prov.failed_receipts.is_empty() {
        ("failed", Some(EXIT_REFUSED))
    } else if !violations.is_empty() {
        ("uncovered", Some(EXIT_UNCOVERED))
    } else {
        ("passed", None)
    };
    let files = prov.commits.iter().flat_map(|c| &c.files);
    let hunks: usize = files.clone().map(|f| f.hunks.len()).sum();
    let covered: usize = files.map(|f| f.covered).sum();
    let mut json = Map::new();
    json.insert("status".into(), json!(status));
    json.insert("range".into(), json!(prov.range));
    json.insert("base".into(), json!(prov.base));
    json.insert("head".into(), json!(prov.head));
    json.insert(
        "require".into(),
        json!(require.iter().map(Require::text).collect::<Vec<_>>()),
    );
    json.insert(
        "summary".into(),
        json!({"commits": prov.commits.len(), "hunks": hunks, "covered": covered,
               "by_hand": hunks - covered, "required_by_hand": violations.len()}),
    );
    json.insert("commits".into(), json!(prov.commits));
    json.insert("failed_receipts".into(), json!(prov.failed_receipts));
    let uncovered: Vec<_> = violations
        .iter()
        .map(|v| json!({"commit": v.commit, "path": v.file.path, "old": v.hunk.old, "new": v.hunk.new}))
        .collect();
    json.insert("required_uncovered".into(), json!(uncovered));
    let text = table(prov, status, (hunks, covered), &violations);
    Report::new(json, text).exit(exit)
}

fn table(
    prov: &Provenance,
    status: &str,
    (hunks, covered): (usize, usize),
    violations: &[Violation<'_>],
) -> String {
    let mut text = format!(
        "{status} {}: {} commit(s), {hunks} hunk(s), {covered} covered, {} by hand\n",
        prov.range,
        prov.commits.len(),
        hunks - covered
    );
    let width = prov
        .commits
        .iter()
        .flat_map(|c| &c.files)
        .map(|f| f.path.len())
        .max()
        .unwrap_or(4)
        .max(4);
    text.push_str(&format!(
        "  commit        {:<width$}  covered  by hand\n",
        "file"
    ));
    for commit in &prov.commits {
        for file in &commit.files {
            text.push_str(&format!(
                "  {}  {:<width$}  {:<7}  {}\n",
                short(&commit.commit),
                file.path,
                file.covered,
                file.by_hand
            ));
        }
    }
    for v in violations {
        text.push_str(&format!(
            "required but by hand: {} {} -{},{} +{},{}\n",
            short(v.commit),
            v.file.path,
            v.hunk.old.start,
            v.hunk.old.count,
            v.hunk.new.start,
            v.hunk.new.count
        ));
    }
    for f in &prov.failed_receipts {
        text.push_str(&format!(
            "receipt does not verify: {} ({}) on {}: {}\n",
            f.label,
            short(&f.receipt),
            f.path,
            f.problems.join("; ")
        ));
    }
    text
}

fn short(id: &str) -> &str {
    id.get(..12).unwrap_or(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_parse_and_match_paths_as_git_globs() {
        let files = |g: &str| Require::from_str(&format!("files={g}")).expect("policy");
        assert_eq!(Require::from_str("all").ok(), Some(Require::All));
        assert!(Require::from_str("files=").is_err());
        assert!(Require::from_str("most").is_err());
        assert!(files("*.rs").applies_to("src/deep/main.rs"));
        assert!(files("src/*.rs").applies_to("src/main.rs"));
        assert!(!files("src/*.rs").applies_to("src/deep/main.rs"));
        assert!(files("src/**").applies_to("src/deep/main.rs"));
        assert!(!files("src/**").applies_to("docs/a.md"));
        assert!(Require::All.applies_to("anything"));
    }
}
