"""Latency of one `apply` (a SEARCH/REPLACE block) through a warm `git identedit mcp` server
(official Python SDK client) vs. one `git identedit apply -` process, on a 4,600-line Python
file in a fresh git repository (the size of workload W1's file).

Usage: python3 benches/mcp_latency.py BIN [N]   (needs `pip install mcp`)
Prints the median and minimum of N calls each, in milliseconds.
"""

import asyncio
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

BIN = sys.argv[1]
N = int(sys.argv[2]) if len(sys.argv) > 2 else 20


def block(old, new):
    return f"big.py\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n"


def make_repo():
    repo = Path(tempfile.mkdtemp(prefix="identedit-mcp-bench-"))
    lines = []
    for i in range(1150):
        lines += [f"def f{i}(x):", f"    return x + {i}", "", ""]
    (repo / "big.py").write_text("\n".join(lines) + "\n")
    env = ["-c", "user.name=b", "-c", "user.email=b@example.invalid"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", *env, "-C", str(repo), "add", "."], check=True)
    subprocess.run(["git", *env, "-C", str(repo), "commit", "-qm", "big"], check=True)
    return repo


def edits():
    """Alternating edits of one line near the middle, so every call changes the file."""
    old, new = "    return x + 777", "    return x - 777"
    for i in range(N):
        yield block(old, new) if i % 2 == 0 else block(new, old)


async def server_times(repo):
    params = StdioServerParameters(command=BIN, args=["mcp", "--repo", str(repo)])
    times = []
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await session.call_tool("log", {})  # warm
            for text in edits():
                start = time.perf_counter()
                result = await session.call_tool("apply", {"input": text})
                times.append(time.perf_counter() - start)
                assert not result.is_error, result.structured_content
    return times


def cli_times(repo):
    times = []
    for text in edits():
        start = time.perf_counter()
        subprocess.run([BIN, "apply", "-"], input=text.encode(), cwd=repo, check=True,
                       stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return times


def report(name, times):
    ms = [t * 1000 for t in times]
    print(f"{name}: median {statistics.median(ms):.1f} ms, min {min(ms):.1f} ms ({len(ms)} calls)")


if __name__ == "__main__":
    for label, measure in (("mcp apply (warm server)", lambda r: asyncio.run(server_times(r))),
                           ("cli apply (one process)", cli_times)):
        repo = make_repo()
        report(label, measure(repo))
        shutil.rmtree(repo)
