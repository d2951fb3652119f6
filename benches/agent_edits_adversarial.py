#!/usr/bin/env python3
"""Hand-written adversarial agent edits, independent of benches/agent_edits.py's generator.

    python3 benches/agent_edits_adversarial.py BINARY [--show] [--dialect-flag] [--only NAME]

Each scenario is a realistic file (Django-style Python, Symfony-style PHP, tab-indented code,
2-space YAML/JS, CRLF files, trailing whitespace) and an edit written the way agents write it
(fenced blocks, `**path**` filenames, `./` paths, elision markers, diffs with wrong numbers or
counts, blank context lines without their space, Codex `@@ def` anchors...). The expectation is
the exact bytes of every file afterwards, or a refusal (nothing written). A scenario is
"correct" when the result matches, "refused" when a correct edit was refused (nothing written),
and "WRONG" on any other outcome: wrong bytes, or a write where refusing was the answer.
With --git, the diff scenarios are also run through `git apply` for comparison.
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from adversarial_cases import SCENARIOS  # noqa: E402

ENV = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@x",
       "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@x"}


def setup(files):
    repo = tempfile.mkdtemp(prefix="adv-")
    subprocess.run(["git", "init", "-q", repo], check=True)
    for rel, data in files.items():
        path = os.path.join(repo, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data.encode())
    subprocess.run(["git", "-C", repo, "add", "-A"], check=True)
    subprocess.run(["git", "-C", repo, "commit", "-q", "-m", "base"], check=True, env=ENV)
    return repo


def snapshot(repo, files):
    out = {}
    for rel in files:
        path = os.path.join(repo, rel)
        out[rel] = open(path, "rb").read().decode() if os.path.exists(path) else None
    return out


def judge(sc, rc, before, after):
    exp = sc["expect"]
    if exp == "refuse":
        return "correct" if rc != 0 and after == before else "WRONG"
    want = dict(before)
    want.update(exp)
    if rc == 0 and after == want:
        return "correct"
    if rc != 0 and after == before:
        return "refused"
    return "WRONG"


def run_one(binary, sc, dialect_flag):
    repo = setup(sc["files"])
    before = snapshot(repo, list(sc["files"]) + list(sc["expect"] if isinstance(sc["expect"], dict) else []))
    args = [binary, "apply", "-"]
    if dialect_flag:
        args += ["--dialect", sc["dialect"]]
    p = subprocess.run(args, input=sc["edit"].encode(), cwd=repo, capture_output=True, env=ENV)
    after = snapshot(repo, list(before))
    shutil.rmtree(repo)
    verdict = judge(sc, p.returncode, before, after)
    gitv = None
    if sc["dialect"] == "diff" and "--git" in sys.argv:
        repo2 = setup(sc["files"])
        g = subprocess.run(["git", "apply", "-"], input=sc["edit"].encode(), cwd=repo2, capture_output=True)
        gitv = judge(sc, g.returncode, before, snapshot(repo2, list(before)))
        shutil.rmtree(repo2)
    return verdict, p, before, after, gitv


def main():
    args = sys.argv[1:]
    binary = args[0]
    only = args[args.index("--only") + 1] if "--only" in args else None
    table, wrong = {}, []
    for sc in SCENARIOS:
        if only and only not in sc["name"]:
            continue
        verdict, p, before, after, gitv = run_one(binary, sc, "--dialect-flag" in args)
        table.setdefault(sc["cls"], []).append(verdict)
        g = f" (git apply: {gitv})" if gitv else ""
        if verdict != "correct" or "--show" in args:
            print(f"{verdict:8} {sc['dialect']:6} {sc['cls']:20} {sc['name']}{g}")
            if "--show" in args and verdict != "correct":
                print(p.stdout.decode()[-1500:], p.stderr.decode()[-800:])
                if verdict == "WRONG":
                    for rel in after:
                        if after[rel] != (sc["expect"].get(rel, before[rel]) if isinstance(sc["expect"], dict) else before[rel]):
                            print(f"  {rel} got:\n{after[rel]!r}")
        wrong += [sc["name"]] if verdict == "WRONG" else []
    total = {"correct": 0, "refused": 0, "WRONG": 0}
    print(f"\n{'class':22} correct refused WRONG")
    for cls, vs in table.items():
        c = {k: vs.count(k) for k in total}
        for k in total:
            total[k] += c[k]
        print(f"{cls:22} {c['correct']:7} {c['refused']:7} {c['WRONG']:5}")
    n = sum(total.values())
    print(f"{'total':22} {total['correct']:7} {total['refused']:7} {total['WRONG']:5}  "
          f"({100.0 * total['correct'] / max(n, 1):.1f}% correct of {n})")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
