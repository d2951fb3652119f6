//! `git::entries` reads the entries of a few paths straight from the index file. Checked
//! against gix's full decode of the same index, written by git in versions 2, 3 and 4, with
//! what an index holds besides plain files: paths of 4,095 bytes and longer, conflicts
//! (stages 1–3), an intent-to-add entry, a symbolic link, and an index split in two.

use std::collections::BTreeMap;

use git_identedit::git::entries::{self, Entry};

use crate::common::{Repo, git};

/// A repository whose index holds every kind of entry this reader meets, but paths of 4,095
/// bytes or more (gix cannot decode those: see the last test).
fn varied_repo() -> Repo {
    let repo = Repo::new();
    for i in 0..300 {
        let dir = ["a", "a/b", "b-c", "z", "a.b"][i % 5];
        repo.write(&format!("{dir}/f{i:03}.txt"), format!("file {i}\n"));
    }
    repo.write("top.txt", "top\n").commit();
    repo.write("new.txt", "added later\n");
    git(repo.path(), &["add", "-N", "new.txt"]);
    let blob = top_blob(&repo);
    let long = format!("{}/deep.txt", "d".repeat(4085));
    let info = format!(
        "100644 {blob} 0\t{long}\n100644 {blob} 1\tc.txt\n100644 {blob} 2\tc.txt\n\
         100644 {blob} 3\tc.txt\n120000 {blob} 0\tlink\n"
    );
    index_info(&repo, &info);
    repo
}

fn top_blob(repo: &Repo) -> String {
    git(repo.path(), &["hash-object", "-w", "top.txt"])
        .trim()
        .to_owned()
}

fn index_info(repo: &Repo, info: &str) {
    let out = crate::common::run_with_stdin(
        crate::common::command("git")
            .args(["update-index", "--add", "--index-info"])
            .current_dir(repo.path()),
        info,
    );
    assert!(out.status.success(), "{out:?}");
}

/// Every path of the index with gix's view of it: the stage-0 entries a reader may use.
fn by_gix(repo: &Repo) -> (Vec<String>, BTreeMap<String, Entry>) {
    let gix_repo = gix::open(repo.path()).expect("open");
    let index = gix_repo.open_index().expect("index");
    let mut paths = Vec::new();
    let mut usable = BTreeMap::new();
    for entry in index.entries() {
        let path = entry.path(&index).to_string();
        paths.push(path.clone());
        let added = entry
            .flags
            .contains(gix::index::entry::Flags::INTENT_TO_ADD);
        if entry.stage_raw() == 0 && !added {
            let found = Entry {
                id: entry.id,
                stat: entry.stat,
            };
            usable.insert(path, found);
        }
    }
    (paths, usable)
}

fn by_reader(repo: &Repo, wanted: &[&str]) -> BTreeMap<String, Entry> {
    let index = repo.path().join(".git/index");
    let (found, _) = entries::find(&index, gix::hash::Kind::Sha1, wanted).expect("read");
    found.into_iter().collect()
}

fn agrees_at(repo: &Repo, version: &str) {
    git(repo.path(), &["update-index", "--index-version", version]);
    let (paths, usable) = by_gix(repo);
    let all: Vec<&str> = paths.iter().map(String::as_str).collect();
    assert_eq!(
        by_reader(repo, &all),
        usable,
        "version {version}, every path"
    );
    // A few paths, one missing, in no order: only theirs, and the walk stops after the last.
    let some = ["z/f003.txt", "a/b/f001.txt", "c.txt", "missing.txt", "link"];
    let expected: BTreeMap<String, Entry> = usable
        .iter()
        .filter(|(p, _)| some.contains(&p.as_str()))
        .map(|(p, e)| (p.clone(), e.clone()))
        .collect();
    assert_eq!(expected.len(), 3, "version {version}: {expected:?}");
    assert_eq!(
        by_reader(repo, &some),
        expected,
        "version {version}, some paths"
    );
}

#[test]
fn the_entries_read_are_gix_s_in_every_index_version() {
    let repo = varied_repo();
    for version in ["2", "3", "4", "2"] {
        agrees_at(&repo, version);
    }
}

