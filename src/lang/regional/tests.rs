use super::check;
use crate::lang::provider_for;

/// The regional verdict of replacing `old` by `new` in `source`: clean (`true`), or
/// left to the whole file (`false`).
fn clean(path: &str, source: &str, at: usize, old: usize, new: &str) -> bool {
    let provider = provider_for(path).expect("provider");
    let after = format!("{}{new}{}", &source[..at], &source[at + old..]);
    let ranges = [(at..at + old, at..at + new.len())];
    check(provider, source.as_bytes(), after.as_bytes(), &ranges)
        .expect("parses")
        .is_some()
}

/// The keys the API guard compares `list` under.
fn keys(list: &[crate::lang::symbols::Signature]) -> Vec<String> {
    list.iter().map(|d| d.key.to_string()).collect()
}

#[test]
fn a_changed_binding_is_decided_on_its_region_unless_the_rest_of_the_file_names_it() {
    let js = "const a = 1;\n\nconst b = 2;\n\nfunction f() {\n  return a;\n}\n";
    let at = js.find("const b").expect("b");
    let b = "const b".len();
    assert!(clean("a.js", js, at, b, "const fresh"));
    // The new name is declared above; the old one is read in f.
    assert!(!clean("a.js", js, at, b, "const a"));
    let at = js.find("const a").expect("a");
    assert!(!clean("a.js", js, at, b, "const z"));
}

#[test]
fn an_insertion_at_the_end_of_the_file_is_in_its_region() {
    let py = "def g():\n    return 2\n";
    assert!(!clean("b.py", py, py.len(), 0, "def (:\n"));
    assert!(clean("b.py", py, py.len(), 0, "def h():\n    pass\n"));
}

#[test]
fn a_method_edited_in_a_class_body_region_keeps_its_qualified_name() {
    let py =
        "class P:\n    def f(self, a):\n        return a\n\n    def g(self):\n        return 2\n";
    let (at, old) = (py.find("self, a").expect("params"), "self, a".len());
    let after = py.replacen("self, a", "self, a, b", 1);
    let provider = provider_for("a.py").expect("provider");
    let ranges = [(at..at + old, at..at + old + 3)];
    let clean = check(provider, py.as_bytes(), after.as_bytes(), &ranges)
        .expect("parses")
        .expect("a clean region");
    let d = clean.declarations.expect("exact declarations");
    assert!(
        keys(&d.after).contains(&"P.f".to_owned()),
        "{:?}",
        keys(&d.after)
    );
    let before = d.before.expect("before");
    let changes = crate::lang::api::compare("a.py", &before, &d.after);
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert_eq!(changes[0].symbol, "P.f");
}

#[test]
fn an_export_list_outside_the_region_leaves_publicity_to_the_whole_file() {
    let provider = provider_for("a.ts").expect("provider");
    let regional = |source: &str| {
        let (at, old) = (
            source.find("id: number").expect("param"),
            "id: number".len(),
        );
        let after = source.replacen("id: number", "id: string", 1);
        let ranges = [(at..at + old, at..at + old)];
        check(provider, source.as_bytes(), after.as_bytes(), &ranges)
            .expect("parses")
            .expect("a clean region")
            .declarations
    };
    let class = "class Repo {\n  find(id: number): string {\n    return String(id);\n  }\n}\n";
    assert!(regional(class).is_some(), "nothing exports Repo by name");
    for list in [
        "export { Repo };\n",
        "export {\n  Repo as R,\n};\n",
        "export default Repo;\n",
    ] {
        let source = format!("{class}\nconst x = 1;\n\n{list}");
        assert!(regional(&source).is_none(), "{list:?}");
    }
}

#[test]
fn regions_see_what_breaks_them_and_defer_the_rest() {
    let js = "function a() {\n  const x = 1;\n  return x;\n}\n";
    let at = js.find("const").expect("const");
    assert!(clean("a.js", js, at, 5, "let"));
    assert!(!clean("a.js", js, at, 5, "let ("));
    let py = "def f():\n    x = 1\n    return x\n";
    let at = py.find("    x").expect("x");
    assert!(
        !clean("a.py", py, at, 4, "  "),
        "a dedent the region alone accepts"
    );
}

/// The regional verdict of several replacements (`(needle, new)`, in file order).
fn clean_all(path: &str, source: &str, edits: &[(&str, &str)]) -> bool {
    let provider = provider_for(path).expect("provider");
    let (mut after, mut ranges, mut delta) = (String::new(), Vec::new(), 0isize);
    let mut rest = 0;
    for (needle, new) in edits {
        let at = rest + source[rest..].find(needle).expect("needle");
        after.push_str(&source[rest..at]);
        after.push_str(new);
        let new_at = at.saturating_add_signed(delta);
        ranges.push((at..at + needle.len(), new_at..new_at + new.len()));
        delta += new.len() as isize - needle.len() as isize;
        rest = at + needle.len();
    }
    after.push_str(&source[rest..]);
    check(provider, source.as_bytes(), after.as_bytes(), &ranges)
        .expect("parses")
        .is_some()
}

