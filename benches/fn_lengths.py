#!/usr/bin/env python3
"""Function and file lengths of the crate's sources (`src/**/*.rs`, test modules excluded).

A function's length is its lines from the `fn` line to its closing brace, both included.
Braces inside strings, raw strings, char literals and comments are skipped; a `#[cfg(test)]`
module and files named `tests.rs` are left out.

    python3 benches/fn_lengths.py [--over N] [--list K] [--only DIR ...]

prints the number of functions, the median and the count over N lines (default 60), the
K longest (default 30), then the file figures (median lines, files over 600).
"""

import argparse
import pathlib
import re
import statistics

FN = re.compile(r"^\s*(pub(\([^)]*\))?\s+)?((const|async|unsafe|extern\s+\"C\")\s+)*fn\s+(\w+)")
TEST_MOD = re.compile(r"^\s*#\[cfg\(test\)\]")


def code_only(text):
    """The text with string, char and comment contents blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:]) and not (i and (text[i - 1].isalnum() or text[i - 1] == "_")):
            hashes = re.match(r'r(#*)"', text[i:]).group(1)
            end = '"' + hashes
            j = text.find(end, i + len(hashes) + 2)
            j = n if j < 0 else j + len(end)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "'":
            m = re.match(r"'(\\.[^']*|[^\\'])'", text[i:])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    lines = code_only(path.read_text()).split("\n")
    found, skip_until = [], -1
    depth_at = []
    depth = 0
    for k, line in enumerate(lines):
        depth_at.append(depth)
        depth += line.count("{") - line.count("}")
    k = 0
    while k < len(lines):
        line = lines[k]
        if TEST_MOD.match(line):
            # Skip the item that follows (a `mod tests { … }` or `mod tests;`).
            j = k + 1
            while j < len(lines) and "{" not in lines[j] and ";" not in lines[j]:
                j += 1
            if j < len(lines) and "{" in lines[j]:
                k = close(lines, j) + 1
                continue
        m = FN.match(line)
        if m:
            j = k
            while j < len(lines) and "{" not in lines[j] and not lines[j].rstrip().endswith(";"):
                j += 1
            if j < len(lines) and "{" in lines[j]:
                end = close(lines, j)
                found.append((end - k + 1, m.group(5), k + 1))
        k += 1
    return found


def close(lines, start):
    """The line of the brace closing the first `{` on line `start`."""
    depth = 0
    for j in range(start, len(lines)):
        for ch in lines[j]:
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    return j
    return len(lines) - 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--over", type=int, default=60)
    ap.add_argument("--list", type=int, default=30)
    ap.add_argument("--only", nargs="*", default=[])
    args = ap.parse_args()
    root = pathlib.Path(__file__).resolve().parent.parent / "src"
    rows, files = [], []
    for path in sorted(root.rglob("*.rs")):
        rel = path.relative_to(root).as_posix()
        if path.name == "tests.rs":
            continue
        files.append((len(path.read_text().splitlines()), rel))
        if args.only and not any(rel.startswith(d.rstrip("/") + "/") or rel == d for d in args.only):
            continue
        rows += [(n, f"{rel}::{name}", line) for n, name, line in functions(path)]
    lengths = [n for n, _, _ in rows]
    over = [r for r in rows if r[0] > args.over]
    print(f"functions: {len(rows)}  median: {statistics.median(lengths):g} lines  "
          f"over {args.over}: {len(over)}")
    for n, name, line in sorted(rows, reverse=True)[: args.list]:
        print(f"  {n:4}  {name} (line {line})")
    sizes = [n for n, _ in files]
    print(f"files: {len(files)}  median: {statistics.median(sizes):g} lines  "
          f"over 600: {sum(n > 600 for n in sizes)}  longest: {max(files)[1]} ({max(sizes)})")


if __name__ == "__main__":
    main()
