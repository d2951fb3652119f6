"""Many agents, one repository: N processes acting as coding agents apply a stream of small
plans, in mixed dialects, to a shared set of files of one git repository, for a while.

Usage: python3 benches/multi_agent.py BIN [--agents 8] [--files 20] [--seconds 60]
                                          [--mode shared|disjoint] [--slots 4] [--json]

Every file holds, for every agent, `--slots` functions only that agent edits (its regions),
and one `HOT = n` line every agent bumps (an overlapping edit: it is built from a read of the
file, so it refuses when another agent bumped it in between). An agent's plan on its own
region is one of: exact find/replace (`edit`), a source_edit_plan (`apply`), Aider SEARCH/REPLACE, Codex patch, unified diff
(line numbers from the agent's own read), a `LINE:HASH` anchor (`patch --at`, from the same
read), a symbol replacement (`patch --symbol`); a quarter of them insert a statement (which
shifts every line below it, so other agents' line numbers and anchors go stale and must be
rebased). Plans run with `--wait 60`.

`--mode disjoint` gives every agent its own files (file k belongs to agent k mod N) and no hot
line: the scaling case (compare `--agents 1` with `--agents 8`).

At the end the content of every file is rebuilt from what the agents know landed (each agent
alone changes its regions; HOT is bumped once per landed bump) and compared byte for byte:
a landed edit missing is a lost update, any other difference a corrupt file. The receipts in
`refs/identedit/log` must count the landed plans. Exit 1 when an update is lost, a file is
corrupt, a receipt is missing or a plan on an agent's own regions did not land.
"""

import argparse
import hashlib
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

DIALECTS = ["edit", "aider", "codex", "diff", "anchor", "symbol", "plan"]


def git(repo, *args):
    env = ["-c", "user.name=b", "-c", "user.email=b@example.invalid"]
    subprocess.run(["git", *env, "-C", str(repo), *args], check=True, capture_output=True)


class Region:
    """One function an agent owns: its value and the statements it inserted (newest first)."""

    def __init__(self, name):
        self.name = name
        self.value = 0
        self.notes = []

    def lines(self, value=None, notes=None):
        value = self.value if value is None else value
        notes = self.notes if notes is None else notes
        body = [f"    {n} = 1" for n in notes]
        return [f"def {self.name}():", *body, f'    return ("{self.name}", {value})']

    def text(self, **kw):
        return "\n".join(self.lines(**kw)) + "\n"


def layout(k, agents, slots):
    regions = {(a, s): Region(f"a{a}_s{s}") for a in range(agents) for s in range(slots)}
    return {"name": f"f{k:02}.py", "hot": 0, "regions": regions}


def render(f):
    out = [f"# file {f['name']}", f"HOT = {f['hot']}", ""]
    for region in f["regions"].values():
        out += region.lines() + ["", ""]
    return "\n".join(out).rstrip("\n") + "\n"


def make_repo(files):
    repo = Path(tempfile.mkdtemp(prefix="identedit-agents-"))
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    for f in files:
        (repo / f["name"]).write_text(render(f))
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "base")
    return repo


def line_of(path, text):
    """1-based line of `text` (a whole line) in the file as the agent reads it now."""
    for n, line in enumerate(path.read_text().split("\n"), 1):
        if line == text:
            return n
    return None


def plan(dialect, repo, fname, region, insert, note):
    """The command line and stdin of one plan on `region`, and what it leaves there."""
    old = region.text()
    new_value = region.value if insert else region.value + 1
    new_notes = [note, *region.notes] if insert else region.notes
    new = region.text(value=new_value, notes=new_notes)
    result = (new_value, new_notes)
    old_l, new_l = old.rstrip("\n").split("\n"), new.rstrip("\n").split("\n")
    if dialect == "edit":
        return ["edit", fname, "--find", old, "--replace", new], "", result
    if dialect == "plan":
        doc = {"type": "source_edit_plan", "contract_version": "1.0",
               "edits": [{"path": fname, "find": old, "replace": new}]}
        return ["apply", "-"], json.dumps(doc), result
    if dialect == "aider":
        block = f"{fname}\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n"
        return ["apply", "-"], block, result
    if dialect in ("codex", "diff"):
        body = diff_body(old_l, new_l)
        if dialect == "codex":
            text = f"*** Begin Patch\n*** Update File: {fname}\n@@\n{body}*** End Patch\n"
            return ["apply", "-"], text, result
        start = line_of(repo / fname, old_l[0]) or 1
        head = f"@@ -{start},{len(old_l)} +{start},{len(new_l)} @@\n"
        return ["apply", "-"], f"--- a/{fname}\n+++ b/{fname}\n{head}{body}", result
    if dialect == "anchor":
        target = old_l[0] if insert else old_l[-1]
        line = line_of(repo / fname, target) or 1
        anchor = f"{line}:{hashlib.sha256(target.encode()).hexdigest()[:8]}"
        # A line number read before another agent's insertion landed is stale before the
        # preflight: rebased because the ledger holds the version it was read from. Anchors
        # that go stale while the plan queues on the lock are rebased under the lock.
        repair = []
        if insert:
            return ["patch", fname, "--at", anchor, "--insert-after-line", f"    {note} = 1",
                    *repair], "", result
        return ["patch", fname, "--at", anchor, "--replace", new_l[-1], *repair], "", result
    # symbol
    return ["patch", fname, "--symbol", region.name, "--replace", new.rstrip("\n")], "", result


