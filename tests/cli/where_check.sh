#!/usr/bin/env bash
# Which folders a run reads (common/data_folder.hpp, docs/paths.md), checked from the outside:
# - `config --where` names the checkout holding the binary as the project folder, the data folder with its rule,
#   the output folder, and with --config every input path as the run resolves it;
# - $LYNX_PROJECT_DIR overrides the project folder: its catalog is the one read (an entry only it has is listed);
# - a binary inside another checkout (a clone) reads that clone's catalog, not the one it was built from;
# - a binary copied out of every checkout falls back to the checkout it was built from, and says so;
# - --set values of path fields: relative against the configuration's folder, ./ and ../ against the current one.
#   where_check.sh LYNXSIM SOURCE_DIR
set -euo pipefail
lynxsim=$(realpath "$1")
source_dir=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export -n LYNX_PROJECT_DIR 2>/dev/null || true
unset LYNX_PROJECT_DIR

# The build's own binary: the project folder is its checkout, chosen because it holds the binary.
"$lynxsim" config --where --out "$tmp/out" >"$tmp/where.txt"
grep -qxF "project folder: $source_dir" "$tmp/where.txt" || fail "project folder is not $source_dir: $(cat "$tmp/where.txt")"
grep -qxF "  chosen by: the checkout that holds the running lynxsim ($lynxsim)" "$tmp/where.txt" \
  || fail "no rule for the project folder: $(cat "$tmp/where.txt")"
grep -q "^data folder: " "$tmp/where.txt" && grep -q "^  chosen by: " "$tmp/where.txt" || fail "no data folder line"
grep -qxF "output folder: $tmp/out (--out)" "$tmp/where.txt" || fail "no output folder: $(cat "$tmp/where.txt")"
grep -q "^relative paths: in a configuration or experiment file, against that file's folder" "$tmp/where.txt" \
  || fail "no relative-path rule"
LYNX_DATA_DIR="$tmp" "$lynxsim" config --where | grep -qxF "data folder: $tmp" || fail "LYNX_DATA_DIR not shown"
LYNX_DATA_DIR="$tmp" "$lynxsim" config --where | grep -qxF "  chosen by: --data-dir / \$LYNX_DATA_DIR" \
  || fail "LYNX_DATA_DIR's rule not shown"

# A project folder of our own: the shipped files, plus a model only it has.
fake="$tmp/clone"
mkdir -p "$fake/models/catalog" "$fake/experiments" "$fake/build/app"
cp "$source_dir"/models/catalog/*.json "$fake/models/catalog/"
cp "$source_dir"/experiments/*.py "$fake/experiments/"
/usr/bin/python3 - "$fake/models/catalog/models.json" <<'EOF'
import json, sys
catalog = json.load(open(sys.argv[1]))
catalog["models"].append({"name": "only-in-clone", "n_layers": 2, "hidden_size": 64, "n_heads": 8, "n_kv_heads": 4,
                          "head_dim": 8, "ffn_size": 172, "vocab_size": 512, "context_tokens": 256})
json.dump(catalog, open(sys.argv[1], "w"), indent=1)
EOF
"$lynxsim" list models >"$tmp/own_models.txt" || fail "list models failed"
! grep -q only-in-clone "$tmp/own_models.txt" || fail "the build's own catalog has only-in-clone"
LYNX_PROJECT_DIR="$fake" "$lynxsim" list models | grep -q "^only-in-clone " \
  || fail "LYNX_PROJECT_DIR's catalog was not read"
LYNX_PROJECT_DIR="$fake" "$lynxsim" config --where >"$tmp/env.txt"
grep -qxF "project folder: $fake" "$tmp/env.txt" && grep -qxF "  chosen by: \$LYNX_PROJECT_DIR" "$tmp/env.txt" \
  || fail "LYNX_PROJECT_DIR not shown: $(cat "$tmp/env.txt")"

# The binary inside the clone (as if built there) reads the clone's catalog.
cp "$lynxsim" "$fake/build/app/lynxsim"
"$fake/build/app/lynxsim" list models | grep -q "^only-in-clone " || fail "a clone's binary did not read its catalog"
"$fake/build/app/lynxsim" config --where | grep -qxF "project folder: $fake" || fail "a clone's binary: wrong folder"
# Run from inside the clone, the build's binary says the current folder is another checkout.
(cd "$fake" && "$lynxsim" config --where) | grep -qF "note: the current folder is inside another checkout, $fake" \
  || fail "no note about the checkout of the current folder"

# Copied out of every checkout: the checkout it was built from, and why.
mkdir "$tmp/bin"
cp "$lynxsim" "$tmp/bin/lynxsim"
"$tmp/bin/lynxsim" config --where >"$tmp/copied.txt"
grep -qxF "project folder: $source_dir" "$tmp/copied.txt" || fail "a copied binary: $(cat "$tmp/copied.txt")"
grep -qxF "  chosen by: the checkout lynxsim was built from (the running binary $tmp/bin/lynxsim is in no checkout)" \
  "$tmp/copied.txt" || fail "a copied binary: no rule: $(cat "$tmp/copied.txt")"

# --set path values: against the configuration's folder, ./ and ../ against the current one.
mkdir -p "$tmp/cfg" "$tmp/here"
printf '{"workload": {"trace": "a.jsonl"}}\n' >"$tmp/cfg/run.json"
printf '{"timestamp": 0, "input_length": 10, "output_length": 2, "hash_ids": [0]}\n' | tee "$tmp/cfg/a.jsonl" "$tmp/cfg/b.jsonl" "$tmp/here/b.jsonl" >/dev/null
(cd "$tmp/here" && "$lynxsim" config --where --config ../cfg/run.json) >"$tmp/c1.txt"
grep -qxF "configuration ../cfg/run.json: relative paths against $tmp/cfg" "$tmp/c1.txt" || fail "$(cat "$tmp/c1.txt")"
grep -qxF "  workload.trace: $tmp/cfg/a.jsonl" "$tmp/c1.txt" || fail "file path: $(cat "$tmp/c1.txt")"
(cd "$tmp/here" && "$lynxsim" config --where --config ../cfg/run.json --set workload.trace=b.jsonl) \
  | grep -qxF "  workload.trace: $tmp/cfg/b.jsonl" || fail "--set b.jsonl is not against the configuration's folder"
(cd "$tmp/here" && "$lynxsim" config --where --config ../cfg/run.json --set workload.trace=./b.jsonl) \
  | grep -qxF "  workload.trace: $tmp/here/b.jsonl" || fail "--set ./b.jsonl is not against the current folder"
# --config without --where is refused with one line.
status=0
"$lynxsim" config --config "$tmp/cfg/run.json" 2>"$tmp/err.txt" >/dev/null || status=$?
[ "$status" = 2 ] && grep -qxF "lynxsim: error: config: give one of --schema, --example or --where" "$tmp/err.txt" \
  || fail "config --config alone: exit $status, $(cat "$tmp/err.txt")"
echo "project and data folders, their rules, LYNX_PROJECT_DIR, clones, copied binaries and --set paths checked"
