//! The languages' own checkers, each run once over a batch of files where it can be:
//! `verdicts(files)` says for every file whether the checker accepts it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// How one language's files are judged.
#[derive(Clone, Copy)]
pub enum Checker {
    /// `python3`: `ast.parse` of each file, one process.
    Python,
    /// `php`: `token_get_all(…, TOKEN_PARSE)` (the parser `php -l` runs), one process.
    Php,
    /// `node`: each file compiled as a script, then as a module (what `node --check` accepts).
    Node,
    /// `node` with the `typescript` package: the parser's diagnostics.
    TypeScript,
    /// `ruby`: `RubyVM::InstructionSequence.compile` (`ruby -c`), one process.
    Ruby,
    /// `ruby`'s Psych (libyaml): `YAML.load_stream`.
    Yaml,
    /// `gofmt -e` over the batch directory.
    Go,
    /// `bash -n`, one process per file.
    Bash,
    /// `gcc`/`g++ -fsyntax-only`, one process per file; only syntax diagnostics count.
    Gcc(&'static str),
    /// javac's parser through its API (`JavaSyntax.java`, one JVM for the batch), with the
    /// grammar's rule that javac checks later: `this(…)`/`super(…)` only first in a constructor.
    Javac,
    /// In process: `syn::parse_file`.
    Rust,
    /// In process: `serde_json`.
    Json,
    /// In process: `toml_edit`.
    Toml,
}

/// Where the typescript package is installed (`.ci/run` installs it there too).
pub fn typescript_dir() -> PathBuf {
    std::env::var_os("IDENTEDIT_TS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/tmp/identedit-checkers"))
}

