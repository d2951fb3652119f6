//! Test harness: a temp git repository and the real binary run inside it, hermetically: every
//! process a test starts ([`command`]) runs with `HOME` and `XDG_CONFIG_HOME` in a temp dir, no
//! global or system git config, every `GIT_*` and `IDENTEDIT_*` variable of the developer's
//! environment cleared, and a fixed author, committer and date.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

pub const BIN: &str = env!("CARGO_BIN_EXE_git-identedit");

pub struct Repo {
    pub dir: tempfile::TempDir,
}

/// A home directory shared by every process of the test run, empty of any configuration.
fn home() -> &'static Path {
    static HOME: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    HOME.get_or_init(|| tempfile::tempdir().expect("temp home"))
        .path()
}

/// The fixed identity and date of every commit the tests make.
pub const DATE: &str = "1700000000 +0000";

/// `program` with a hermetic environment (see the module documentation). Tests set the
/// variables they need on top of it.
pub fn command(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut cmd = Command::new(program);
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy();
        if key.starts_with("GIT_") || key.starts_with("IDENTEDIT_") {
            cmd.env_remove(&*key);
        }
    }
    let home = home();
    cmd.env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_AUTHOR_DATE", DATE)
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_DATE", DATE);
    cmd
}

/// Runs `git` hermetically in `dir`.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = command("git")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

impl Repo {
    /// An empty git repository.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        git(dir.path(), &["init", "-q", "-b", "main"]);
        Self { dir }
    }

    /// A plain directory (no git).
    pub fn plain() -> Self {
        Self {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) -> &Self {
        let path = self.path().join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(path, bytes).expect("write");
        self
    }

    pub fn read(&self, rel: &str) -> Vec<u8> {
        std::fs::read(self.path().join(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
    }

    pub fn text(&self, rel: &str) -> String {
        String::from_utf8(self.read(rel)).expect("utf8")
    }

    pub fn exists(&self, rel: &str) -> bool {
        std::fs::symlink_metadata(self.path().join(rel)).is_ok()
    }

    pub fn commit(&self) -> &Self {
        git(self.path(), &["add", "-A"]);
        git(self.path(), &["commit", "-q", "-m", "base"]);
        self
    }

    /// Every file of the work tree (outside .git and the tool's state) with its bytes.
    pub fn tree(&self) -> BTreeMap<String, Vec<u8>> {
        let mut out = BTreeMap::new();
        walk(self.path(), self.path(), &mut out);
        out
    }

    pub fn cmd(&self) -> Command {
        let mut cmd = command(BIN);
        cmd.current_dir(self.path())
            // Outside a repository the state goes to the per-user state directory: keep it in
            // the temp dir (`.identedit/`, which `tree` skips), not in the real home.
            .env("XDG_STATE_HOME", self.path().join(".identedit"));
        cmd
    }

    /// Runs the binary with JSON output and returns the exit code and the document.
    pub fn json(&self, args: &[&str]) -> (i32, Value) {
        self.json_stdin(args, "")
    }

    pub fn json_stdin(&self, args: &[&str], stdin: &str) -> (i32, Value) {
        let out = self.run_stdin(&[args, &["--format", "json"]].concat(), stdin);
        (out.status.code().unwrap_or(-1), parse_one_document(&out))
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.run_stdin(args, "")
    }

    pub fn run_stdin(&self, args: &[&str], stdin: &str) -> Output {
        run_with_stdin(self.cmd().args(args), stdin)
    }

    /// Leftover temp files of the tool anywhere in the tree.
    pub fn temp_files(&self) -> Vec<String> {
        self.tree()
            .into_keys()
            .filter(|k| k.contains(".identedit-"))
            .collect()
    }

    pub fn journal_entries(&self) -> Vec<PathBuf> {
        let dir = self.path().join(".git/identedit/journal");
        std::fs::read_dir(dir)
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default()
    }
}

pub fn run_with_stdin(cmd: &mut Command, stdin: &str) -> Output {
    use std::io::Write;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    if let Some(mut pipe) = child.stdin.take() {
        let _ = pipe.write_all(stdin.as_bytes());
    }
    child.wait_with_output().expect("wait")
}

/// Exactly one JSON document on stdout and nothing on stderr.
pub fn parse_one_document(out: &Output) -> Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.stderr.is_empty(),
        "stderr must be empty in JSON mode: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut docs = serde_json::Deserializer::from_str(&stdout).into_iter::<Value>();
    let doc = docs
        .next()
        .unwrap_or_else(|| panic!("no JSON on stdout: {stdout:?}"))
        .expect("valid JSON");
    assert!(
        docs.next().is_none(),
        "more than one JSON document: {stdout}"
    );
    doc
}

fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
    for entry in std::fs::read_dir(dir).expect("read_dir").flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if dir == root && (name == ".git" || name == ".identedit") {
            continue;
        }
        let meta = std::fs::symlink_metadata(&path).expect("meta");
        let rel = path
            .strip_prefix(root)
            .expect("prefix")
            .to_string_lossy()
            .into_owned();
        if meta.is_dir() {
            out.insert(format!("{rel}/"), Vec::new());
            walk(root, &path, out);
        } else {
            out.insert(rel, std::fs::read(&path).unwrap_or_default());
        }
    }
}

/// `{"type":"source_edit_plan","contract_version":"1.0", ...body}` as a string.
pub fn plan(body: Value) -> String {
    let mut doc = serde_json::json!({"type": "source_edit_plan", "contract_version": "1.0"});
    if let (Some(d), Some(b)) = (doc.as_object_mut(), body.as_object()) {
        d.extend(b.clone());
    }
    doc.to_string()
}

pub fn code(doc: &Value) -> &str {
    doc["error"]["code"].as_str().unwrap_or("<none>")
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `[symbol, change, acknowledged]` of every API change a document reports.
pub fn api_changes(doc: &Value) -> Value {
    let list = match doc["ok"].as_bool() {
        Some(false) => &doc["error"]["details"]["api_changes"],
        _ => &doc["api_changes"],
    };
    let rows: Vec<Value> = list
        .as_array()
        .map(|l| {
            l.iter()
                .map(|c| json!([c["symbol"], c["change"], c["acknowledged"]]))
                .collect()
        })
        .unwrap_or_default();
    Value::Array(rows)
}
