//! Install and uninstall on a temp directory: moved binaries, conflicts, symlinks, partial
//! failures, quoting.

use super::*;

fn location(dir: &Path) -> Location {
    Location {
        hooks_dir: dir.join("hooks"),
        manifest: dir.join("identedit/hooks.json"),
    }
}

fn names(actions: &[Action]) -> Vec<&'static str> {
    actions.iter().map(|a| a.action).collect()
}

#[test]
fn a_moved_binary_rewrites_only_our_scripts() {
    let tmp = tempfile::tempdir().expect("tmp");
    let loc = location(tmp.path());
    let first = install(&loc, Path::new("/old/git-identedit")).expect("install");
    assert_eq!(names(&first), ["installed", "installed"]);
    let again = install(&loc, Path::new("/new/git-identedit")).expect("install");
    assert_eq!(names(&again), ["updated", "updated"]);
    let text = fs::read_to_string(loc.hooks_dir.join("pre-commit")).expect("hook");
    assert!(text.contains("identedit='/new/git-identedit'"), "{text}");
    assert_eq!(
        names(&uninstall(&loc).expect("uninstall")),
        ["removed", "removed"]
    );
    assert!(
        !loc.hooks_dir.exists(),
        "install created the directory, uninstall removes it"
    );
}

#[test]
fn a_taken_chained_slot_is_a_conflict_that_changes_nothing() {
    let tmp = tempfile::tempdir().expect("tmp");
    let loc = location(tmp.path());
    fs::create_dir_all(&loc.hooks_dir).expect("mkdir");
    fs::write(loc.hooks_dir.join("post-commit"), "#!/bin/sh\nmine\n").expect("write");
    fs::write(
        loc.hooks_dir.join("post-commit.identedit-chained"),
        "other\n",
    )
    .expect("write");
    let err = install(&loc, Path::new("/bin/x")).expect_err("conflict");
    assert_eq!(err.code, Code::HookConflict);
    assert!(!loc.hooks_dir.join("pre-commit").exists());
    assert!(!loc.manifest.exists());
    let post = fs::read(loc.hooks_dir.join("post-commit")).expect("hook");
    assert_eq!(post, b"#!/bin/sh\nmine\n");
}

#[test]
fn a_dangling_symlink_hook_is_chained_not_replaced() {
    let tmp = tempfile::tempdir().expect("tmp");
    let loc = location(tmp.path());
    fs::create_dir_all(&loc.hooks_dir).expect("mkdir");
    std::os::unix::fs::symlink("../nowhere", loc.hooks_dir.join("pre-commit")).expect("link");
    let actions = install(&loc, Path::new("/bin/x")).expect("install");
    assert_eq!(names(&actions), ["chained", "installed"]);
    let chained = loc.hooks_dir.join("pre-commit.identedit-chained");
    assert_eq!(
        fs::read_link(&chained).expect("link"),
        Path::new("../nowhere")
    );
    uninstall(&loc).expect("uninstall");
    let restored = loc.hooks_dir.join("pre-commit");
    assert_eq!(
        fs::read_link(restored).expect("link"),
        Path::new("../nowhere")
    );
}

#[test]
fn a_second_hooks_directory_is_refused_until_uninstall() {
    let tmp = tempfile::tempdir().expect("tmp");
    let loc = location(tmp.path());
    install(&loc, Path::new("/bin/x")).expect("install");
    let moved = Location {
        hooks_dir: tmp.path().join("other"),
        manifest: loc.manifest.clone(),
    };
    let err = install(&moved, Path::new("/bin/x")).expect_err("conflict");
    assert_eq!(err.code, Code::HookConflict);
    assert!(!moved.hooks_dir.exists());
    uninstall(&moved).expect("uninstall follows the manifest");
    assert!(!loc.hooks_dir.exists());
    install(&moved, Path::new("/bin/x")).expect("install");
    assert!(moved.hooks_dir.join("pre-commit").exists());
}

#[test]
fn a_failed_write_keeps_the_foreign_hook_and_records_what_was_done() {
    let tmp = tempfile::tempdir().expect("tmp");
    let loc = location(tmp.path());
    fs::create_dir_all(loc.hooks_dir.join("post-commit.identedit-tmp/x")).expect("mkdir");
    fs::write(loc.hooks_dir.join("post-commit"), "theirs\n").expect("write");
    install(&loc, Path::new("/bin/x")).expect_err("the temp path is a directory");
    let post = fs::read(loc.hooks_dir.join("post-commit")).expect("hook");
    assert_eq!(post, b"theirs\n");
    assert!(!loc.hooks_dir.join("post-commit.identedit-chained").exists());
    let manifest = read_manifest(&loc.manifest).expect("read").expect("saved");
    let recorded: Vec<&str> = manifest.hooks.iter().map(|h| h.name.as_str()).collect();
    assert_eq!(recorded, ["pre-commit"]);
    assert_eq!(names(&uninstall(&loc).expect("uninstall")), ["removed"]);
    assert!(!loc.hooks_dir.join("pre-commit").exists());
    assert_eq!(
        fs::read(loc.hooks_dir.join("post-commit")).expect("hook"),
        b"theirs\n"
    );
}

#[test]
fn the_script_quotes_the_binary_path() {
    let text = script("pre-commit", Path::new("/a b/it's/git-identedit"));
    assert!(
        text.contains("identedit='/a b/it'\\''s/git-identedit'\n"),
        "{text}"
    );
    assert!(text.ends_with("exec \"$identedit\" hook pre-commit \"$@\"\n"));
}
