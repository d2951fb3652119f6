#!/usr/bin/env python3
"""Prints issue 16's table: W1-W5 x (plan / blocks / codex / diff), `git apply`, GNU `patch`, the
ratio to `git apply`, peak RSS against the memory budget; then the pre-commit hook at 100k files,
`--version`, and W5 against W1.

Usage: PERF=/tmp/identedit-bench python3 benches/table.py [--bin target/release/git-identedit]
           [--runs 9] [W1 ...]
Workloads come from ../shared/bench/gen_workloads.py under $PERF/work/<W>/ (PERF defaults to
$TMPDIR/identedit-bench; the hook row needs $PERF/corpus/synth). The commands of a workload take
turns, one run each per round (see `round_robin`); each run resets the touched files from
pristine/ and refreshes the index (not timed), then times one command. Figures are medians of
the runs, wall-clock from fork to exit, receipts included; the last column, for information, is
the plan dialect on a copy of the files outside any repository, where no receipt is recorded.
After the last run of each command the touched files must hold the expected bytes
(expected.sha256), else the table stops. Peak RSS is the largest of our dialects' ru_maxrss
(through GNU time, one extra run each); the budget is 2 x the largest touched file + 16 MiB.
"""
import argparse, hashlib, os, shutil, statistics, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hook_scale  # noqa: E402

# The workloads are given changes: some change a public signature (W2), and W4's generator
# breaks PHP files (it renames a nowdoc's opening label, `<<<'EOF'` → `<<<'EOF_b192'`, and
# not its closer; `php -l` refuses the result). Both are acknowledged, so every dialect is
# timed on the same change; the gate still parses and reports, and a refusal for any other
# reason (a block matching two places) is printed as such.
ACK = ["--allow-signature-change", "--allow-syntax-errors"]
DIALECTS = [("plan", ["apply", *ACK, "--dialect", "plan", "{wd}/edit.plan.json"]),
            ("blocks", ["apply", *ACK, "--dialect", "blocks", "{wd}/edit.blocks"]),
            ("codex", ["apply", *ACK, "--dialect", "codex", "{wd}/edit.codex"]),
            ("diff", ["apply", *ACK, "--dialect", "diff", "{wd}/edit.diff"])]
MIB = 1024 * 1024


def touched(wd):
    return open(os.path.join(wd, "files.txt")).read().split()


def reset(wd, repo):
    for f in touched(wd):
        shutil.copyfile(os.path.join(wd, "pristine", f), os.path.join(repo, f))
    if os.path.isdir(os.path.join(repo, ".git")):
        subprocess.run(["git", "-C", repo, "update-index", "-q", "--refresh"], stdout=subprocess.DEVNULL)


def check(wd, repo, argv):
    """The touched files hold the bytes the workload expects."""
    for line in open(os.path.join(wd, "expected.sha256")):
        digest, rel = line.split(None, 1)
        with open(os.path.join(repo, rel.strip()), "rb") as f:
            if hashlib.sha256(f.read()).hexdigest() != digest:
                sys.exit(f"wrong result in {rel.strip()}: {' '.join(argv)}")


class Refused(Exception):
    """The command exited non-zero (a dialect that refuses the workload's change)."""


def run(argv, cwd, env=None):
    p = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    if p.returncode == 0:
        return
    if p.stdout.startswith(b"{") and b'"ok":false' in p.stdout:
        raise Refused(p.stdout.split(b'"code":"', 1)[-1].split(b'"', 1)[0].decode())
    sys.exit(f"failed ({p.returncode}): {' '.join(argv)}")


def timed(argv, cwd, env=None):
    t = time.perf_counter()
    run(argv, cwd, env)
    return (time.perf_counter() - t) * 1000


def peak_rss(argv, cwd):
    """ru_maxrss of the command, in MiB, through GNU time: a child forked from this Python
    process would count the interpreter's own pages too (Linux keeps the high-water mark of
    the memory a process had before exec)."""
    out = os.path.join(cwd, ".git", "identedit-bench-rss")
    run(["/usr/bin/time", "-f", "%M", "-o", out] + argv, cwd)
    with open(out) as f:
        kib = int(f.read().split()[-1])
    os.remove(out)
    return kib / 1024


def round_robin(commands, wd, repo, runs):
    """Median ms of each command on workload `wd` (a `Refused` in place of a command that
    refused), each run on the pristine files. The commands take turns, one run each per round,
    starting one further along each round: every file a command creates and deletes makes the
    file system's next inode allocations slower for a while (ext4 skips recently deleted
    inodes), so timing one command's runs after another's would charge the later one for the
    earlier one's churn."""
    times = {name: [] for name in commands}
    refused = {}
    names = list(commands)
    for i in range(runs):
        turn = names[i % len(names):] + names[:i % len(names)]
        for name in (n for n in turn if n not in refused):
            command = commands[name]
            reset(wd, command["cwd"])
            try:
                times[name].append(timed(command["argv"], command["cwd"], command.get("env")))
            except Refused as why:
                refused[name] = why
            if i == runs - 1 and name not in refused:
                check(wd, commands[name]["cwd"], commands[name]["argv"])
    for cwd in {c["cwd"] for c in commands.values()}:
        reset(wd, cwd)
    return {n: refused.get(n) or statistics.median(times[n]) for n in names}