#[test]
fn later_edits_inside_a_found_region_are_checked_with_it() {
    // The signature's region is the whole method; the `return` lies in it, a cluster of
    // its own (`b` makes the file wide enough for the budget to allow a second parse).
    let filler = "        // ".to_owned() + &"-".repeat(300) + "\n";
    let php = format!(
        "<?php\nclass G\n{{\n    public function a()\n    {{\n{filler}        return 1;\n    }}\n\n    public function b()\n    {{\n{filler}        return 2;\n    }}\n}}\n"
    );
    let edits = |second| [("a()", "aa()"), ("return 1;", second)];
    assert!(clean_all("a.php", &php, &edits("return 11;")));
    assert!(!clean_all("a.php", &php, &edits("return (1;")));
    assert!(!clean_all(
        "a.php",
        &php,
        &[("a()", "aa("), ("return 1;", "return 2;")]
    ));
}

#[test]
fn a_later_edit_inside_an_earlier_edits_region_is_parsed_with_it() {
    // The first edit's region is the whole class; the docstring edit, a cluster of its
    // own further down, lies in it. Reparsed without that edit, the class's new bytes
    // were misread (errors) and the whole file decided instead.
    let doc: String = (0..20)
        .map(|i| format!("    Line {i} of the docs.\n"))
        .collect();
    let method = |i: usize| match i {
        12 => format!(
            "\n    def m{i}(self, key):\n        \"\"\"\n        Method {i}.\n        follow this.\n        \"\"\"\n        if key not in self.nodes:\n            raise KeyError(key)\n        return self.nodes[key]\n"
        ),
        _ => format!(
            "\n    def m{i}(self, key):\n        \"\"\"Method {i}.\"\"\"\n        self.nodes[key] = {i}\n        return key\n"
        ),
    };
    let methods: String = (0..20).map(method).collect();
    let py = format!("import os\n\n\nclass G:\n    \"\"\"\n{doc}    \"\"\"\n{methods}");
    let first = ("class G:\n", "class G:\n# note\n");
    let second = (
        "        follow this.\n",
        "        follow this.\n        # more\n",
    );
    assert!(clean_all("a.py", &py, &[first, second]));
    assert!(!clean_all(
        "a.py",
        &py,
        &[first, ("return self.nodes", "return (self.nodes")]
    ));
}

#[test]
fn a_region_is_parsed_once_with_every_edit_it_holds() {
    // The object is the only region: both edits are parsed with it, once (a second
    // parse of its new bytes would cost more than the file and send it to the whole
    // file), and the later one's error is seen there.
    let keys: String = (0..40).map(|i| format!("  k{i}: {i},\n")).collect();
    let js = format!("const o = {{\n{keys}}};\n");
    assert!(clean_all("a.js", &js, &[("k1:", "j1:")]));
    assert!(clean_all("a.js", &js, &[("k1:", "j1:"), ("k39:", "j39:")]));
    assert!(!clean_all("a.js", &js, &[("k1:", "j1:"), ("k39:", "j39")]));
}

#[test]
fn lines_inserted_below_a_method_are_checked_in_its_body() {
    // The insertion point is the start of the next method's line, but the lines continue the
    // method above: its body is the region, not the long method below.
    let long: String = (0..200).map(|i| format!("        x{i} = {i}\n")).collect();
    let py = format!("class P:\n    def f(self):\n        return 1\n\n    def g(self):\n{long}");
    let at = py.find("\n    def g").expect("g") + 1;
    let new = "        # checked\n";
    let after = format!("{}{new}{}", &py[..at], &py[at..]);
    let provider = provider_for("a.py").expect("provider");
    let ranges = [(at..at, at..at + new.len())];
    let clean = check(provider, py.as_bytes(), after.as_bytes(), &ranges)
        .expect("parses")
        .expect("a clean region");
    assert!(clean.spent < long.len(), "{} of {}", clean.spent, py.len());
    let broken = ("        return 1\n", "        return 1\n    (\n");
    assert!(!clean_all("a.py", &py, &[broken]));
}

#[test]
fn a_string_closed_early_by_inserted_lines_is_seen() {
    // Inserted at the start of the line that closes the string, the new lines end it and
    // leave an `if` without `else`: no region inside the string may decide.
    let py = "def f():\n    s = \"\"\"\n    a = 1\n    b = 2\n\"\"\"\n    return s\n";
    let at = py.find("\"\"\"\n    return").expect("closer");
    assert!(!clean("a.py", py, at, 0, "    \"\"\" if \"\"\"\n"));
    assert!(clean("a.py", py, at, 0, "    c = 3\n"));
}

