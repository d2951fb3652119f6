#!/usr/bin/env python3
"""Prints issue 16's table: W1-W5 x (plan / blocks / codex / diff), `git apply`, GNU `patch`, ratio, peak RSS.

Usage: python3 benches/table.py [--bin target/release/git-identedit] [--runs 9] [W1 ...]
Workloads come from ../shared/bench/gen_workloads.py under $PERF/work/<W>/ (PERF defaults to
$TMPDIR/identedit-bench). Each run resets the touched files from pristine/ (not timed), then times
one command; the figure is the median of the runs. Peak RSS is ru_maxrss of the timed child (os.wait4).
Add a row by appending to EXTRA_ROWS (e.g. the pre-commit hook).
"""
import argparse, os, shutil, statistics, subprocess, sys, time

DIALECTS = [("plan", ["apply", "--dialect", "plan", "{wd}/edit.plan.json"]),
            ("blocks", ["apply", "--dialect", "blocks", "{wd}/edit.blocks"]),
            ("codex", ["apply", "--dialect", "codex", "{wd}/edit.codex"]),
            ("diff", ["apply", "--dialect", "diff", "{wd}/edit.diff"])]
EXTRA_ROWS = []  # (label, workload, argv with {wd}/{bin}) appended by other benches


def reset(wd, repo):
    files = open(os.path.join(wd, "files.txt")).read().split()
    for f in files:
        shutil.copyfile(os.path.join(wd, "pristine", f), os.path.join(repo, f))
    subprocess.run(["git", "-C", repo, "update-index", "-q", "--refresh"], stdout=subprocess.DEVNULL)


def timed(argv, cwd):
    t = time.perf_counter()
    p = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    ms = (time.perf_counter() - t) * 1000
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(argv)}")
    return ms, ru.ru_maxrss  # KiB on Linux, this child only


def measure(argv, wd, repo, runs):
    times, rss = [], 0
    for _ in range(runs):
        reset(wd, repo)
        ms, r = timed(argv, repo)
        times.append(ms)
        rss = max(rss, r)
    reset(wd, repo)
    return statistics.median(times), rss // 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.abspath("target/release/git-identedit"))
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("workloads", nargs="*", default=["W1", "W2", "W3", "W4", "W5"])
    a = ap.parse_args()
    perf = os.environ.get("PERF", os.path.join(os.environ.get("TMPDIR", "/tmp"), "identedit-bench"))
    print("| W | plan / blocks / codex / diff (ms) | git apply | GNU patch | ratio | peak RSS MiB |")
    print("|---|---|---|---|---|---|")
    for w in a.workloads:
        wd = os.path.join(perf, "work", w)
        repo = os.path.realpath(os.path.join(wd, "repo"))
        ours, rss = [], 0
        for _, args in DIALECTS:
            argv = [a.bin] + [x.format(wd=wd) for x in args]
            ms, r = measure(argv, wd, repo, a.runs)
            ours.append(ms)
            rss = max(rss, r)
        ga, _ = measure(["git", "apply", f"{wd}/edit.diff"], wd, repo, a.runs)
        pa, _ = measure(["patch", "-s", "-p1", "-i", f"{wd}/edit.diff"], wd, repo, a.runs)
        ratio = max(ours) / ga if ga else float("inf")
        print(f"| {w} | {' / '.join(f'{x:.0f}' for x in ours)} | {ga:.0f} | {pa:.0f} | {ratio:.1f}x | {rss} |")
    for label, w, args in EXTRA_ROWS:
        wd = os.path.join(perf, "work", w)
        repo = os.path.realpath(os.path.join(wd, "repo"))
        ms, r = measure([x.format(wd=wd, bin=a.bin) for x in args], wd, repo, a.runs)
        print(f"| {label} | {ms:.0f} | | | | {r} |")


if __name__ == "__main__":
    main()