def rss_of(argv, wd, cwd):
    reset(wd, cwd)
    try:
        return peak_rss(argv, cwd)
    except Refused:
        return 0.0
    finally:
        reset(wd, cwd)


def outside_git(wd):
    """The command that gives the informational no-receipt figure: the plan, run on a copy of
    the workload's touched files in `$PERF/work/<W>/no-repo`, where no repository is found
    (`GIT_CEILING_DIRECTORIES` stops the search there), so that no receipt is recorded."""
    root = os.path.join(wd, "no-repo")
    for f in touched(wd):
        os.makedirs(os.path.dirname(os.path.join(root, f)), exist_ok=True)
    env = dict(os.environ, GIT_CEILING_DIRECTORIES=wd)
    argv = [x.format(wd=wd) for x in dict(DIALECTS)["plan"]]
    return {"argv": argv, "cwd": root, "env": env}


def budget(wd):
    largest = max(os.path.getsize(os.path.join(wd, "pristine", f)) for f in touched(wd))
    return (2 * largest + 16 * MIB) / MIB


def workload_row(w, perf, binary, runs):
    wd = os.path.join(perf, "work", w)
    repo = os.path.realpath(open(os.path.join(wd, "repo")).read().strip())
    ours = {name: [binary] + [x.format(wd=wd) for x in args] for name, args in DIALECTS}
    commands = {name: {"argv": argv, "cwd": repo} for name, argv in ours.items()}
    commands["git apply"] = {"argv": ["git", "apply", f"{wd}/edit.diff"], "cwd": repo}
    commands["patch"] = {"argv": ["patch", "-s", "-p1", "-i", f"{wd}/edit.diff"], "cwd": repo}
    commands["no receipt"] = outside_git(wd)
    commands["no receipt"]["argv"].insert(0, binary)
    ms = round_robin(commands, wd, repo, runs)
    rss = max(rss_of(argv, wd, repo) for argv in ours.values())
    ga_rss = rss_of(commands["git apply"]["argv"], wd, repo)
    timed_ours = [ms[n] for n in ours if isinstance(ms[n], float)]
    ga = ms["git apply"]
    ratio = max(timed_ours) / ga if timed_ours and ga else float("inf")
    cap = budget(wd)
    mem = f"{rss:.1f} / {cap:.1f} {'ok' if rss <= cap else 'OVER'}"
    cell = lambda x: f"{x:.1f}" if isinstance(x, float) else f"refused ({x})"
    print(f"| {w} | {' / '.join(cell(ms[n]) for n in ours)} | {cell(ga)} | {cell(ms['patch'])} "
          f"| {ratio:.2f}x | {mem} | {ga_rss:.1f} | {cell(ms['no receipt'])} |", flush=True)
    return ms["plan"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.abspath("target/release/git-identedit"))
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("workloads", nargs="*", default=["W1", "W2", "W3", "W4", "W5"])
    a = ap.parse_args()
    binary = os.path.abspath(a.bin)
    perf = os.environ.get("PERF", os.path.join(os.environ.get("TMPDIR", "/tmp"), "identedit-bench"))
    print(f"{binary}, {a.runs} runs, medians in ms")
    print()
    print("| W | ours: plan / blocks / codex / diff | git apply | GNU patch | ratio (slowest of ours / git apply) "
          "| our peak RSS / budget MiB | git apply RSS MiB | plan without receipt (info) |")
    print("|---|---|---|---|---|---|---|---|")
    plan_ms = {w: workload_row(w, perf, binary, a.runs) for w in a.workloads}
    hook_scale.BIN, hook_scale.PERF, hook_scale.RUNS = binary, perf, max(a.runs, 9)
    print()
    print("| row | ours | reference | target |")
    print("|---|---|---|---|")
    if os.path.isdir(os.path.join(perf, "corpus", "synth")):
        hook, diff, files = hook_scale.hook_times()
        print(f"| hook pre-commit, 1 staged of {files} files | {hook:.1f} | git diff --cached --quiet "
              f"{diff:.1f} | {'ok' if hook <= diff else 'OVER'} (<= reference) |")
    version = hook_scale.timed([binary, "--version"], ".")
    print(f"| --version | {version:.2f} | | {'ok' if version < 5 else 'OVER'} (< 5 ms) |")
    if "W1" in plan_ms and "W5" in plan_ms:
        d = plan_ms["W5"] - plan_ms["W1"]
        print(f"| W5 - W1 (plan) | {d:.1f} | | {'ok' if d <= 2 else 'OVER'} (<= 2 ms) |")


if __name__ == "__main__":
    main()