#[test]
fn an_edit_inside_a_docstring_that_writes_quotes_is_decided_on_the_file() {
    // The line edited lies inside the string; its region parses as code on its own.
    let py = "def f():\n    s = \"\"\"\n    a = 1\n    b = 2\n\"\"\"\n    return s\n";
    let at = py.find("    b = 2").expect("b");
    let len = "    b = 2\n".len();
    assert!(!clean(
        "a.py",
        py,
        at,
        len,
        "    b = 2\n    \"\"\" if \"\"\"\n"
    ));
    assert!(clean("a.py", py, at, len, "    b = 3\n"));
    let js = "const t = `\nlet a = 1;\nlet b = 2;\n`;\nfunction g() {\n  return t;\n}\n";
    let at = js.find("let b").expect("b");
    assert!(!clean(
        "a.js",
        js,
        at,
        "let b = 2;".len(),
        "let b = `${1}`;"
    ));
}

#[test]
fn an_insertion_where_two_regions_meet_is_held_by_one() {
    // The inserted function continues the statement above (its region ends at the insertion)
    // and the list below holds a later edit (its region starts there): one region holds both.
    let items: String = "    1,\n".repeat(60);
    // A long tail, so that the regions stay within the budget of a whole-file check.
    let tail: String = (0..200).map(|i| format!("y{i} = {i}\n")).collect();
    let py = format!("x = 1\nX = [\n{items}]\n{tail}");
    let at = py.find("X = [").expect("X");
    let new = "def z():\n    pass\n";
    let last = py.rfind("    1,").expect("last item");
    let after = format!(
        "{}{new}{}    2,{}",
        &py[..at],
        &py[at..last],
        &py[last + 6..]
    );
    let shift = new.len();
    let ranges = [
        (at..at, at..at + shift),
        (last + 4..last + 5, last + 4 + shift..last + 5 + shift),
    ];
    let provider = provider_for("a.py").expect("provider");
    let clean = check(provider, py.as_bytes(), after.as_bytes(), &ranges)
        .expect("parses")
        .expect("a clean region");
    let z = clean.items_after.iter().filter(|i| i.name == "z").count();
    assert_eq!(z, 1);
}

#[test]
fn regions_found_one_after_another_report_in_file_order() {
    // Three functions far enough apart for a region each; every one changes its signature.
    // The first two regions are read (and their trees let go) as the next one is found.
    let filler = "# ".to_owned() + &"-".repeat(300) + "\n";
    let py = format!(
        "def a(x):\n    return x\n\n{filler}\ndef b(x):\n    return x\n\n{filler}\ndef c(x):\n    return x\n"
    );
    let after = py.replace("(x)", "(x, y)");
    let provider = provider_for("m.py").expect("provider");
    let ranges: Vec<_> = py
        .match_indices("(x)")
        .enumerate()
        .map(|(i, (at, _))| (at..at + 3, at + 3 * i..at + 3 * i + 6))
        .collect();
    let clean = check(provider, py.as_bytes(), after.as_bytes(), &ranges)
        .expect("parses")
        .expect("clean regions");
    let d = clean.declarations.expect("exact declarations");
    let before = d.before.expect("before");
    assert_eq!(keys(&before), ["a", "b", "c"]);
    assert_eq!(keys(&d.after), ["a", "b", "c"]);
    let changed = crate::lang::api::compare("m.py", &before, &d.after);
    let symbols: Vec<&str> = changed.iter().map(|c| c.symbol.as_str()).collect();
    assert_eq!(symbols, ["a", "b", "c"]);
    assert_eq!(clean.items_before.len(), clean.items_after.len());
}

#[test]
fn an_element_edited_in_a_php_array_is_checked_on_its_line() {
    let php = "<?php\nclass M\n{\n    private const MAP = [\n        'a' => ['x', 'y'],\n        'b' => ['z'],\n    ];\n}\n";
    let at = php.find("'y'").expect("y");
    assert!(clean("m.php", php, at, 3, "'y2'"));
    // A dropped comma before the next element breaks the file: a region must not say clean.
    let at = php.find("],\n        'b'").expect("comma") + 1;
    assert!(!clean("m.php", php, at, 1, ""));
    // The last element may drop its trailing comma.
    let at = php.find("['z'],").expect("z") + 5;
    assert!(clean("m.php", php, at, 1, ""));
    // An element that no longer parses is left to the whole file.
    let at = php.find("'y'").expect("y");
    assert!(!clean("m.php", php, at, 3, "'y' =>"));
}

#[test]
fn an_edit_in_a_large_php_array_parses_its_element_not_the_array() {
    let rows: String = (0..500)
        .map(|i| format!("        'k{i}' => ['v{i}'],\n"))
        .collect();
    let php = format!("<?php\nclass M\n{{\n    private const MAP = [\n{rows}    ];\n}}\n");
    let at = php.find("'v250'").expect("v250");
    let after = php.replacen("'v250'", "'v250b'", 1);
    let provider = provider_for("m.php").expect("provider");
    let ranges = [(at..at + 6, at..at + 7)];
    let clean = check(provider, php.as_bytes(), after.as_bytes(), &ranges)
        .expect("parses")
        .expect("a clean region");
    assert!(clean.spent < 100, "parsed {} bytes", clean.spent);
}
