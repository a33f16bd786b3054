#!/usr/bin/env bash
# The benchmarks of `make bench`: each prints its figures as ratios to a baseline measured in the same run.
set -euo pipefail
build=${1:-build}
ran=0
for b in "$build"/bench/*; do
  [ -f "$b" ] && [ -x "$b" ] || continue  # skip CMakeFiles/ and the like
  echo "== $(basename "$b")"
  "$b"
  ran=1
done
[ $ran -eq 1 ] || echo "no benchmarks built yet"
