#!/usr/bin/env bash
# Regenerates link/order.txt: the functions git-identedit runs on everyday commands, which
# build.rs has the linker place together at the start of the code (`--symbol-ordering-file`).
#
# Why: the kernel maps 64 KiB of a binary around every page a process touches. Spread over
# 10 MB of code, the few hundred KiB a command runs made 7.5 MB of it resident in every
# command; grouped, they fit in a few such windows. A function missing from the list (new,
# renamed, or not run below) still links and works; it only lands with the rest of the code.
#
# Usage: link/order.sh [BIN]   (default target/release/git-identedit; needs valgrind)
# Symbol names carry a hash of their crate's version, features and profile: regenerate after
# a dependency or its features change, and after large changes of our own; a release build
# then picks the new order up. (A `cargo bench` build has other names and runs unordered.)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=$(realpath "${1:-$here/target/release/git-identedit}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 HOME="$work/home"
export GIT_AUTHOR_NAME=order GIT_AUTHOR_EMAIL=order@example.invalid
export GIT_COMMITTER_NAME=order GIT_COMMITTER_EMAIL=order@example.invalid
mkdir -p "$work/home" "$work/repo" "$work/cg"
cd "$work/repo"
for lang in python typescript javascript php rust go; do
    cp "$here"/fixtures/lang/$lang/sample.* .
done
mkdir many
for i in $(seq -w 0 39); do
    sed "s/DEFAULT_LIMIT = 100/DEFAULT_LIMIT = 1$i/" sample.py > many/m$i.py
done
for i in $(seq 300); do cat sample.py; done > big.py
echo 'LAST = 1' >> big.py
git init -q -b main && git add -A && git commit -q -m base

# Runs one command under callgrind; a command that fails would profile the wrong path.
traced() {
    valgrind --tool=callgrind --demangle=no --compress-strings=no --dump-instr=no \
        --callgrind-out-file="$work/cg/%p.out" "$bin" "$@" > "$work/out" 2> "$work/err" || {
        echo "failed: git-identedit $*" >&2
        cat "$work/out" "$work/err" >&2
        exit 1
    }
}

printf 'def restock(self, amount: int) -> None:\n        self.quantity += 2 * amount' > "$work/body.py"
cat > "$work/edit.blocks" <<'EOF'
sample.py
<<<<<<< SEARCH
DEFAULT_LIMIT = 100
=======
DEFAULT_LIMIT = 200
>>>>>>> REPLACE
EOF
cat > "$work/edit.codex" <<'EOF'
*** Begin Patch
*** Update File: sample.py
@@
-DEFAULT_LIMIT = 200
+DEFAULT_LIMIT = 300
*** End Patch
EOF
cat > "$work/edit.plan.json" <<'EOF'
{"type": "source_edit_plan", "contract_version": "1.0", "target_id": "order",
 "edits": [{"path": "sample.py", "find": "DEFAULT_LIMIT = 300", "replace": "DEFAULT_LIMIT = 400"}]}
EOF

# Many files in one plan (the parallel paths, a receipt written as one pack).
{
    printf '{"type": "source_edit_plan", "contract_version": "1.0", "target_id": "many", "edits": ['
    for i in $(seq -w 0 39); do
        [ "$i" = 00 ] || printf ','
        printf '{"path": "many/m%s.py", "find": "DEFAULT_LIMIT = 1%s", "replace": "DEFAULT_LIMIT = 2%s"}' "$i" "$i" "$i"
        printf ',{"path": "many/m%s.py", "find": "pass", "replace": "pass  # %s"}' "$i" "$i"
    done
    printf ']}'
} > "$work/many.json"

traced --version
traced apply --dialect plan "$work/many.json"
traced edit big.py --find 'LAST = 1' --replace 'LAST = 2'
traced read sample.py --symbol Inventory.total
traced patch sample.py --symbol Item.restock --replace --text-file "$work/body.py"
traced apply --dialect blocks "$work/edit.blocks"
traced apply --dialect codex "$work/edit.codex"
traced apply --dialect plan "$work/edit.plan.json"
cp sample.py "$work/before.py"
sed -i 's/DEFAULT_LIMIT = 400/DEFAULT_LIMIT = 500/' sample.py
diff -u --label a/sample.py --label b/sample.py "$work/before.py" sample.py > "$work/edit.diff" || true
cp "$work/before.py" sample.py
traced apply --dialect diff "$work/edit.diff"
for file in sample.ts sample.js sample.php sample.rs sample.go; do
    first=$(grep -m1 -n '[a-z]' "$file" | cut -d: -f1)
    line=$(sed -n "${first}p" "$file")
    traced edit "$file" --find "$line" --replace "$line "
done
traced log
traced verify
traced show
traced undo
git add -A
traced hook pre-commit

# Every function of the binary that ran, in the order first seen.
cat "$work"/cg/*.out | awk -v bin="$bin" '
    /^ob=/ { ob = substr($0, 4) }
    /^fn=/ { if (ob == bin && !seen[substr($0, 4)]++) print substr($0, 4) }
' > "$here/link/order.txt"
echo "link/order.txt: $(wc -l < "$here/link/order.txt") functions" >&2
