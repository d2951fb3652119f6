//! Property test of the whole transaction against a naive model: random files, random edits
//! cut from the files themselves (so some are ambiguous and some overlap). Either the engine
//! refuses and every file is untouched, or every file equals the model's result; never a temp
//! file or a journal left behind.

use std::collections::BTreeMap;

use proptest::prelude::*;

use crate::plan::{Occurrence, Op, OpKind, Origin, PathBase, PathSpec, Plan, TextEdit};
use crate::txn::{Options, execute};
use crate::workspace::Workspace;

#[derive(Debug, Clone)]
struct Case {
    files: Vec<String>,
    /// (file index, start, length, replacement)
    edits: Vec<(usize, usize, usize, String)>,
}

fn case() -> impl Strategy<Value = Case> {
    let files = prop::collection::vec("[a-e\\n]{4,40}", 1..4);
    let edits = prop::collection::vec((0usize..4, 0usize..40, 2usize..7, "[xy\\n]{0,4}"), 1..5);
    (files, edits).prop_map(|(files, raw)| {
        let edits = raw
            .into_iter()
            .map(|(f, start, len, new)| {
                let f = f % files.len();
                let start = start % files[f].len();
                let len = len.min(files[f].len() - start);
                (f, start, len, new)
            })
            .collect();
        Case { files, edits }
    })
}

/// What the engine must do: `None` for a refusal, else every file's new content.
fn model(case: &Case) -> Option<Vec<String>> {
    let mut ranges: Vec<Vec<(usize, usize, String)>> = vec![Vec::new(); case.files.len()];
    for (f, start, len, new) in &case.edits {
        let text = &case.files[*f];
        let find = &text[*start..start + len];
        let count = (0..=text.len() - find.len())
            .filter(|&i| text[i..].starts_with(find))
            .count();
        if count != 1 {
            return None;
        }
        let at = text.find(find)?;
        ranges[*f].push((at, at + len, new.clone()));
    }
    let mut out = Vec::new();
    for (f, mut list) in ranges.into_iter().enumerate() {
        list.sort();
        if list.windows(2).any(|w| w[1].0 < w[0].1) {
            return None;
        }
        let mut text = case.files[f].clone();
        for (start, end, new) in list.iter().rev() {
            text.replace_range(*start..*end, new);
        }
        out.push(text);
    }
    Some(out)
}

fn plan(case: &Case) -> Plan {
    let ops = case
        .edits
        .iter()
        .enumerate()
        .map(|(i, (f, start, len, new))| Op {
            path: PathSpec {
                raw: format!("f{f}.txt"),
                base: PathBase::Root,
            },
            origin: Origin {
                list: "edits",
                index: i,
                input_line: None,
                parent: None,
            },
            kind: OpKind::Edit {
                edit: TextEdit {
                    find: case.files[*f][*start..start + len].to_owned(),
                    replace: new.clone(),
                    select: Occurrence::Unique,
                },
                expected: None,
            },
        })
        .collect();
    Plan {
        ops,
        dialect: "test",
        ..Plan::default()
    }
}

