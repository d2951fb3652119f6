#!/usr/bin/env python3
"""Compares two builds on one workload and dialect, runs alternating (A B, B A, ...) so that
the machine's drift falls on both alike; prints each build's median and quartiles in ms.

Usage: PERF=/tmp/identedit-bench python3 benches/ab.py W2 plan 15 /tmp/bin-a /tmp/bin-b
Each run resets the touched files from pristine/ (not timed), as benches/table.py does, and the
last run's result is checked against expected.sha256. Extra environment (IDENTEDIT_FSYNC=false)
applies to both builds.
"""
import os, statistics, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import table  # noqa: E402


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    w, dialect, runs, *bins = sys.argv[1:]
    perf = os.environ.get("PERF", os.path.join(os.environ.get("TMPDIR", "/tmp"), "identedit-bench"))
    wd = os.path.join(perf, "work", w)
    repo = os.path.realpath(open(os.path.join(wd, "repo")).read().strip())
    args = dict(table.DIALECTS)[dialect]
    argv = {b: [os.path.abspath(b)] + [x.format(wd=wd) for x in args] for b in bins}
    times = {b: [] for b in bins}
    for i in range(int(runs)):
        for b in bins if i % 2 == 0 else bins[::-1]:
            table.reset(wd, repo)
            times[b].append(table.timed(argv[b], repo))
            table.check(wd, repo, argv[b])
    table.reset(wd, repo)
    for b in bins:
        xs = sorted(times[b])
        q = len(xs) // 4
        print(f"{b}: median {statistics.median(xs):.1f}  q1 {xs[q]:.1f}  q3 {xs[-1 - q]:.1f} ms")


if __name__ == "__main__":
    main()
