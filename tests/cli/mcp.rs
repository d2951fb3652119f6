//! `git identedit mcp`: raw JSON-RPC lines against the server (always), and a scripted
//! session through the official Python SDK (`tests/mcp_client.py`). The latter is skipped, with
//! the reason printed, when `python3 -c 'import mcp'` fails, unless `IDENTEDIT_REQUIRE_MCP` is
//! set (as `.ci/run` does after installing the SDK; `IDENTEDIT_MCP_PYTHON` names its python).
//! A shorter session through the official TypeScript SDK (`tests/mcp_client.cjs`) is skipped
//! likewise when node cannot load it (`IDENTEDIT_REQUIRE_MCP_TS`).

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{BIN, Repo, git};

/// Runs the server on `lines` (then EOF); returns its exit code and the JSON lines it wrote.
fn serve(repo: &Repo, lines: &[String]) -> (Option<i32>, Vec<Value>) {
    let mut child = repo
        .cmd()
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("server starts");
    let mut stdin = child.stdin.take().expect("stdin");
    for line in lines {
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .expect("write");
    }
    drop(stdin);
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status.code();
        }
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("the server did not exit on EOF");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut out = String::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut out)
        .expect("read");
    let docs = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    (status, docs)
}

fn response(docs: &[Value], id: i64) -> &Value {
    docs.iter()
        .find(|d| d["id"] == id)
        .unwrap_or_else(|| panic!("no response {id} in {docs:?}"))
}

