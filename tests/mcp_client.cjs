// A short session through the official MCP TypeScript SDK (npm `@modelcontextprotocol/sdk`):
// initialize, tools/list, one apply of SEARCH/REPLACE blocks, one refused edit; the file is
// checked byte for byte. Usage: node tests/mcp_client.cjs BIN REPO (REPO holds a.txt =
// "one\ntwo\n"); the SDK is found through NODE_PATH. Run by tests/cli/mcp.rs.
const fs = require("fs");
const path = require("path");
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");

const [bin, repo] = process.argv.slice(2);

function check(condition, what, detail) {
  if (!condition) {
    console.error(`FAILED: ${what}`, detail === undefined ? "" : JSON.stringify(detail));
    process.exit(1);
  }
  console.log(`ok - ${what}`);
}

async function main() {
  const transport = new StdioClientTransport({
    command: bin,
    args: ["mcp", "--repo", repo],
    env: { ...process.env, XDG_STATE_HOME: path.join(repo, ".identedit") },
  });
  const client = new Client({ name: "identedit-test", version: "0" });
  await client.connect(transport);
  check(client.getServerVersion().name === "git-identedit", "initialize names the server");
  const { tools } = await client.listTools();
  check(tools.length === 9, "tools/list names nine tools", tools.map((t) => t.name));
  const blocks = "a.txt\n<<<<<<< SEARCH\ntwo\n=======\n2\n>>>>>>> REPLACE\n";
  const applied = await client.callTool({ name: "apply", arguments: { input: blocks } });
  check(!applied.isError, "apply succeeds", applied.structuredContent);
  check(applied.structuredContent.receipt.recorded === true, "apply records a receipt");
  const file = path.join(repo, "a.txt");
  check(fs.readFileSync(file, "utf8") === "one\n2\n", "a.txt byte for byte after apply");
  const args = { file: "a.txt", find: "absent", replace: "x" };
  const refused = await client.callTool({ name: "edit", arguments: args });
  check(refused.isError === true, "a refused edit is isError", refused);
  check(refused.structuredContent.error.code === "anchor_missing", "with its code");
  check(fs.readFileSync(file, "utf8") === "one\n2\n", "a.txt unchanged by the refusal");
  await client.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
