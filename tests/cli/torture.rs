//! Crash torture: `kill -9` at random moments (not only at failpoints) during a Codex patch of
//! a few hundred files with updates, creations, deletions and moves; after the next command,
//! every file is wholly before or wholly after and all files agree (the whole tree is one or
//! the other). Also in a linked worktree on another filesystem (a tmpfs; root only).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common::{BIN, command, git};

const FILES: usize = 300;

fn content(i: usize) -> String {
    format!("head {i}\nline {i}\ntail {i}\n")
}

fn path(i: usize) -> String {
    format!("d{}/f{i}.txt", i % 7)
}

/// 120 updates, 60 moves (with an edit), 60 deletions, 60 creations in new folders.
fn patch() -> String {
    let mut p = String::from("*** Begin Patch\n");
    for i in 0..120 {
        p.push_str(&format!(
            "*** Update File: {}\n@@\n-line {i}\n+LINE {i}\n",
            path(i)
        ));
    }
    for i in 120..180 {
        p.push_str(&format!(
            "*** Update File: {}\n*** Move to: moved/m{i}.txt\n@@\n-line {i}\n+moved {i}\n",
            path(i)
        ));
    }
    for i in 180..240 {
        p.push_str(&format!("*** Delete File: {}\n", path(i)));
    }
    for i in 0..60 {
        p.push_str(&format!("*** Add File: new{}/n{i}.txt\n+new {i}\n", i % 5));
    }
    p.push_str("*** End Patch\n");
    p
}

fn populate(root: &Path) {
    for i in 0..FILES {
        let file = root.join(path(i));
        std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
        std::fs::write(file, content(i)).expect("write");
    }
}

fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).expect("read_dir").flatten() {
            let p = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if dir == root && name == ".git" {
                continue;
            }
            let rel = p
                .strip_prefix(root)
                .expect("rel")
                .to_string_lossy()
                .into_owned();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.insert(rel, std::fs::read(&p).unwrap_or_default());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

fn apply(dir: &Path) -> std::process::Child {
    use std::io::Write;
    let mut child = command(BIN)
        .current_dir(dir)
        .args(["apply", "-", "--format", "json"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(patch().as_bytes());
    }
    child
}

/// A small deterministic generator (the seed is printed, so a failure can be replayed).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, bound: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % bound.max(1)
    }
}

/// Kills `rounds` runs at random moments in `make()`'s work trees and checks each one.
type Make<'a> = &'a dyn Fn() -> (Box<dyn std::any::Any>, PathBuf, PathBuf);

/// Waits (at most `limit`) until a journal exists in `journal`: the transaction is publishing.
fn wait_for_journal(journal: &Path, limit: Duration) {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        let found = std::fs::read_dir(journal).is_ok_and(|d| {
            d.flatten()
                .any(|e| e.file_name().to_string_lossy().ends_with(".journal"))
        });
        if found {
            return;
        }
        std::thread::sleep(Duration::from_micros(100));
    }
}

/// Kills `rounds` runs at random moments (every other one shortly after its journal appears,
/// inside the publish) in `make()`'s work trees and checks each one.
fn torture(make: Make<'_>, rounds: usize) {
    let (keep, dir, _) = make();
    let before = tree(&dir);
    let started = Instant::now();
    let out = apply(&dir).wait_with_output().expect("apply");
    assert!(out.status.success(), "the patch applies");
    let took = started.elapsed();
    let after = tree(&dir);
    assert_ne!(before, after);
    drop(keep);
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64);
    eprintln!("torture seed {seed}, one run takes {took:?}");
    let mut rng = Lcg(seed);
    let span = (took.as_micros() as u64).max(1000) * 12 / 10;
    let mut seen = BTreeMap::new();
    for round in 0..rounds {
        let (keep, dir, journal) = make();
        let mut child = apply(&dir);
        if round % 2 == 1 {
            wait_for_journal(&journal, took * 2);
            std::thread::sleep(Duration::from_micros(rng.next(40_000)));
        } else {
            std::thread::sleep(Duration::from_micros(rng.next(span)));
        }
        let _ = child.kill();
        let _ = child.wait();
        let out = command(BIN)
            .current_dir(&dir)
            .args(["recover", "--format", "json"])
            .output()
            .expect("recover");
        assert!(
            out.status.success(),
            "round {round} (seed {seed}): recover: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        let now = tree(&dir);
        let state = if now == before {
            "before"
        } else if now == after {
            "after"
        } else {
            let mixed: Vec<_> = now
                .keys()
                .filter(|k| before.get(*k) != now.get(*k) && after.get(*k) != now.get(*k))
                .take(5)
                .collect();
            panic!(
                "round {round} (seed {seed}): the tree is neither before nor after; e.g. {mixed:?}, {} files",
                now.len()
            );
        };
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        let settled = doc["settled"][0]["direction"]
            .as_str()
            .unwrap_or("nothing")
            .to_owned();
        *seen
            .entry(format!("{state} (recovery: {settled})"))
            .or_insert(0) += 1;
        let left: Vec<_> = std::fs::read_dir(&journal)
            .map(|d| d.flatten().map(|e| e.file_name()).collect())
            .unwrap_or_default();
        assert!(
            left.is_empty(),
            "round {round} (seed {seed}): journal left {left:?}: {doc}"
        );
        drop(keep);
    }
    eprintln!("torture outcomes: {seen:?}");
}

fn repo_in(dir: &Path) {
    git(dir, &["init", "-q", "-b", "main"]);
    populate(dir);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "base"]);
}

#[test]
fn kill_at_random_moments_leaves_the_whole_tree_before_or_after() {
    torture(
        &|| {
            let dir = tempfile::tempdir().expect("dir");
            repo_in(dir.path());
            let path = dir.path().to_path_buf();
            let journal = path.join(".git/identedit/journal");
            (Box::new(dir), path, journal)
        },
        10,
    );
}

#[test]
fn kill_at_random_moments_in_a_worktree_on_another_filesystem() {
    let Some(probe) = crate::reliability::Tmpfs::mount() else {
        return;
    };
    drop(probe);
    torture(
        &|| {
            let main = tempfile::tempdir().expect("dir");
            repo_in(main.path());
            let mount = crate::reliability::Tmpfs::mount().expect("tmpfs");
            let wt = mount.dir.path().join("wt");
            git(
                main.path(),
                &["worktree", "add", "-q", "-b", "side", &wt.to_string_lossy()],
            );
            let journal = main.path().join(".git/worktrees/wt/identedit/journal");
            (Box::new((mount, main)), wt, journal)
        },
        6,
    );
}