def diff_body(old_l, new_l):
    """Context, removed and added lines of a one-region change (common prefix and suffix)."""
    p = 0
    while p < min(len(old_l), len(new_l)) and old_l[p] == new_l[p]:
        p += 1
    s = 0
    while s < min(len(old_l), len(new_l)) - p and old_l[-1 - s] == new_l[-1 - s]:
        s += 1
    out = [f" {l}" for l in old_l[:p]]
    out += [f"-{l}" for l in old_l[p:len(old_l) - s]]
    out += [f"+{l}" for l in new_l[p:len(new_l) - s]]
    out += [f" {l}" for l in old_l[len(old_l) - s:]]
    return "\n".join(out) + "\n"


def run(bin_, repo, args, stdin):
    start = time.perf_counter()
    out = subprocess.run([bin_, *args, "--format", "json", "--wait", "60"], cwd=repo,
                         input=stdin, capture_output=True, text=True)
    took = time.perf_counter() - start
    try:
        doc = json.loads(out.stdout)
    except json.JSONDecodeError:
        doc = {"ok": False, "error": {"code": f"unparsed(rc={out.returncode})"}}
    return out.returncode, doc, took


def agent(a, cfg, files, repo, deadline, stats, lock):
    rng = random.Random(a)
    mine = [f for k, f in enumerate(files) if cfg.mode == "shared" or k % cfg.agents == a]
    n = 0
    while time.perf_counter() < deadline:
        f = rng.choice(mine)
        n += 1
        hot = cfg.mode == "shared" and rng.random() < 0.125
        if hot:
            value = int(line_of_hot(repo / f["name"]))
            args = ["edit", f["name"], "--find", f"HOT = {value}\n", "--replace", f"HOT = {value + 1}\n"]
            rc, doc, took = run(cfg.bin, repo, args, "")
            with lock:
                record(stats, "hot", "edit", rc, doc, took, doc.get("rebased"))
                if rc == 0:
                    f["hot"] += 1
            continue
        region = f["regions"][(a, rng.randrange(cfg.slots))]
        dialect = DIALECTS[n % len(DIALECTS)]
        insert = rng.random() < 0.25
        args, stdin, (value, notes) = plan(dialect, repo, f["name"], region, insert, f"n{n}")
        rc, doc, took = run(cfg.bin, repo, args, stdin)
        with lock:
            record(stats, "own", dialect, rc, doc, took, doc.get("rebased"))
        if rc == 0:
            region.value, region.notes = value, notes


def line_of_hot(path):
    for line in path.read_text().split("\n"):
        if line.startswith("HOT = "):
            return line[6:]
    raise RuntimeError("no HOT line")


def record(stats, kind, dialect, rc, doc, took, rebased):
    s = stats.setdefault(kind, {"plans": 0, "landed": 0, "rebased": 0, "refused": Counter(),
                                "latency": [], "by_dialect": Counter()})
    s["plans"] += 1
    s["latency"].append(took)
    s["by_dialect"][dialect] += 1
    if rc == 0:
        s["landed"] += 1
        s["rebased"] += bool(rebased)
    else:
        s["refused"][(doc.get("error") or {}).get("code", f"rc={rc}")] += 1