fn request(id: i64, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

#[test]
fn raw_json_rpc_lines_get_answers_and_eof_ends_the_server() {
    let repo = Repo::new();
    repo.write("a.txt", "one\ntwo\n");
    let init = json!({"protocolVersion": "2025-06-18", "capabilities": {},
                      "clientInfo": {"name": "raw", "version": "0"}});
    let lines = [
        request(1, "initialize", init),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        request(2, "tools/list", json!({})),
        "{\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": ".to_owned(),
        "[1, 2]".to_owned(),
        request(
            4,
            "tools/call",
            json!({"name": "no_such_tool", "arguments": {}}),
        ),
        request(5, "no/such/method", json!({})),
        request(
            6,
            "tools/call",
            json!({"name": "edit", "arguments":
            {"file": "a.txt", "find": "two", "replace": "2"}}),
        ),
        request(
            7,
            "tools/call",
            json!({"name": "edit", "arguments":
            {"file": "a.txt", "find": "absent", "replace": "x"}}),
        ),
    ];
    let (status, docs) = serve(&repo, &lines);
    assert_eq!(status, Some(0), "{docs:?}");
    let info = &response(&docs, 1)["result"];
    assert_eq!(info["serverInfo"]["name"], "git-identedit", "{info}");
    let tools = response(&docs, 2)["result"]["tools"]
        .as_array()
        .expect("tools");
    assert_eq!(tools.len(), 9, "{tools:?}");
    assert!(tools.iter().all(|t| t["inputSchema"]["type"] == "object"));
    // A line that is not JSON is skipped; JSON that is no request is answered without an id.
    assert!(
        docs.iter()
            .any(|d| d["error"]["code"] == -32600 && d.get("id").is_none()),
        "{docs:?}"
    );
    assert_eq!(response(&docs, 4)["error"]["code"], -32602, "{docs:?}");
    assert_eq!(response(&docs, 5)["error"]["code"], -32601, "{docs:?}");
    let edited = &response(&docs, 6)["result"];
    assert_eq!(edited["isError"], false, "{edited}");
    assert_eq!(edited["structuredContent"]["receipt"]["recorded"], true);
    let refused = &response(&docs, 7)["result"];
    assert_eq!(refused["isError"], true, "{refused}");
    assert_eq!(
        refused["structuredContent"]["error"]["code"],
        "anchor_missing"
    );
    assert_eq!(
        std::fs::read(repo.path().join("a.txt")).expect("a.txt"),
        b"one\n2\n"
    );
}

fn python() -> String {
    std::env::var("IDENTEDIT_MCP_PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

#[test]
fn the_official_python_client_drives_a_session() {
    let importable = Command::new(python())
        .args(["-c", "import mcp, jsonschema"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !importable {
        assert!(
            std::env::var_os("IDENTEDIT_REQUIRE_MCP").is_none(),
            "IDENTEDIT_REQUIRE_MCP is set but `{} -c 'import mcp'` fails",
            python()
        );
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED the_official_python_client_drives_a_session: the MCP Python SDK is not \
             installed (python3 -m pip install mcp); .ci/run installs it and runs this test"
        );
        return;
    }
    let repo = Repo::new();
    repo.write(
        "app.py",
        "def greet(name):\n    return \"hello \" + name\n\n\n\
         def first():\n    x = 1\n    return x\n\n\n\
         def second():\n    x = 1\n    return x\n",
    );
    repo.write("notes.txt", "first line\r\nsecond line\r\n");
    git(repo.path(), &["add", "."]);
    git(repo.path(), &["commit", "-q", "-m", "start"]);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_client.py");
    let out = Command::new(python())
        .arg(script)
        .arg(BIN)
        .arg(repo.path())
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The fenced blocks of one language in the README's "Connect an agent" section.
fn readme_blocks(language: &str) -> Vec<String> {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let section = readme
        .split("## Connect an agent (MCP)")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("the section");
    let fence = format!("```{language}\n");
    section
        .split(&fence)
        .skip(1)
        .filter_map(|rest| rest.split("```").next().map(str::to_owned))
        .collect()
}

#[test]
fn the_readme_agent_configurations_parse() {
    let json_blocks = readme_blocks("json");
    assert_eq!(json_blocks.len(), 1);
    let config: Value = serde_json::from_str(&json_blocks[0]).expect("JSON parses");
    let server = &config["mcpServers"]["identedit"];
    assert_eq!(server["command"], "git");
    assert_eq!(server["args"], json!(["identedit", "mcp"]));
    let toml_blocks = readme_blocks("toml");
    assert_eq!(toml_blocks.len(), 1);
    let config: toml_edit::DocumentMut = toml_blocks[0].parse().expect("TOML parses");
    let server = &config["mcp_servers"]["identedit"];
    assert_eq!(server["command"].as_str(), Some("git"));
    let args: Vec<&str> = server["args"]
        .as_array()
        .expect("args")
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert_eq!(args, ["identedit", "mcp"]);
}

/// One request at a time, so the test can change a file between two calls.
struct Session {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: std::io::BufReader<std::process::ChildStdout>,
}

impl Session {
    fn start(repo: &Repo) -> Self {
        let mut child = repo
            .cmd()
            .arg("mcp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("server starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
        let mut session = Self {
            child,
            stdin,
            stdout,
        };
        let init = json!({"protocolVersion": "2025-06-18", "capabilities": {},
                          "clientInfo": {"name": "raw", "version": "0"}});
        session.send(&request(0, "initialize", init));
        session.receive();
        session.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
        session
    }

    fn send(&mut self, line: &str) {
        self.stdin
            .write_all(format!("{line}\n").as_bytes())
            .expect("write");
    }

    fn receive(&mut self) -> Value {
        use std::io::BufRead;
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("read");
        serde_json::from_str(&line).expect("a JSON line")
    }

    /// Calls a tool; returns (isError, structured content).
    fn call(&mut self, id: i64, tool: &str, arguments: Value) -> (bool, Value) {
        self.send(&request(
            id,
            "tools/call",
            json!({"name": tool, "arguments": arguments}),
        ));
        let response = self.receive();
        assert_eq!(response["id"], id, "{response}");
        let result = &response["result"];
        (
            result["isError"] == true,
            result["structuredContent"].clone(),
        )
    }
}

#[test]
fn an_edit_of_a_file_changed_since_the_read_is_rebased_where_its_region_stands() {
    let repo = Repo::new();
    repo.write("a.txt", "one\ntwo\nthree\n");
    let text = || std::fs::read_to_string(repo.path().join("a.txt")).expect("a.txt");
    let mut session = Session::start(&repo);
    let (error, doc) = session.call(1, "read", json!({"files": ["a.txt"], "mode": "line"}));
    assert!(!error, "{doc}");
    // The agent's own edit keeps its view current.
    let edit = json!({"file": "a.txt", "find": "two", "replace": "2"});
    let (error, doc) = session.call(2, "edit", edit);
    assert!(!error, "{doc}");
    assert_ne!(doc["rebased"], true, "{doc}");
    // Another writer adds a line above and changes the last one: the edit's region stands.
    repo.write("a.txt", "zero\none\n2\nthree!\n");
    let edit = json!({"file": "a.txt", "find": "one", "replace": "1"});
    let (error, doc) = session.call(3, "edit", edit);
    assert!(!error, "{doc}");
    assert_eq!(doc["rebased"], true, "{doc}");
    assert_eq!(
        doc["changed_files"][0]["edits"][0]["rebased_lines"],
        json!({"from": {"start_line": 1, "end_line": 1}, "to": {"start_line": 2, "end_line": 2}}),
        "{doc}"
    );
    assert_eq!(text(), "zero\n1\n2\nthree!\n");
    // A block whose matched text changed since: refused, nothing written.
    repo.write("a.txt", "zero\n1\nTWO\nthree!\n");
    let blocks = "a.txt\n<<<<<<< SEARCH\n1\n2\n=======\n1\n22\n>>>>>>> REPLACE\n";
    let (error, doc) = session.call(4, "apply", json!({"input": blocks}));
    assert!(error, "{doc}");
    assert_eq!(text(), "zero\n1\nTWO\nthree!\n");
    // A region that now occurs twice is refused as ambiguous, naming both places.
    repo.write("a.txt", "zero\n1\nzero\n1\nTWO\n");
    let edit = json!({"file": "a.txt", "find": "zero\n1\n", "replace": "0\n1\n"});
    let (error, doc) = session.call(5, "edit", edit);
    assert!(error, "{doc}");
    assert_eq!(doc["error"]["type"], "ambiguous_target", "{doc}");
    assert_eq!(doc["error"]["details"]["lines"], json!([1, 3]), "{doc}");
    assert_eq!(text(), "zero\n1\nzero\n1\nTWO\n");
    // An explicit whole-file hash refuses any change, even far from the edit.
    let (error, doc) = session.call(6, "read", json!({"files": ["a.txt"], "mode": "line"}));
    assert!(!error, "{doc}");
    let sha = doc["files"][0]["sha256"]
        .as_str()
        .expect("sha256")
        .to_owned();
    repo.write("a.txt", "zero\n1\nzero\n1\nTWO\nmore\n");
    let edit = json!({"file": "a.txt", "find": "TWO", "replace": "2", "expected_sha256": sha});
    let (error, doc) = session.call(7, "edit", edit);
    assert!(error, "{doc}");
    assert_eq!(doc["error"]["code"], "evidence_changed", "{doc}");
    assert_eq!(text(), "zero\n1\nzero\n1\nTWO\nmore\n");
    // Without it, the same edit lands on the current bytes.
    let edit = json!({"file": "a.txt", "find": "TWO", "replace": "2"});
    let (error, doc) = session.call(8, "edit", edit);
    assert!(!error, "{doc}");
    assert_eq!(text(), "zero\n1\nzero\n1\n2\nmore\n");
    drop(session.stdin);
    assert!(session.child.wait().expect("exit").success());
}

#[test]
fn an_mcp_session_and_cli_commands_writing_at_once_lose_nothing() {
    let repo = Repo::new();
    let rounds = 8;
    let numbers =
        |prefix: &str| -> String { (0..rounds).map(|i| format!("{prefix}{i}\n")).collect() };
    repo.write("mcp.txt", numbers("m"));
    repo.write("cli.txt", numbers("c"));
    let mut session = Session::start(&repo);
    let cli = std::thread::scope(|scope| {
        let cli = scope.spawn(|| {
            (0..rounds)
                .map(|i| {
                    let find = format!("--find=c{i}\n");
                    let replace = format!("--replace=C{i}\n");
                    repo.run(&["edit", "cli.txt", &find, &replace])
                        .status
                        .success()
                })
                .collect::<Vec<bool>>()
        });
        for i in 0..rounds {
            let edit = json!({"file": "mcp.txt", "find": format!("m{i}\n"),
                              "replace": format!("M{i}\n")});
            let (error, doc) = session.call(i + 1, "edit", edit);
            assert!(!error, "{doc}");
        }
        cli.join().expect("cli thread")
    });
    assert!(cli.iter().all(|ok| *ok), "{cli:?}");
    assert_eq!(
        std::fs::read_to_string(repo.path().join("mcp.txt")).expect("mcp.txt"),
        numbers("M")
    );
    assert_eq!(
        std::fs::read_to_string(repo.path().join("cli.txt")).expect("cli.txt"),
        numbers("C")
    );
    let (error, doc) = session.call(100, "log", json!({"max_count": 100}));
    assert!(!error, "{doc}");
    let receipts = doc["receipts"].as_array().expect("receipts");
    assert_eq!(receipts.len(), 2 * rounds as usize, "{doc}");
    drop(session.stdin);
    assert!(session.child.wait().expect("exit").success());
}

#[test]
fn the_official_typescript_client_applies_and_is_refused() {
    let loads = Command::new("node")
        .args(["-e", "require('@modelcontextprotocol/sdk/client/index.js')"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !loads {
        assert!(
            std::env::var_os("IDENTEDIT_REQUIRE_MCP_TS").is_none(),
            "IDENTEDIT_REQUIRE_MCP_TS is set but node cannot load @modelcontextprotocol/sdk"
        );
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED the_official_typescript_client_applies_and_is_refused: node or the MCP \
             TypeScript SDK is missing (npm install @modelcontextprotocol/sdk, then NODE_PATH \
             to its node_modules); .ci/run installs it when node is present"
        );
        return;
    }
    let repo = Repo::new();
    repo.write("a.txt", "one\ntwo\n");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_client.cjs");
    let out = Command::new("node")
        .arg(script)
        .arg(BIN)
        .arg(repo.path())
        .output()
        .expect("node runs");
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn patch_config_set_show_and_the_receipt_resource_go_through_the_cli_paths() {
    let repo = Repo::new();
    repo.write("a.txt", "one\ntwo\n");
    repo.write("c.json", "{\n  \"name\": \"x\",\n  \"port\": 80\n}\n");
    let mut session = Session::start(&repo);
    let patch = json!({"file": "a.txt", "at": "file-end", "operation": "insert",
                       "text": "three\n"});
    let (error, doc) = session.call(1, "patch", patch);
    assert!(!error, "{doc}");
    let patch = json!({"file": "a.txt", "find": "two", "operation": "replace", "text": "2"});
    let (error, doc) = session.call(11, "patch", patch);
    assert!(!error, "{doc}");
    assert_eq!(
        std::fs::read(repo.path().join("a.txt")).expect("a.txt"),
        b"one\n2\nthree\n"
    );
    let set = json!({"file": "c.json", "path": "port", "value": 8080});
    let (error, doc) = session.call(2, "config_set", set);
    assert!(!error, "{doc}");
    assert_eq!(
        std::fs::read(repo.path().join("c.json")).expect("c.json"),
        b"{\n  \"name\": \"x\",\n  \"port\": 8080\n}\n"
    );
    let unset = json!({"file": "c.json", "path": "port", "action": "append"});
    let (error, doc) = session.call(3, "config_set", unset);
    assert!(error, "{doc}");
    assert_eq!(doc["error"]["code"], "usage", "{doc}");
    let (error, doc) = session.call(4, "show", json!({}));
    assert!(!error, "{doc}");
    let commit = doc["receipt"]["commit"]
        .as_str()
        .or_else(|| doc["commit"].as_str())
        .unwrap_or_else(|| panic!("a commit in {doc}"))
        .to_owned();
    session.send(&request(5, "resources/list", json!({})));
    let listed = session.receive();
    let uris: Vec<&str> = listed["result"]["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .filter_map(|r| r["uri"].as_str())
        .collect();
    let uri = format!("identedit://receipt/{commit}");
    assert!(uris.contains(&uri.as_str()), "{listed}");
    assert_eq!(uris.len(), 4, "instructions and three receipts: {listed}");
    session.send(&request(6, "resources/read", json!({"uri": uri})));
    let read = session.receive();
    let text = read["result"]["contents"][0]["text"]
        .as_str()
        .expect("text");
    let shown: Value = serde_json::from_str(text).expect("the show document");
    assert_eq!(shown["ok"], true, "{shown}");
    session.send(&request(
        7,
        "resources/read",
        json!({"uri": "identedit://nothing"}),
    ));
    assert!(session.receive()["error"]["code"].is_i64());
    drop(session.stdin);
    assert!(session.child.wait().expect("exit").success());
}
