#!/usr/bin/env bash
# Builds git-identedit and runs it on the bundled example: a copy of examples/calc in a fresh
# git repository, a dry run with its diff, the real apply, the API guard, the receipts
# (log, verify, undo), then the resulting `git status`.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
echo "== building git-identedit (release; the first build downloads the dependencies and takes a few minutes)" >&2
cargo build --release --manifest-path "$here/Cargo.toml"
export PATH="$here/target/release:$PATH"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -R "$here/examples/calc/." "$work/"
cd "$work"
git init -q -b main
git -c user.name=demo -c user.email=demo@example.invalid add -A
git -c user.name=demo -c user.email=demo@example.invalid commit -q -m "calc with a bug"
echo "== git identedit apply plan.json --dry-run --diff"
git identedit apply plan.json --dry-run --diff --format text
echo "== git identedit apply plan.json"
git identedit apply plan.json --format text
echo "== a second edit changes a public signature: refused unless acknowledged"
git identedit edit src/Calc.php --find='int $b): int' --replace='int $b = 0): int' --format text || true
git identedit edit src/Calc.php --find='int $b): int' --replace='int $b = 0): int' \
    --allow-signature-change --task default-b --format text
echo "== the ledger: every write is a receipt in git"
git identedit log --format text
git identedit verify default-b --format text
echo "== undo the last edit (only while the file still holds what it published)"
git identedit undo default-b --format text
echo "== git status --short"
git status --short