fn has(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

impl Checker {
    /// Why the checker cannot run here, if it cannot.
    pub fn missing(self) -> Option<String> {
        let program = match self {
            Checker::Python => "python3",
            Checker::Php => "php",
            Checker::Node => "node",
            Checker::TypeScript => {
                let lib = typescript_dir().join("node_modules/typescript");
                if !has("node") || !lib.exists() {
                    return Some(format!("node and {} needed", lib.display()));
                }
                return None;
            }
            Checker::Ruby | Checker::Yaml => "ruby",
            Checker::Go => "gofmt",
            Checker::Bash => "bash",
            Checker::Gcc(cc) => cc,
            Checker::Javac => "javac",
            Checker::Rust | Checker::Json | Checker::Toml => return None,
        };
        let found = match self {
            Checker::Go => Command::new("gofmt")
                .arg("-l")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .status()
                .is_ok(),
            _ => has(program),
        };
        (!found).then(|| format!("{program} is not installed"))
    }

    /// Whether the checker accepts each of `files` (written into `dir` as `N.ext`).
    pub fn verdicts(self, dir: &Path, ext: &str, files: &[Vec<u8>]) -> Vec<bool> {
        let paths: Vec<PathBuf> = files
            .iter()
            .enumerate()
            .map(|(i, bytes)| {
                let path = dir.join(format!("{i}.{ext}"));
                std::fs::write(&path, bytes).expect("write a mutant");
                path
            })
            .collect();
        match self {
            Checker::Rust => files.iter().map(|f| rust_ok(f)).collect(),
            Checker::Json => files
                .iter()
                .map(|f| serde_json::from_slice::<serde_json::Value>(f).is_ok())
                .collect(),
            Checker::Toml => files
                .iter()
                .map(|f| {
                    std::str::from_utf8(f)
                        .ok()
                        .is_some_and(|t| t.parse::<toml_edit::DocumentMut>().is_ok())
                })
                .collect(),
            Checker::Bash => paths.iter().map(|p| bash_ok(p)).collect(),
            Checker::Gcc(cc) => paths.iter().map(|p| gcc_ok(cc, p)).collect(),
            Checker::Go => gofmt(dir, &paths),
            _ => scripted(self, &paths),
        }
    }
}

fn rust_ok(bytes: &[u8]) -> bool {
    std::str::from_utf8(bytes)
        .ok()
        .is_some_and(|t| syn::parse_file(t).is_ok())
}

/// `bash -n`: a failed status, or a syntax error it reports and still exits 0 for (an
/// unbalanced `[[ … ]`: "syntax error in conditional expression").
fn bash_ok(path: &Path) -> bool {
    let out = Command::new("bash")
        .arg("-n")
        .arg(path)
        .output()
        .expect("run bash");
    out.status.success() && !String::from_utf8_lossy(&out.stderr).contains("syntax error")
}

/// gcc's diagnostics name syntax errors `expected …`, `stray …`, `missing terminating …`,
/// `unterminated …`; others (undeclared names, redefinitions, types) are not syntax.
fn gcc_ok(cc: &str, path: &Path) -> bool {
    let out = Command::new(cc)
        .args(["-fsyntax-only", "-w", "-pedantic-errors"])
        .arg(path)
        .output()
        .expect("run the C compiler");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let syntax = [
        "expected",
        "stray",
        "missing terminating",
        "unterminated",
        "before",
        "at end of input",
        "invalid suffix",
        "does not name a type",
        "in identifier",
    ];
    !stderr
        .lines()
        .filter(|l| l.contains("error:"))
        .any(|l| syntax.iter().any(|s| l.contains(s)))
}

fn gofmt(dir: &Path, paths: &[PathBuf]) -> Vec<bool> {
    let out = Command::new("gofmt")
        .args(["-e", "-l"])
        .arg(dir)
        .output()
        .expect("run gofmt");
    let stderr = String::from_utf8_lossy(&out.stderr);
    paths
        .iter()
        .map(|p| {
            let name = format!("{}:", p.display());
            !stderr.lines().any(|l| l.starts_with(&name))
        })
        .collect()
}

/// One interpreter process reads the list of paths on stdin and prints `ok` or `err` per path.
fn scripted(checker: Checker, paths: &[PathBuf]) -> Vec<bool> {
    let ts = typescript_dir().join("node_modules/typescript");
    let (program, args): (&str, Vec<String>) = match checker {
        Checker::Python => ("python3", vec!["-c".into(), PYTHON.into()]),
        Checker::Php => ("php", vec!["-r".into(), PHP.into()]),
        Checker::Node => (
            "node",
            vec![
                "--experimental-vm-modules".into(),
                "--no-warnings".into(),
                "-e".into(),
                NODE.into(),
            ],
        ),
        Checker::TypeScript => (
            "node",
            vec!["-e".into(), TS.into(), ts.display().to_string()],
        ),
        Checker::Ruby => ("ruby", vec!["-e".into(), RUBY.into()]),
        Checker::Yaml => ("ruby", vec!["-ryaml".into(), "-e".into(), YAML.into()]),
        Checker::Javac => (
            "java",
            vec![
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("tests/differential/JavaSyntax.java")
                    .display()
                    .to_string(),
            ],
        ),
        _ => unreachable!("not a scripted checker"),
    };
    let mut child = Command::new(program)
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the checker");
    let list: String = paths.iter().map(|p| format!("{}\n", p.display())).collect();
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(list.as_bytes())
        .expect("write the list");
    let out = child.wait_with_output().expect("checker output");
    let text = String::from_utf8_lossy(&out.stdout);
    let verdicts: Vec<bool> = text.lines().map(|l| l.trim() == "ok").collect();
    assert_eq!(verdicts.len(), paths.len(), "{program} answered {text}");
    verdicts
}

const PYTHON: &str = r#"
import ast, sys
for path in sys.stdin.read().split("\n"):
    if not path:
        continue
    try:
        ast.parse(open(path, "rb").read())
        print("ok")
    except (SyntaxError, ValueError):
        print("err")
"#;

const PHP: &str = r#"
foreach (explode("\n", trim(stream_get_contents(STDIN))) as $path) {
    try { token_get_all(file_get_contents($path), TOKEN_PARSE); echo "ok\n"; }
    catch (\Throwable $e) { echo "err\n"; }
}
"#;

const NODE: &str = r#"
const vm = require("vm"), fs = require("fs");
const paths = fs.readFileSync(0, "utf8").split("\n").filter(Boolean);
for (const p of paths) {
  const code = fs.readFileSync(p, "utf8");
  let ok = false;
  try { new vm.Script(code); ok = true; } catch (e) {}
  if (!ok) { try { new vm.SourceTextModule(code); ok = true; } catch (e) {} }
  console.log(ok ? "ok" : "err");
}
"#;

/// The parser's diagnostics and the grammar checks of the checker (codes under 2000 and in
/// 17000..19000 are syntax and grammar errors; the others are types, which need the project).
/// An identifier the parser made of a private name (`#x` where a name is needed: a type, an
/// import) counts too: nothing can be declared by that name, so tsc rejects it in any project
/// (2304, 2305), only after the parse.
const TS: &str = r#"
const ts = require(process.argv[1]), fs = require("fs");
const paths = fs.readFileSync(0, "utf8").split("\n").filter(Boolean);
const options = { noResolve: true, noLib: true, types: [], jsx: ts.JsxEmit.Preserve,
  target: ts.ScriptTarget.ESNext, module: ts.ModuleKind.ESNext };
for (const p of paths) {
  const program = ts.createProgram([p], options);
  const sf = program.getSourceFile(p);
  const grammar = program.getSemanticDiagnostics(sf).filter((d) => d.code < 2000 || (d.code >= 17000 && d.code < 19000));
  const privateName = (n) => (ts.isIdentifier(n) && n.text.startsWith('#')) || ts.forEachChild(n, privateName);
  const errors = program.getSyntacticDiagnostics(sf).length + grammar.length;
  console.log(errors === 0 && !privateName(sf) ? "ok" : "err");
}
"#;

const RUBY: &str = r#"
$stdin.read.split("\n").each do |path|
  next if path.empty?
  begin
    RubyVM::InstructionSequence.compile(File.read(path))
    puts "ok"
  rescue SyntaxError
    puts "err"
  end
end
"#;

const YAML: &str = r#"
$stdin.read.split("\n").each do |path|
  next if path.empty?
  begin
    YAML.load_stream(File.read(path))
    puts "ok"
  rescue Psych::Exception, StandardError
    puts "err"
  end
end
"#;