def check(cfg, files, repo, landed):
    lost, corrupt = 0, 0
    for f in files:
        now = (repo / f["name"]).read_text()
        want = render(f)
        if now != want:
            corrupt += 1
            for region in f["regions"].values():
                lost += region.text() not in now
            lost += f"HOT = {f['hot']}\n" not in now
        try:
            compile(now, f["name"], "exec")
        except SyntaxError:
            corrupt += 1
    out = subprocess.run([cfg.bin, "log", "-n", "100000000", "--json"], cwd=repo,
                         capture_output=True, text=True)
    receipts = len(json.loads(out.stdout)["receipts"])
    leftovers = [p.name for p in repo.iterdir() if p.name.startswith(".") and p.name != ".git"]
    return {"lost_updates": lost, "corrupt_files": corrupt, "receipts": receipts,
            "receipts_match_landed": receipts == landed, "leftover_files": leftovers}


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] * 1000 if values else 0.0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("bin")
    p.add_argument("--agents", type=int, default=8)
    p.add_argument("--files", type=int, default=20)
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--slots", type=int, default=4)
    p.add_argument("--mode", choices=["shared", "disjoint"], default="shared")
    p.add_argument("--json", action="store_true")
    cfg = p.parse_args()
    cfg.bin = str(Path(cfg.bin).resolve())
    files = [layout(k, cfg.agents, cfg.slots) for k in range(cfg.files)]
    repo = make_repo(files)
    stats, lock = {}, threading.Lock()
    start = time.perf_counter()
    deadline = start + cfg.seconds
    threads = [threading.Thread(target=agent, args=(a, cfg, files, repo, deadline, stats, lock))
               for a in range(cfg.agents)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - start
    landed = sum(s["landed"] for s in stats.values())
    plans = sum(s["plans"] for s in stats.values())
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_ms = (usage.ru_utime + usage.ru_stime) * 1000 / max(plans, 1)
    own = resource.getrusage(resource.RUSAGE_SELF)
    harness_ms = (own.ru_utime + own.ru_stime) * 1000 / max(plans, 1)
    cores = len(os.sched_getaffinity(0))
    report = {"agents": cfg.agents, "files": cfg.files, "mode": cfg.mode,
              "seconds": round(elapsed, 1), "landed_per_second": round(landed / elapsed, 2),
              # CPU of the identedit processes (and the git setup) per plan: with `cores`
              # cores, no number of agents lands more than cores * 1000 / cpu_ms plans/s.
              # The harness itself (reading files, building plans, spawning) runs beside them.
              "cpu_ms_per_plan": round(cpu_ms, 2), "harness_cpu_ms_per_plan": round(harness_ms, 2),
              "cores": cores, "load_average": os.getloadavg()[0],
              "cpu_bound_plans_per_second":
                  round(cores * 1000 / (cpu_ms + harness_ms), 1) if cpu_ms else None}
    refused = sum((s["refused"] for s in stats.values()), Counter())
    report["plans"], report["landed"] = plans, landed
    report["landed_fraction"] = round(landed / max(plans, 1), 4)
    report["refused"] = dict(refused)
    for kind, s in stats.items():
        report[kind] = {"plans": s["plans"], "landed": s["landed"],
                        "landed_fraction": round(s["landed"] / s["plans"], 4),
                        "rebased": s["rebased"], "refused": dict(s["refused"]),
                        "by_dialect": dict(s["by_dialect"]),
                        "p50_ms": round(pct(s["latency"], 0.5), 1),
                        "p99_ms": round(pct(s["latency"], 0.99), 1)}
    report["check"] = check(cfg, files, repo, landed)
    shutil.rmtree(repo)
    if cfg.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"{cfg.agents} agents, {cfg.files} files ({cfg.mode}), {report['seconds']} s: "
              f"{report['landed_per_second']} landed plans/s; CPU per plan {report['cpu_ms_per_plan']}"
              f" ms (+ {report['harness_cpu_ms_per_plan']} ms harness), so at most "
              f"{report['cpu_bound_plans_per_second']}/s on {report['cores']} cores "
              f"(load average at the end {report['load_average']:.1f})")
        print(f"  all  plans {plans:6}  landed {report['landed_fraction']:.2%}  "
              f"refused {report['refused']}")
        for kind in ("own", "hot"):
            if kind in report:
                r = report[kind]
                print(f"  {kind:4} plans {r['plans']:6}  landed {r['landed_fraction']:.2%}  "
                      f"rebased {r['rebased']}  p50 {r['p50_ms']} ms  p99 {r['p99_ms']} ms  "
                      f"refused {r['refused']}")
        c = report["check"]
        print(f"  lost updates {c['lost_updates']}, corrupt files {c['corrupt_files']}, "
              f"receipts {c['receipts']} (match landed: {c['receipts_match_landed']})")
    # The targets: nothing lost or corrupt, and every plan on a region no other agent changes
    # (its own functions) lands.
    own = report.get("own", {"plans": 0, "landed": 0})
    ok = (report["check"]["lost_updates"] == 0 and report["check"]["corrupt_files"] == 0
          and own["landed"] == own["plans"] and report["check"]["receipts_match_landed"])
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