fn tree(dir: &std::path::Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name != ".identedit" {
            out.insert(name, std::fs::read(entry.path()).unwrap_or_default());
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn the_engine_matches_the_model(case in case()) {
        let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
        for (i, text) in case.files.iter().enumerate() {
            std::fs::write(dir.path().join(format!("f{i}.txt")), text).map_err(|e| TestCaseError::fail(e.to_string()))?;
        }
        let before = tree(dir.path());
        let ws = Workspace::scratch(std::fs::canonicalize(dir.path()).map_err(|e| TestCaseError::fail(e.to_string()))?);
        let result = execute(&ws, &plan(&case), Options::default());
        match model(&case) {
            None => {
                prop_assert!(result.is_err(), "the model refuses but the engine applied");
                prop_assert_eq!(tree(dir.path()), before);
            }
            Some(expected) => {
                prop_assert!(result.is_ok(), "the engine refused: {:?}", result.err());
                for (i, text) in expected.iter().enumerate() {
                    let now = std::fs::read_to_string(dir.path().join(format!("f{i}.txt"))).unwrap_or_default();
                    prop_assert_eq!(&now, text);
                }
            }
        }
        prop_assert!(tree(dir.path()).keys().all(|k| !k.contains(".identedit-")));
        let journal = ws.journal_dir();
        prop_assert!(std::fs::read_dir(journal).map(|d| d.count()).unwrap_or(0) == 0);
    }
}

/// Twenty files of a few KiB, one edit each: enough for the engine to hold pre-images
/// compressed and post-images as pieces.
fn many_files(dir: &std::path::Path) -> (Workspace, Plan) {
    let case = Case {
        files: (0..20)
            .map(|i| format!("head {i}\n{}tail {i}\n", "line of code;\n".repeat(200)))
            .collect(),
        edits: Vec::new(),
    };
    let mut case = case;
    for (i, text) in case.files.iter().enumerate() {
        std::fs::write(dir.join(format!("f{i}.txt")), text).expect("write");
        case.edits
            .push((i, 0, format!("head {i}").len(), format!("HEAD{i}")));
    }
    let ws = Workspace::scratch(std::fs::canonicalize(dir).expect("canonical"));
    (ws, plan(&case))
}

#[test]
fn a_many_file_plan_holds_packed_pre_images_and_writes_every_byte() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (ws, plan) = many_files(dir.path());
    let files = crate::txn::prepare::prepare(&ws, &plan, &Options::default()).expect("prepared");
    let packed = |c: &crate::change::FileChange| {
        let before = c.before.as_ref().expect("pre-image");
        matches!(before.bytes, crate::workspace::image::Image::Packed(_))
    };
    assert!(files.iter().all(packed));
    execute(&ws, &plan, Options::default()).expect("applied");
    for i in 0..20 {
        let now = std::fs::read_to_string(dir.path().join(format!("f{i}.txt"))).expect("read");
        let expected = format!("HEAD{i}\n{}tail {i}\n", "line of code;\n".repeat(200));
        assert_eq!(now, expected, "f{i}.txt");
    }
}

/// A post-image rebuilt from pieces that are not the ones proven is never written: staging
/// checks it against its digest, and every file keeps its bytes.
#[test]
fn staging_refuses_a_rebuilt_image_that_is_not_the_one_proven() {
    use crate::change::PostImage;
    let dir = tempfile::tempdir().expect("tempdir");
    let (ws, plan) = many_files(dir.path());
    let before = tree(dir.path());
    let mut files =
        crate::txn::prepare::prepare(&ws, &plan, &Options::default()).expect("prepared");
    let Some(PostImage::Spliced(pieces)) = &files[7].after else {
        panic!("a many-file plan holds pieces");
    };
    let mut wrong = pieces.to_vec();
    wrong[0] ^= 1;
    files[7].after = Some(PostImage::Spliced(std::sync::Arc::new(wrong)));
    let writes: Vec<&crate::change::FileChange> = files.iter().collect();
    let keys = files.iter().map(|c| c.path.key.clone()).collect();
    let published = crate::txn::publish::publish(&ws.journal_dir(), &writes, keys);
    assert!(published.is_err());
    assert_eq!(tree(dir.path()), before);
}

/// Staging writes a post-image held as pieces stretch by stretch: a file emptied whole, and
/// one of more stretches than one `writev` takes (600 edits, 1,201 stretches), land byte for
/// byte.
#[test]
fn staged_pieces_land_for_an_emptied_file_and_one_of_many_edits() {
    let dir = tempfile::tempdir().expect("tempdir");
    let many: String = (0..600).map(|j| format!("k{j} = {j};\n")).collect();
    let mut files = vec!["gone;\n".repeat(200), many.clone()];
    files.extend((2..20).map(|i| format!("head {i}\n{}", "line;\n".repeat(200))));
    let mut edits = vec![(0, 0, files[0].len(), String::new())];
    for j in 0..600 {
        let at = many.find(&format!("k{j} =")).expect("line");
        edits.push((1, at, format!("k{j} =").len(), format!("K{j} =")));
    }
    edits.extend((2..20).map(|i| (i, 0, format!("head {i}").len(), format!("HEAD{i}"))));
    let case = Case { files, edits };
    for (i, text) in case.files.iter().enumerate() {
        std::fs::write(dir.path().join(format!("f{i}.txt")), text).expect("write");
    }
    let ws = Workspace::scratch(std::fs::canonicalize(dir.path()).expect("canonical"));
    execute(&ws, &plan(&case), Options::default()).expect("applied");
    let expected = model(&case).expect("the model applies");
    for (i, text) in expected.iter().enumerate() {
        let now = std::fs::read_to_string(dir.path().join(format!("f{i}.txt"))).expect("read");
        assert_eq!(&now, text, "f{i}.txt");
    }
    assert_eq!(expected[0], "");
}
