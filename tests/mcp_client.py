"""A scripted agent session through the official MCP Python SDK (PyPI `mcp`).

Usage: python3 tests/mcp_client.py BIN REPO. REPO is a git repository holding the committed
files below; the server is started as `BIN mcp --repo REPO` from another directory. Run by
tests/cli/mcp.rs. Every step checks the files byte for byte.
"""

import asyncio
import hashlib
import os
import sys
import tempfile
from pathlib import Path

import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

BIN, REPO = sys.argv[1], Path(sys.argv[2])
APP = REPO / "app.py"
NOTES = REPO / "notes.txt"

TOOLS = {"read", "edit", "patch", "apply", "config_set", "verify", "undo", "log", "show"}

APP_0 = (
    'def greet(name):\n    return "hello " + name\n\n\n'
    "def first():\n    x = 1\n    return x\n\n\n"
    "def second():\n    x = 1\n    return x\n"
)
APP_1 = APP_0.replace('"hello "', '"hi "')
APP_2 = APP_1 + "\n\ndef third():\n    return 3\n"
APP_3 = APP_2.replace('"hi "', '"hey "')
NOTES_0 = "first line\r\nsecond line\r\n"
NOTES_1 = "first line\r\nSECOND line\r\n"

REPLY = """I'll change the greeting.

app.py
```python
<<<<<<< SEARCH
    return "hello " + name
=======
    return "hi " + name
>>>>>>> REPLACE
```
"""

CODEX = """*** Begin Patch
*** Update File: notes.txt
@@
 first line
-second line
+SECOND line
*** End Patch
"""


def check(condition, what, result=None):
    if not condition:
        detail = "" if result is None else f"\n{result}"
        raise SystemExit(f"FAILED: {what}{detail}")
    print(f"ok - {what}")


def files_are(app, notes, what):
    check(APP.read_bytes() == app.encode(), f"app.py byte for byte after {what}")
    check(NOTES.read_bytes() == notes.encode(), f"notes.txt byte for byte after {what}")


async def call(session, name, arguments, expect_error=False):
    result = await session.call_tool(name, arguments)
    doc = result.structured_content
    check(isinstance(doc, dict), f"{name}: structured content", result)
    check(bool(result.is_error) == expect_error, f"{name}: is_error is {expect_error}", doc)
    check(result.content and result.content[0].type == "text", f"{name}: a text rendering")
    return doc


async def tools_are_listed(session):
    tools = (await session.list_tools()).tools
    check({t.name for t in tools} == TOOLS, "tools/list names every tool")
    for tool in tools:
        jsonschema.Draft202012Validator.check_schema(tool.input_schema)
        check(tool.input_schema.get("type") == "object", f"{tool.name}: an object schema")
        check(bool(tool.description), f"{tool.name}: a description")
    apply = next(t for t in tools if t.name == "apply")
    check("input" in apply.input_schema.get("required", []), "apply requires `input`")


async def session_steps(session):
    init = await session.initialize()
    check(init.server_info.name == "git-identedit", "initialize names the server")
    check(bool(init.instructions), "initialize carries the instructions")
    await tools_are_listed(session)

    doc = await call(session, "read", {"files": ["app.py"]})
    sha = hashlib.sha256(APP_0.encode()).hexdigest()
    check(doc["files"][0]["sha256"] == sha, "read reports the file's sha256", doc)

    doc = await call(session, "apply", {"input": REPLY})
    check(doc["receipt"]["recorded"] is True, "apply (SEARCH/REPLACE reply) records a receipt", doc)
    files_are(APP_1, NOTES_0, "the SEARCH/REPLACE reply")

    doc = await call(session, "apply", {"input": CODEX, "dialect": "codex"})
    check(doc["receipt"]["recorded"] is True, "apply (Codex patch) records a receipt", doc)
    files_are(APP_1, NOTES_1, "the Codex patch")

    edit = {"file": "app.py", "find": "    x = 1\n", "replace": "    x = 2\n"}
    doc = await call(session, "edit", edit, expect_error=True)
    error = doc["error"]
    check(error["code"] == "anchor_ambiguous", "an ambiguous edit is refused", doc)
    check(bool(error.get("next_action")), "the refusal names the next action", doc)
    files_are(APP_1, NOTES_1, "the refused edit")

    APP.write_bytes(APP_2.encode())  # someone else changes the file the agent read
    # The edit's region is as the agent read it: it lands on the file as it is now, rebased.
    greeting = {"file": "app.py", "find": '"hi "', "replace": '"hey "'}
    doc = await call(session, "edit", greeting)
    check(doc["rebased"] is True, "an edit whose region nobody changed lands rebased", doc)
    files_are(APP_3, NOTES_1, "the rebased edit")
    await call(session, "read", {"files": ["app.py"], "mode": "line"})

    doc = await call(session, "verify", {})
    check(doc["ok"] is True, "verify passes the newest receipt", doc)

    doc = await call(session, "undo", {})
    files_are(APP_2, NOTES_1, "undo")

    doc = await call(session, "log", {"max_count": 10})
    check(len(doc["receipts"]) == 4, "log lists the four receipts", doc)

    doc = await call(session, "read", {"files": ["app.py"], "bogus": 1}, expect_error=True)
    check(doc["error"]["code"] == "usage", "an unknown argument is a usage refusal", doc)

    resources = (await session.list_resources()).resources
    uris = [str(r.uri) for r in resources]
    check("identedit://instructions" in uris, "the instructions are a resource")
    check(sum(u.startswith("identedit://receipt/") for u in uris) == 4, "one resource per receipt")
    text = (await session.read_resource("identedit://instructions")).contents[0].text
    check("git identedit" in text, "the instructions resource reads")


async def main():
    params = StdioServerParameters(
        command=BIN,
        args=["mcp", "--repo", str(REPO)],
        cwd=tempfile.gettempdir(),
        env={"XDG_STATE_HOME": str(REPO / ".identedit")},
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session_steps(session)
    print("all steps passed")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    asyncio.run(main())