#[test]
fn a_split_index_yields_current_entries_only() {
    let repo = varied_repo();
    git(repo.path(), &["update-index", "--split-index"]);
    repo.write("a/f000.txt", "changed\n");
    repo.write("a/added.txt", "added\n");
    git(repo.path(), &["add", "a/f000.txt", "a/added.txt"]);
    let (_, usable) = by_gix(&repo);
    let found = by_reader(
        &repo,
        &["a/added.txt", "a/f000.txt", "a/f005.txt", "top.txt"],
    );
    assert!(found.contains_key("a/added.txt"), "{found:?}");
    for (path, entry) in &found {
        assert_eq!(usable.get(path), Some(entry), "{path}");
    }
}

#[test]
fn what_is_not_an_index_reads_as_nothing() {
    let repo = Repo::new();
    repo.write("x.txt", "not an index\n");
    let found = entries::find(
        &repo.path().join("x.txt"),
        gix::hash::Kind::Sha1,
        &["x.txt"],
    );
    assert!(found.is_none());
    repo.write("trunc", "DIRC\0\0\0\x02\0\0\0\x05");
    let found = entries::find(
        &repo.path().join("trunc"),
        gix::hash::Kind::Sha1,
        &["x.txt"],
    );
    assert!(found.is_none(), "five entries promised, none there");
}

/// Paths of 4,095 bytes and longer do not fit the entry's length field: git ends them with a
/// NUL instead. The reference is git's own listing.
#[test]
fn paths_longer_than_the_length_field_are_read() {
    let repo = Repo::new();
    repo.write("top.txt", "top\n").commit();
    let blob = top_blob(&repo);
    let paths = [
        "e".repeat(4094),
        "e".repeat(4095),
        format!("{}/deep.txt", "f".repeat(4100)),
    ];
    let info: String = paths
        .iter()
        .map(|p| format!("100644 {blob} 0\t{p}\n"))
        .collect();
    index_info(&repo, &info);
    for version in ["2", "3", "4"] {
        git(repo.path(), &["update-index", "--index-version", version]);
        let listed = git(repo.path(), &["ls-files", "-s"]);
        let mut wanted: Vec<&str> = paths.iter().map(String::as_str).collect();
        wanted.push("top.txt");
        let found = by_reader(&repo, &wanted);
        for line in listed.lines() {
            let (meta, path) = line.split_once('\t').expect("tab");
            let id = meta.split(' ').nth(1).expect("id");
            assert_eq!(
                found[path].id.to_string(),
                id,
                "version {version}: {}",
                path.len()
            );
        }
        assert_eq!(found.len(), 4, "version {version}");
    }
}

/// `git::index_view` (the pre-commit hook's reader) sees every entry of versions 2 and 3 as
/// gix decodes it (path, id, flags, mode, in order) and the same cache tree (the hook's tests
/// prove it is walked); version 4 and a split index are left to gix.
#[test]
fn the_index_view_is_gix_s_decode_in_versions_2_and_3() {
    use git_identedit::git::index_view::IndexView;
    let repo = varied_repo();
    let path = repo.path().join(".git/index");
    for version in ["2", "3", "4", "2"] {
        git(repo.path(), &["update-index", "--index-version", version]);
        let view = IndexView::open(&path, gix::hash::Kind::Sha1);
        if version == "4" {
            assert!(view.is_none(), "version 4 is gix's to decode");
            continue;
        }
        let view = view.expect("versions 2 and 3 are read in place");
        let index = gix::open(repo.path())
            .expect("open")
            .open_index()
            .expect("index");
        assert_eq!(view.len(), index.entries().len(), "version {version}");
        for (i, entry) in index.entries().iter().enumerate() {
            assert_eq!(
                view.path(i),
                entry.path(&index),
                "version {version}, entry {i}"
            );
            let seen = view.entry(i);
            assert_eq!(
                seen,
                (entry.id, entry.flags, entry.mode),
                "version {version}, {i}"
            );
        }
        assert_eq!(view.tree(), index.tree(), "version {version}");
    }
    git(repo.path(), &["update-index", "--split-index"]);
    assert!(
        IndexView::open(&path, gix::hash::Kind::Sha1).is_none(),
        "split"
    );
    let not_index = repo.path().join("top.txt");
    assert!(IndexView::open(&not_index, gix::hash::Kind::Sha1).is_none());
}
