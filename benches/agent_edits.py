#!/usr/bin/env python3
"""Agent-edit scenarios for the text dialects: correct / wrong / refused per class and dialect.

    python3 benches/agent_edits.py BINARY [BINARY2 ...] [--per-class N] [--seed S]

Edits are made on real code (Python's standard library and this repository's Rust sources):
a window of lines, one line changed or one comment line inserted. Each class adds a mistake
agents make (or a file state) and says what is correct: the intended bytes, a refusal, or
either (`...` elision). "wrong" is anything else that reports success or changes the file:
wrong bytes, a wrong place, or success without the intended change.
"""
import glob
import os
import random
import shutil
import subprocess
import sys
import tempfile

CLASSES = [
    "clean", "short_block", "trailing_ws_lost", "indent_shifted", "tabs_vs_spaces", "crlf_file_lf_edit",
    "curly_punctuation", "leading_blank_line", "elision", "stale_line_numbers",
    "already_applied", "ambiguous", "stale_text", "wrong_twin",
]
DIALECTS = ["blocks", "codex", "diff"]
REFUSE = {"ambiguous", "stale_text", "wrong_twin"}


def sources():
    py = sorted(glob.glob("/usr/lib/python3*/[a-z]*.py"))
    py += sorted(glob.glob("/usr/lib/python3*/email/*.py"))
    rs = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "..", "src", "*", "*.rs")))
    return [p for p in py + rs if 2000 < os.path.getsize(p) < 200_000]


def indent_of(line):
    return line[: len(line) - len(line.lstrip(" \t"))]


def loose(line):
    return line.strip()


def pick(rng, lines, need_quotes=False, short=False):
    """A window (start, length, changed index, insert?) that is unique even loosely (a short
    one: unique exactly; whether it is loosely unique too decides what is correct)."""
    keys = [loose(l) for l in lines] if not short else list(lines)
    for _ in range(400):
        n = rng.randint(3, 3) if short else rng.randint(4, 7)
        s = rng.randrange(1, max(2, len(lines) - n - 1))
        win = lines[s:s + n]
        if any(l.rstrip("\n").endswith("\\") or "\t" in l for l in win):
            continue
        if sum(1 for l in win if l.strip()) < 3:
            continue
        c = rng.randrange(1, n - 1)
        if not win[c].strip() or '"""' in win[c] or "'''" in win[c]:
            continue
        if need_quotes and not any(('"' in l or "'" in l) for i, l in enumerate(win) if i != c):
            continue
        want = keys[s:s + n]
        hits = sum(1 for i in range(len(keys) - n + 1) if keys[i:i + n] == want)
        if hits == 1 and lines[s - 1].strip():
            return s, n, c, rng.random() < 0.4
    return None


def comment(path):
    return "//" if path.endswith(".rs") else "#"


def curly(text):
    out, open_d, open_s = [], True, True
    for ch in text:
        if ch == '"':
            out.append("\u201c" if open_d else "\u201d")
            open_d = not open_d
        elif ch == "'":
            out.append("\u2019")
        else:
            out.append(ch)
    return "".join(out)


