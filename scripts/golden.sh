#!/usr/bin/env bash
# make golden: reruns every golden case (tests/golden/*/config.json) with BUILD's lynxsim and rewrites the case's
# expected summary.json and requests.json (tests/golden/README.md). Every case is simulated first; the expectations
# are rewritten only when all ran, each file atomically (temporary name, then rename). Prints what moved, for the
# commit message, which must say why the numbers moved.   golden.sh BUILD_DIR [CASE...]
set -euo pipefail
build=${1:?usage: golden.sh BUILD_DIR [CASE...]}
shift
src=$(cd "$(dirname "$0")/.." && pwd)
lynxsim=$build/app/lynxsim
compare=$build/tests/golden/golden_compare
for tool in "$lynxsim" "$compare"; do
  [ -x "$tool" ] || { echo "golden.sh: $tool not built (cmake --build $build --target lynxsim golden_compare)" >&2; exit 2; }
done
if [ $# -eq 0 ]; then
  cases=()
  for config in "$src"/tests/golden/*/config.json; do cases+=("$(basename "$(dirname "$config")")"); done
else
  cases=("$@")
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lynx-golden.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for name in "${cases[@]}"; do
  [ -f "$src/tests/golden/$name/config.json" ] || { echo "golden.sh: no case tests/golden/$name/config.json" >&2; exit 2; }
  start=$(date +%s%N)
  if ! "$lynxsim" simulate --config "$src/tests/golden/$name/config.json" --out "$tmp/$name" --quiet --no-progress \
       2>"$tmp/$name.err"; then
    cat "$tmp/$name.err" >&2
    echo "golden.sh: case $name failed; no expectation was rewritten" >&2
    exit 1
  fi
  echo "golden $name: simulated in $(( ($(date +%s%N) - start) / 1000000 )) ms"
done
moved=0
for name in "${cases[@]}"; do
  case_dir=$src/tests/golden/$name
  if [ ! -f "$case_dir/summary.json" ] || [ ! -f "$case_dir/requests.json" ]; then
    echo "golden $name: new case"
    moved=$((moved + 1))
  elif ! "$compare" check "$case_dir" "$tmp/$name"; then
    moved=$((moved + 1))
  fi
  "$compare" write "$case_dir" "$tmp/$name"
done
if [ "$moved" -eq 0 ]; then
  echo "golden: nothing moved; ${#cases[@]} case(s) rewritten as they were"
else
  echo "golden: $moved of ${#cases[@]} case(s) moved and rewritten; the commit message must say why the numbers moved"
fi
