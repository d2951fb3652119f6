//! Check-then-use on paths: a symlink swapped in (for the file or for a parent folder) while
//! a file is being read is refused, never followed. Each test races a swapping thread against
//! hundreds of runs; the binary before the fix leaked outside bytes in some of them.

use crate::common::Repo;

#[test]
fn a_symlink_swapped_in_while_a_file_is_read_is_never_followed() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let repo = Repo::new();
    repo.write("f.txt", "inside\n").commit();
    let outside = tempfile::tempdir().expect("outside");
    let secret = outside.path().join("secret.txt");
    std::fs::write(&secret, "inside SECRET\n").expect("secret");
    let root = repo.path().to_path_buf();
    std::os::unix::fs::symlink(&secret, root.join(".link")).expect("link");
    std::fs::write(root.join(".plain"), "inside\n").expect("plain");
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let swapper = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            // Alternates f.txt between the regular file and a symlink to the outside file.
            while !stop.load(Ordering::Relaxed) {
                let _ = std::os::unix::fs::symlink(&secret, root.join(".link"));
                let _ = std::fs::rename(root.join(".link"), root.join("f.txt"));
                let _ = std::fs::write(root.join(".plain"), "inside\n");
                let _ = std::fs::rename(root.join(".plain"), root.join("f.txt"));
            }
        })
    };
    let mut leaked = Vec::new();
    for _ in 0..400 {
        let out = repo
            .cmd()
            .args([
                "edit",
                "f.txt",
                "--find",
                "inside",
                "--replace",
                "X",
                "--dry-run",
                "--diff",
            ])
            .output()
            .expect("edit");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        if text.contains("SECRET") {
            leaked.push(text);
        }
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().expect("swapper");
    assert!(
        leaked.is_empty(),
        "outside bytes were read through a swapped-in symlink: {leaked:?}"
    );
}

#[test]
fn a_parent_folder_swapped_for_a_symlink_while_a_file_is_read_is_never_followed() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let repo = Repo::new();
    repo.write("d/f.txt", "inside\n").commit();
    let outside = tempfile::tempdir().expect("outside");
    std::fs::write(outside.path().join("f.txt"), "inside SECRET\n").expect("secret");
    let root = repo.path().to_path_buf();
    let target = outside.path().to_path_buf();
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let swapper = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            // Moves the real d/ aside, puts a symlink to the outside folder in its place, then
            // the real folder back.
            while !stop.load(Ordering::Relaxed) {
                let _ = std::fs::rename(root.join("d"), root.join(".real"));
                let _ = std::os::unix::fs::symlink(&target, root.join("d"));
                let _ = std::fs::remove_file(root.join("d"));
                let _ = std::fs::rename(root.join(".real"), root.join("d"));
            }
        })
    };
    let mut leaked = Vec::new();
    for _ in 0..300 {
        let out = repo
            .cmd()
            .args(["edit", "d/f.txt", "--find", "inside", "--replace", "X"])
            .args(["--dry-run", "--diff"])
            .output()
            .expect("edit");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        if text.contains("SECRET") {
            leaked.push(text);
        }
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().expect("swapper");
    assert!(
        leaked.is_empty(),
        "outside bytes were read through a swapped-in folder: {leaked:?}"
    );
}
