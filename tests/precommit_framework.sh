#!/usr/bin/env bash
# End to end through the real pre-commit framework: a fresh repository whose
# .pre-commit-config.yaml points at this repository (its path and HEAD commit, so the
# committed .pre-commit-hooks.yaml is what is tested), `pre-commit install`, then a commit
# with edit-format residue must fail and a clean one must pass.
# Needs `pre-commit` and `git-identedit` on PATH (.ci/run and tests/cli/precommit_framework.rs
# arrange both).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
for tool in pre-commit git-identedit; do
    command -v "$tool" >/dev/null || { echo "precommit_framework: $tool is not on PATH" >&2; exit 2; }
done
rev="$(git -C "$root" rev-parse HEAD)"
if ! git -C "$root" cat-file -e "$rev:.pre-commit-hooks.yaml" 2>/dev/null; then
    echo "precommit_framework: HEAD ($rev) has no .pre-commit-hooks.yaml; commit it first" >&2
    exit 2
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export PRE_COMMIT_HOME="$work/cache" GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid
export GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
repo="$work/repo"
git init -q -b main "$repo"
cd "$repo"
cat > .pre-commit-config.yaml <<YAML
repos:
  - repo: $root
    rev: $rev
    hooks:
      - id: identedit
YAML
git add .pre-commit-config.yaml
git commit -q --no-verify -m base
pre-commit install >/dev/null

fail() { echo "precommit_framework: FAILED: $1" >&2; [ -f "$work/out" ] && cat "$work/out" >&2; exit 1; }

printf 'intro\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n' > residue.md
git add residue.md
if git commit -q -m residue >"$work/out" 2>&1; then
    fail "a commit with edit-format residue went through"
fi
grep -q 'residue.md:2: edit-format residue' "$work/out" || fail "the refusal does not name residue.md:2"
grep -q 'hook_refused' "$work/out" || fail "the refusal has no hook_refused code"
[ "$(git rev-list --count HEAD)" = 1 ] || fail "HEAD moved"

git rm -q --cached residue.md
rm residue.md
printf 'clean\n' > clean.md
git add clean.md
git commit -q -m clean >"$work/out" 2>&1 || fail "a clean commit was refused"
[ "$(git rev-list --count HEAD)" = 2 ] || fail "the clean commit is missing"
echo "precommit_framework: 2 passed, 0 failed"
