#!/bin/sh
# Which changes of a pull request were made under verified identedit receipts?
#
#   sh docs/ci/verify-range.sh [BASE] [VERIFY OPTIONS...]
#   sh docs/ci/verify-range.sh origin/main --require all
#   sh docs/ci/verify-range.sh origin/main --require 'files=src/**' --json
#
# Fetches every clone's receipts from the remote (IDENTEDIT_REMOTE, default origin), then
# checks BASE..HEAD (BASE defaults to origin/main). Exit 0: covered, or allowed by the policy;
# 1: a receipt claims a change but does not verify; 3: hunks the policy requires came by hand.
set -eu
base=${1:-origin/main}
if [ "$#" -gt 0 ]; then shift; fi
git identedit fetch "${IDENTEDIT_REMOTE:-origin}" >&2
exec git identedit verify --range "$base..HEAD" "$@"
