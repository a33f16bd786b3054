#!/usr/bin/env bash
# `simulate --set PATH=VALUE` gives byte-identical results to editing the file: the same configuration written
# with the overrides applied by hand (python's json) and simulated without them.
set -uo pipefail
lynxsim="$1"; base="$2"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/a" "$tmp/b"
cp "$base" "$tmp/a/config.json"
python3 - "$base" "$tmp/b/config.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["cluster"]["network"]["nic_gbps"] = 25
c["format"] = "int8-g64"
c["workload"]["synthetic"]["input_tokens"] = {"uniform": [64, 512]}
c["cluster"]["decode"].pop("max_batch", None)
json.dump(c, open(sys.argv[2], "w"), indent=1)
PY
# Both named config.json, run from their folders: the summary names its configuration file.
(cd "$tmp/a" && "$lynxsim" simulate --config config.json --out out --quiet \
   --set cluster.network.nic_gbps=25 --set format=int8-g64 --set 'workload.synthetic.input_tokens={"uniform": [64, 512]}' \
   --set cluster.decode.max_batch=null) || { echo "simulate --set failed"; exit 1; }
(cd "$tmp/b" && "$lynxsim" simulate --config config.json --out out --quiet) || { echo "simulate failed"; exit 1; }
cmp "$tmp/a/out/summary.json" "$tmp/b/out/summary.json" || { echo "summary.json differs"; exit 1; }
cmp "$tmp/a/out/requests.csv" "$tmp/b/out/requests.csv" || { echo "requests.csv differs"; exit 1; }
grep -q '"format": "int8-g64"' "$tmp/a/out/summary.json" || { echo "the override did not reach the summary"; exit 1; }
echo "--set equals editing the file"