def tabify(line):
    ind = indent_of(line)
    if "\t" in ind:
        return line
    return "\t" * (len(ind) // 4) + " " * (len(ind) % 4) + line[len(ind):]


def build(rng, path, cls):
    """(file bytes before, edit entries, expected file or None for refusal/noop, extras)."""
    lines = open(path, encoding="utf-8").read().splitlines(keepends=True)
    if not lines or not lines[-1].endswith("\n"):
        return None
    short = cls == "short_block"
    got = pick(rng, lines, need_quotes=(cls == "curly_punctuation"), short=short)
    if not got:
        return None
    s, n, c, insert = got
    # A retried append: REPLACE is SEARCH plus a line after it (the search still matches).
    append = cls == "already_applied" and rng.random() < 0.5
    if append:
        c, insert = n - 1, True
    reverse = rng.random() < 0.5
    mark = comment(path)
    win = [l.rstrip("\n") for l in lines[s:s + n]]
    file_lines = list(lines)
    # The edit, as (mark, text): ' ' context, '-' removed, '+' added.
    entries = []
    for i, t in enumerate(win):
        if i != c:
            entries.append((" ", t))
        elif insert:
            entries.append((" ", t))
            entries.append(("+", f"{indent_of(t)}{mark} note"))
        else:
            entries.append(("-", t))
            entries.append(("+", f"{t}  {mark} changed"))
    # The file after the clean edit (LF, spaces).
    def applied(flines, conv=lambda x: x, term="\n"):
        out = list(flines)
        if insert:
            out.insert(s + c + 1, conv(f"{indent_of(win[c])}{mark} note") + term)
        else:
            out[s + c] = conv(f"{win[c]}  {mark} changed") + term
        return out
    expected = applied(file_lines)
    before = list(file_lines)
    refuse = cls in REFUSE
    hint = s + 1
    if cls == "trailing_ws_lost":
        for i in range(s, s + n):
            if before[i].strip():
                before[i] = before[i].rstrip("\n") + "  \n"
        expected = applied(before)
        if not insert:
            expected[s + c] = f"{win[c]}  {mark} changed\n"
    elif cls == "indent_shifted":
        common = min(len(indent_of(t)) for m, t in entries if t.strip())
        shift = common if common >= 4 else -4
        entries = [(m, t[shift:] if shift > 0 and t.strip() else (" " * -shift + t if t.strip() else t)) for m, t in entries]
    elif cls == "tabs_vs_spaces" and reverse:
        entries = [(m, tabify(t)) for m, t in entries]
    elif cls == "tabs_vs_spaces":
        before = [tabify(l) for l in before]
        expected = applied(before, tabify)
    elif cls == "crlf_file_lf_edit" and reverse:
        hint = -hint
    elif cls == "crlf_file_lf_edit":
        before = [l[:-1] + "\r\n" for l in before]
        expected = applied(before, term="\r\n")
    elif cls == "curly_punctuation":
        # Curled on the unchanged lines, or (half the time) on every line of the edit.
        entries = [(m, curly(t) if m == " " or reverse else t) for m, t in entries]
    elif cls == "leading_blank_line":
        entries = [(" ", "")] + entries
    elif cls == "elision":
        if c < 3:
            return None
        entries = entries[:1] + [(" ", "...")] + entries[c - 1:]
    elif cls == "stale_line_numbers":
        hint = s + 1 + 37
    elif cls == "already_applied":
        before = list(expected)
    elif cls == "ambiguous":
        before = before[: s + n] + before[s:s + n] + before[s + n:]
    elif cls == "stale_text":
        before[s + c] = before[s + c].rstrip("\n") + f"  {mark} someone else\n"
    elif cls == "wrong_twin":
        twin = ["    " + l if l.strip() else l for l in before[s:s + n]]
        before = before[: s + n] + twin + before[s + n:]
        entries = [(m, "    " + t if t.strip() else t) for m, t in entries]
    if short:
        want = [loose(l) for l in lines[s:s + n]]
        keys = [loose(l) for l in lines]
        twins = sum(1 for i in range(len(keys) - n + 1) if keys[i:i + n] == want)
        refuse = twins > 1
    if refuse:
        expected = None
    return "".join(before), entries, None if expected is None else "".join(expected), hint


def render(dialect, rel, entries, hint):
    if hint < 0:
        # The reply itself has CRLF line endings (the file has LF).
        return render(dialect, rel, entries, -hint).replace("\n", "\r\n")
    old = "".join(t + "\n" for m, t in entries if m != "+")
    new = "".join(t + "\n" for m, t in entries if m != "-")
    body = "".join(f"{m}{t}\n" for m, t in entries)
    if dialect == "blocks":
        return f"{rel}\n```\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n"
    if dialect == "codex":
        return f"*** Begin Patch\n*** Update File: {rel}\n@@\n{body}*** End Patch\n"
    n_old = sum(1 for m, _ in entries if m != "+")
    n_new = sum(1 for m, _ in entries if m != "-")
    return f"--- a/{rel}\n+++ b/{rel}\n@@ -{hint},{n_old} +{hint},{n_new} @@\n{body}"


def judge(cls, before, expected, rc, after):
    changed = after != before
    if cls == "already_applied":
        return "correct" if rc == 0 and not changed else ("refused" if rc and not changed else "wrong")
    if expected is None:
        return "correct" if rc != 0 and not changed else "wrong"
    if after == expected and rc == 0:
        return "correct"
    if rc != 0 and not changed:
        return "correct" if cls == "elision" else "refused"
    return "wrong"


def run(binary, repo, rel, before, edit, dialect):
    path = os.path.join(repo, rel)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(before)
    p = subprocess.run([binary, "apply", "-", "--dialect", dialect], input=edit.encode(),
                       cwd=repo, capture_output=True)
    with open(path, encoding="utf-8", newline="") as f:
        return p.returncode, f.read()


def main():
    args = sys.argv[1:]
    per, seed = 8, 11
    if "--per-class" in args:
        i = args.index("--per-class"); per = int(args[i + 1]); del args[i:i + 2]
    if "--seed" in args:
        i = args.index("--seed"); seed = int(args[i + 1]); del args[i:i + 2]
    rng = random.Random(seed)
    files = sources()
    cases = []
    for cls in CLASSES:
        made = 0
        while made < per:
            path = rng.choice(files)
            got = build(rng, path, cls)
            if got:
                cases.append((cls, path, got))
                made += 1
    repo = tempfile.mkdtemp(prefix="agent-edits-")
    subprocess.run(["git", "init", "-q", repo], check=True)
    subprocess.run(["git", "-C", repo, "commit", "-q", "--allow-empty", "-m", "base"],
                   check=True, env={**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@x",
                                    "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@x"})
    for binary in args:
        table = {}
        for cls, path, (before, entries, expected, hint) in cases:
            rel = os.path.basename(path)
            for dialect in DIALECTS:
                edit = render(dialect, rel, entries, hint)
                rc, after = run(binary, repo, rel, before, edit, dialect)
                verdict = judge(cls, before, expected, rc, after)
                if verdict != "correct" and os.environ.get("AGENT_EDITS_SHOW"):
                    print(f"--- {cls} {dialect} {path} {verdict} rc={rc}\n{edit}")
                table.setdefault((cls, dialect), []).append(verdict)
                os.remove(os.path.join(repo, rel))
        report(binary, table)
    shutil.rmtree(repo)


def report(binary, table):
    print(f"\n{binary}")
    print(f"{'class':22}" + "".join(f"{d:>16}" for d in DIALECTS) + "   (correct/wrong/refused)")
    total = {"correct": 0, "wrong": 0, "refused": 0}
    for cls in CLASSES:
        row = f"{cls:22}"
        for d in DIALECTS:
            v = table.get((cls, d), [])
            counts = [v.count(k) for k in ("correct", "wrong", "refused")]
            for k, c in zip(("correct", "wrong", "refused"), counts):
                total[k] += c
            row += f"{'/'.join(map(str, counts)):>16}"
        print(row)
    n = sum(total.values())
    print(f"total {n}: correct {total['correct']} ({100 * total['correct'] / n:.1f} %), "
          f"wrong {total['wrong']} ({100 * total['wrong'] / n:.1f} %), "
          f"refused {total['refused']} ({100 * total['refused'] / n:.1f} %)")


if __name__ == "__main__":
    main()
