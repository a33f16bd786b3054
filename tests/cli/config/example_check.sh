#!/usr/bin/env bash
# `lynxsim config --example` prints a configuration that runs as printed: simulate it, and check that every field
# of the reference (docs/config.md's simulation tables) appears in it, shown or commented out.
set -uo pipefail
lynxsim="$1"; docs="$2"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
"$lynxsim" config --example > "$tmp/example.json" || { echo "config --example failed"; exit 1; }
"$lynxsim" simulate --config "$tmp/example.json" --out "$tmp/out" --quiet || { echo "the example does not run"; exit 1; }
[ -s "$tmp/out/summary.json" ] && [ -s "$tmp/out/requests.csv" ] || { echo "no results written"; exit 1; }
# Field names of the simulation document (up to the experiment heading), each must be a key in the example.
missing=0
for key in $(sed -n '/^## Simulation/,/^## Experiment/p' "$docs" | grep -o '^| `[a-z_0-9]*`' | tr -d '|` ' | sort -u); do
  grep -q "\"$key\":" "$tmp/example.json" || { echo "field $key is not in the example"; missing=1; }
done
[ $missing -eq 0 ] || exit 1
echo "the example runs: $(grep -c . "$tmp/out/requests.csv") lines of requests.csv"
