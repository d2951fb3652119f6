//! The README runs as written: every fenced `sh` block, in order, as one bash script started
//! at the root of a scratch copy of the repository's `examples/`, with this build's
//! `git-identedit` on `PATH` (so `git identedit` finds it) and a hermetic git configuration.
//! Blocks fenced `shell` (building, installing, benchmarks) are shown but not run: this test is
//! itself that build.

use std::path::Path;
use std::process::Command;

use crate::common::BIN;

/// The `sh` blocks of a markdown text, in order.
fn sh_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match current.as_mut() {
            None if line.trim_end() == "```sh" => current = Some(String::new()),
            None => {}
            Some(_) if line.starts_with("```") => blocks.extend(current.take()),
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
        }
    }
    blocks
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir").flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

#[test]
fn the_readme_blocks_run_as_written() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let blocks = sh_blocks(&readme);
    assert!(blocks.len() >= 4, "the README lost its command blocks");
    assert!(
        blocks[0].contains("examples/tour"),
        "the tour starts from examples/tour"
    );
    let scratch = tempfile::tempdir().expect("temp");
    copy_dir(&root.join("examples"), &scratch.path().join("examples"));
    let mut script = String::from("set -euo pipefail\n");
    for (i, block) in blocks.iter().enumerate() {
        script.push_str(&format!(
            "echo '### README sh block {}' >&2\n{block}",
            i + 1
        ));
    }
    let bin_dir = Path::new(BIN).parent().expect("bin dir");
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let home = scratch.path().join("home");
    std::fs::create_dir_all(&home).expect("home");
    let out = Command::new("bash")
        .args(["-c", &script])
        .current_dir(scratch.path())
        .env("PATH", path)
        .env("HOME", &home)
        .env("XDG_STATE_HOME", home.join("state"))
        .env("TMPDIR", scratch.path())
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "tour")
        .env("GIT_AUTHOR_EMAIL", "tour@example.invalid")
        .env("GIT_COMMITTER_NAME", "tour")
        .env("GIT_COMMITTER_EMAIL", "tour@example.invalid")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("IDENTEDIT_FAILPOINT")
        .output()
        .expect("bash");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let failed_in = stderr
        .lines()
        .rev()
        .find(|l| l.starts_with("### README sh block"))
        .unwrap_or("before the first block");
    assert!(
        out.status.success(),
        "a README command failed ({failed_in}, exit {:?}):\n{stderr}\nstdout:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout)
    );
    // The tour really ran: the plan's receipt verified, and the hooks were installed.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(r#""command":"verify","ok":true,"status":"passed""#),
        "{stdout}"
    );
    assert!(
        stdout.contains("return $a - $b;"),
        "git show of the pre-image: {stdout}"
    );
    assert_eq!(stderr.matches("### README sh block").count(), blocks.len());
}
