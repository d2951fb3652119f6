//! What every fixture folder with `input/`, `cmd.json`, `outcome.json` and `expected/` shares:
//! the repository made from `input/`, the command run in it (`{"args": [...], "stdin"?: FILE,
//! "config"?: [[key, value]]}`), its exit status and error `code` checked against
//! `outcome.json`, and the tree `expected/` says it leaves.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::common::{Repo, code, git};

/// Every file under `root`, by path relative to it.
pub fn files(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read_dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path
                    .strip_prefix(root)
                    .expect("prefix")
                    .to_string_lossy()
                    .into_owned();
                out.insert(rel, std::fs::read(&path).expect("read"));
            }
        }
    }
    out
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).expect("read")).expect("json")
}

/// A fixture folder, set up: the repository made from its `input/` (and its `config`), its
/// command and its expected outcome.
pub struct Folder {
    pub repo: Repo,
    pub input: BTreeMap<String, Vec<u8>>,
    pub cmd: Value,
    pub outcome: Value,
}

impl Folder {
    pub fn new(dir: &Path) -> Folder {
        let repo = Repo::new();
        let input = files(&dir.join("input"));
        for (rel, bytes) in &input {
            repo.write(rel, bytes);
        }
        repo.commit();
        let cmd = read_json(&dir.join("cmd.json"));
        for pair in cmd["config"].as_array().into_iter().flatten() {
            let (key, value) = (
                pair[0].as_str().expect("key"),
                pair[1].as_str().expect("value"),
            );
            git(repo.path(), &["config", key, value]);
        }
        let outcome = read_json(&dir.join("outcome.json"));
        Folder {
            repo,
            input,
            cmd,
            outcome,
        }
    }

    /// The command's arguments; `{root}` in one is the repository's absolute path.
    pub fn args(&self) -> Vec<String> {
        let root = self.repo.path().to_string_lossy().into_owned();
        let args = self.cmd["args"].as_array().expect("args");
        args.iter()
            .filter_map(Value::as_str)
            .map(|a| a.replace("{root}", &root))
            .collect()
    }

    /// What the command reads on standard input: the folder's file `stdin` names, or nothing.
    pub fn stdin(&self, dir: &Path) -> String {
        self.cmd["stdin"]
            .as_str()
            .map(|f| std::fs::read_to_string(dir.join(f)).expect("stdin file"))
            .unwrap_or_default()
    }

    /// Runs the command from the root and checks its exit status and error `code`; its JSON.
    pub fn run_checked(&self, dir: &Path) -> Value {
        let name = dir.display();
        let args = self.args();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (rc, doc) = self.repo.json_stdin(&args, &self.stdin(dir));
        let want = self.outcome["exit"].as_i64().unwrap_or(0);
        assert_eq!(i64::from(rc), want, "{name}: {doc}");
        if let Some(expected) = self.outcome["code"].as_str() {
            assert_eq!(code(&doc), expected, "{name}: {doc}");
        }
        doc
    }

    /// The tree `expected/` holds, or the input when the folder has none.
    pub fn expected(&self, dir: &Path) -> BTreeMap<String, Vec<u8>> {
        let expected_dir = dir.join("expected");
        match expected_dir.exists() {
            true => files(&expected_dir),
            false => self.input.clone(),
        }
    }

    /// The files of the work tree after the command (directories left out).
    pub fn after(&self) -> BTreeMap<String, Vec<u8>> {
        self.repo
            .tree()
            .into_iter()
            .filter(|(k, _)| !k.ends_with('/'))
            .collect()
    }
}
