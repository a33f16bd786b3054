#!/usr/bin/env bash
# A run folder describes itself: `simulate --out DIR` writes DIR/config.json, the configuration as run with every
# input path absolute, and `simulate --config DIR/config.json` from another folder reproduces DIR's summary.json and
# requests.csv byte for byte. The summary records what was read: the trace with its sha256 and the transforms
# applied (or the synthetic spec with the hash of its empirical lengths), the kernel-cost tables (file, sha256,
# device), the compute model chosen and the model catalog entry.   config_reproduces.sh LYNXSIM
set -euo pipefail
lynxsim=$1
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/in"
head -400 "$("$lynxsim" trace-stats @data/traces/mooncake/conversation_trace.jsonl --json |
             python3 -c 'import json,sys; print(json.load(sys.stdin)["file"])')" >"$tmp/in/trace.jsonl"
cp "$src/kernels/costs/h200.json" "$tmp/in/costs.json"
cp "$src/models/accuracy/stories260k.json" "$tmp/in/acceptance.json"
cat >"$tmp/in/models.json" <<'JSON'
{"models": [{"name": "my-8b", "n_layers": 32, "hidden_size": 4096, "n_heads": 32, "n_kv_heads": 8, "head_dim": 128,
             "ffn_size": 14336, "vocab_size": 128256, "params": 8030261248, "context_tokens": 131072, "source": "t"}]}
JSON
# Every input path relative to the configuration's folder.
cat >"$tmp/in/trace_run.json" <<'JSON'
{"model": "my-8b", "format": "lynx-a4r4-g64", "models_catalog": "models.json", "kernel_costs": "costs.json",
 "compute_model": "roofline", "lynx": {"acceptance": "acceptance.json"},
 "cluster": {"prefill": {"instances": 2}, "decode": {"instances": 2}, "network": {"nic_gbps": 25}},
 "workload": {"trace": "trace.jsonl", "first_n": 150, "time_scale": 0.5}}
JSON
cat >"$tmp/in/synthetic_run.json" <<'JSON'
{"model": "llama-3.1-8b", "format": "lynx-a4r4-g64-rq", "lynx": {"acceptance_histogram": [[2, 8], [1, 2, 7]]},
 "workload": {"synthetic": {"rate_per_s": 20, "count": 60, "input_tokens": {"empirical": "trace.jsonl"},
                            "output_tokens": {"uniform": [1, 50]}}, "spread_same_timestamp": false}}
JSON

for run in trace_run synthetic_run; do
  (cd "$tmp" && "$lynxsim" simulate --config "in/$run.json" --out "$run" --quiet 2>/dev/null)
  (cd / && "$lynxsim" simulate --config "$tmp/$run/config.json" --out "$tmp/$run.again" --quiet 2>/dev/null)
  for file in config.json requests.csv summary.json; do
    cmp "$tmp/$run/$file" "$tmp/$run.again/$file" || { echo "$run: $file differs when rerun from config.json"; exit 1; }
  done
done
[ "$(wc -l <"$tmp/trace_run/requests.csv")" -eq 151 ] || { echo "expected 150 requests"; exit 1; }

sha() { sha256sum "$1" | cut -d' ' -f1; }
python3 - "$tmp" "$(sha "$tmp/in/trace.jsonl")" "$(sha "$tmp/in/costs.json")" <<'PY'
import json, os, sys
tmp, trace_sha, costs_sha = sys.argv[1], sys.argv[2], sys.argv[3]
inp = os.path.realpath(os.path.join(tmp, "in"))
config = json.load(open(os.path.join(tmp, "trace_run", "config.json")))
assert config["workload"]["trace"] == inp + "/trace.jsonl", config
assert config["kernel_costs"] == inp + "/costs.json" and config["models_catalog"] == inp + "/models.json", config
assert config["lynx"]["acceptance"] == inp + "/acceptance.json", config
assert config["cluster"]["network"]["nic_gbps"] == 25 and config["workload"]["first_n"] == 150, config

s = json.load(open(os.path.join(tmp, "trace_run", "summary.json")))
w = s["workload"]
assert w["trace"] == inp + "/trace.jsonl" and w["sha256"] == trace_sha, w
assert w["transforms"] == [{"first_n": 150}, {"time_scale": 0.5}], w
src = s["sources"]
table = {"file": inp + "/costs.json", "sha256": costs_sha, "device": "NVIDIA H200", "measured": False}
assert src["kernel_cost_tables"] == {"prefill": table, "decode": table}, src["kernel_cost_tables"]
assert src["compute_model"] == {"configured": "roofline", "weights_dtype": "bf16", "prefill": "roofline",
                                "decode": "roofline"}, src["compute_model"]
assert src["model_catalog"] == inp + "/models.json", src
assert src["acceptance"].startswith(inp + "/acceptance.json (lynx-a4r4-g64"), src["acceptance"]

s = json.load(open(os.path.join(tmp, "synthetic_run", "summary.json")))
w = s["workload"]
assert w["synthetic"]["input_tokens"] == {"empirical": inp + "/trace.jsonl", "empirical_sha256": trace_sha}, w
assert w["synthetic"]["rate_per_s"] == 20 and w["synthetic"]["count"] == 60 and w["transforms"] == [], w
assert s["sources"]["kernel_cost_tables"]["decode"]["file"].endswith("/kernels/costs/h200.json"), s["sources"]
# A configured histogram is named by its JSON path, not by the configuration file (which differs on a rerun).
assert s["sources"]["acceptance"] == "configured histogram $.lynx.acceptance_histogram (k_max 2)", s["sources"]
PY
echo "config.json reproduces the run; summary records its workload and tables"
