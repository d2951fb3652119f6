#!/usr/bin/env python3
"""Repository-size rows: `hook pre-commit` against `git diff --cached --quiet`, `--version`,
and one plan edit in W1 (django) and W5 (100k files).

usage: PERF=/tmp/identedit-bench python3 benches/hook_scale.py [BIN] [RUNS]

BIN defaults to target/release/git-identedit. Needs the synth corpus (and W1/W5 workloads
for the edit rows) built by ../shared/bench/corpus.sh and gen_workloads.py. The hook row
stages one changed file in the synth repo, times both commands, then restores the index and
the file. Medians of RUNS runs (default 21), wall-clock, in milliseconds.
"""
import os
import shutil
import statistics
import subprocess
import sys
import time

PERF = os.environ.get("PERF", os.path.join(os.environ.get("TMPDIR", "/tmp"), "identedit-bench"))
BIN = os.path.abspath("target/release/git-identedit")
RUNS = 21


def timed(cmd, cwd, prepare=None):
    xs = []
    for _ in range(RUNS):
        if prepare:
            prepare()
        start = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        xs.append((time.perf_counter() - start) * 1e3)
    return statistics.median(xs)


def hook_times(runs=None):
    """(hook ms, `git diff --cached --quiet` ms, files) with one staged file in the synth repo."""
    global RUNS
    if runs:
        RUNS = runs
    repo = os.path.join(PERF, "corpus", "synth")
    path = os.path.join(repo, "pkg05", "mod50", "f50.py")
    with open(path, "rb") as f:
        pristine = f.read()
    try:
        with open(path, "ab") as f:
            f.write(b"# staged change\n")
        subprocess.run(["git", "add", path], cwd=repo, check=True)
        diff = timed(["git", "diff", "--cached", "--quiet"], repo)
        hook = timed([BIN, "hook", "pre-commit"], repo)
    finally:
        with open(path, "wb") as f:
            f.write(pristine)
        subprocess.run(["git", "add", path], cwd=repo, check=True)
    files = len(subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True).stdout.splitlines())
    return hook, diff, files


def hook_row():
    hook, diff, files = hook_times()
    print(f"hook pre-commit, 1 staged of {files} files  {hook:7.2f} ms")
    print(f"git diff --cached --quiet, same repo      {diff:7.2f} ms  ({'ok' if hook <= diff else 'OVER'})")


def edit_row(name):
    work = os.path.join(PERF, "work", name)
    if not os.path.isdir(work):
        print(f"{name}: no workload under {work} (gen_workloads.py {name})")
        return None
    with open(os.path.join(work, "repo")) as f:
        repo = f.read().strip()
    with open(os.path.join(work, "files.txt")) as f:
        files = [l.strip() for l in f if l.strip()]

    def reset():
        for rel in files:
            shutil.copyfile(os.path.join(work, "pristine", rel), os.path.join(repo, rel))

    plan = os.path.join(work, "edit.plan.json")
    ours = timed([BIN, "apply", plan], repo, reset)
    gitapply = timed(["git", "apply", os.path.join(work, "edit.diff")], repo, reset)
    reset()
    print(f"{name} plan edit                             {ours:7.2f} ms  (git apply {gitapply:.2f} ms)")
    return ours


def main():
    global BIN, RUNS
    if len(sys.argv) > 1:
        BIN = os.path.abspath(sys.argv[1])
    if len(sys.argv) > 2:
        RUNS = int(sys.argv[2])
    print(f"{BIN}, {RUNS} runs, medians")
    version = timed([BIN, "--version"], ".")
    print(f"--version                                {version:7.2f} ms  ({'ok' if version < 5 else 'OVER'} < 5 ms)")
    hook_row()
    w1 = edit_row("W1")
    w5 = edit_row("W5")
    if w1 is not None and w5 is not None:
        print(f"W5 - W1                                  {w5 - w1:7.2f} ms  ({'ok' if w5 - w1 <= 2 else 'OVER'} <= 2 ms)")


if __name__ == "__main__":
    main()
