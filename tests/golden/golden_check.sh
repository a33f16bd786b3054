#!/usr/bin/env bash
# One golden test (tests/golden/README.md): runs `lynxsim simulate` on CASE_DIR/config.json into a fresh temporary
# folder and compares its summary.json and requests.csv with CASE_DIR's committed expectations; prints every field
# that moved.   golden_check.sh LYNXSIM GOLDEN_COMPARE CASE_DIR
set -euo pipefail
lynxsim=$1 compare=$2 case_dir=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lynx-golden.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$lynxsim" simulate --config "$case_dir/config.json" --out "$tmp/run" --quiet --no-progress
"$compare" check "$case_dir" "$tmp/run"
