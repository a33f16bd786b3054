#!/usr/bin/env bash
# Issue 59's cases, checked from the outside: each is one clear error (exit 2, one "lynxsim: error:" line, the
# message checked) or a documented acceptance, and none leaves a file behind or changes an input:
#   - the output rule covers the files read inside a model folder, the data folder and a catalog's hf_config;
#   - every file read is a regular file: a FIFO inside the data folder, /dev/zero as a trace;
#   - work bounded by what a legal value costs: cross-traffic periods and flow sizes, instances x tp;
#   - generate --prompt-ids "", config --where's arguments, list models' control bytes, plot's baseline and ratio
#     series, summary.csv with a column or a finished point's row missing, trace-stats' rate at span 0.
#   limits_check.sh LYNXSIM WRITE_HF_CHECKPOINT (the second may be "none": the model-folder cases are skipped)
set -uo pipefail
lynxsim=$(realpath "$1")
writer=${2:-none}
tmp="$(realpath "$(mktemp -d)")"; trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
cd "$tmp" || exit 1
fingerprint() { if [ -f "$1" ]; then sha256sum "$1"; else stat -L -c %F "$1" 2>/dev/null || echo absent; fi; }
# refused EXPECTED_TEXT FILE_THAT_MUST_NOT_CHANGE -- lynxsim ARGS...: exit 2, one error line holding the text
# (a fixed string), the file unchanged, no temporary file left in the current folder.
refused() {
  local expected="$1" keep="$2"; shift 3
  local before; before="$(fingerprint "$keep")"
  timeout 60 "$lynxsim" "$@" > out.txt 2> err.txt; local code=$?
  [ $code -eq 2 ] || fail "$* exited $code, expected 2: $(cat err.txt)"
  [ "$(grep -c '^lynxsim: error:' err.txt)" -eq 1 ] || fail "$*: expected one error line: $(cat err.txt)"
  grep -qF -- "$expected" err.txt || fail "$*: message does not hold \"$expected\": $(cat err.txt)"
  [ "$(fingerprint "$keep")" = "$before" ] || fail "$*: changed $keep"
  [ -z "$(find . -name '*.tmp.*' | head -n 1)" ] || fail "$*: left $(find . -name '*.tmp.*')"
  return 0
}

# --- The output rule: a model folder's files, the data folder, a catalog's hf_config. ---
if [ "$writer" != none ]; then
  "$writer" stories260k model F32 > /dev/null || fail "write_hf_checkpoint"
  for f in model.safetensors config.json; do
    refused "--out model/$f would replace $tmp/model/$f, a file of the model folder --model (model), which this command reads" \
      "model/$f" -- accuracy --model model --tokenizer @data/models/stories260K/tok512.bin --stories 1 --out "model/$f"
  done
  [ -e model/accuracy.json ] && fail "a refused accuracy wrote model/accuracy.json"
fi
data="$(realpath "$(sed -n 's/^data folder: //p' < <("$lynxsim" config --where))")"
[ -d "$data" ] || fail "no data folder: $data"
printf '{"timestamp": 0, "input_length": 600, "output_length": 4, "hash_ids": [1, 2]}\n{"timestamp": 0, "input_length": 700, "output_length": 3, "hash_ids": [1, 3]}\n' > t.jsonl
cat > c.json <<'JSON'
{"model": "llama-3.1-8b", "format": "bf16", "cluster": {"prefill": {"instances": 1}, "decode": {"instances": 1}},
 "workload": {"trace": "t.jsonl"}}
JSON
refused "--timeline $data/models/stories260K/tok512.model would replace $data/models/stories260K/tok512.model, a file of the data folder" \
  "$data/models/stories260K/tok512.model" -- simulate --config c.json --out r --timeline "$data/models/stories260K/tok512.model"
# A catalog's entry naming a Hugging Face config.json: a run folder's config.json must not replace it.
mkdir hf && cp "$data/calibration/aiconfigurator/model_configs/Qwen--Qwen3-8B_config.json" hf/config.json
printf '{"models": [{"name": "my-qwen", "hf_config": "hf/config.json"}]}\n' > catalog.json
sed 's/"llama-3.1-8b"/"my-qwen", "models_catalog": "catalog.json"/' c.json > cq.json
refused "--out hf (its config.json) would replace the input --config cq.json (\$.models_catalog: hf_config of my-qwen)" \
  hf/config.json -- simulate --config cq.json --out hf
# run: the same through an experiment's base (a point folder's config.json, experiment.json beside them).
mkdir hfe && cp hf/config.json hfe/experiment.json
printf '{"models": [{"name": "my-qwen", "hf_config": "hfe/experiment.json"}]}\n' > catalog_e.json
cat > e_hf.json <<JSON
{"name": "e_hf", "base": {"model": "my-qwen", "models_catalog": "$tmp/catalog_e.json", "format": "bf16",
  "workload": {"trace": "$tmp/t.jsonl"}, "cluster": {"prefill": {"instances": 1}, "decode": {"instances": 1}}},
 "sweep": {"axes": [{"path": "cluster.network.nic_gbps", "values": [25, 100]}]}}
JSON
refused "--out hfe (its experiment.json) would replace the input experiment e_hf.json (\$.models_catalog: hf_config of my-qwen)" \
  hfe/experiment.json -- run e_hf.json --out hfe
# validate: below its calibration folder, at any depth.
mkdir -p cal/sub && echo x > cal/sub/validation.csv
refused "--out cal/sub (its validation.csv) would replace $tmp/cal/sub/validation.csv, a file of the calibration folder --data-dir (cal)" \
  cal/sub/validation.csv -- validate --data-dir cal --out cal/sub

# --- Every file read is a regular file. ---
mkfifo fifo.jsonl
refused '--config c.json: $.workload.trace: fifo.jsonl: is a FIFO, not a regular file; lynxsim reads only regular files' \
  fifo.jsonl -- simulate --config c.json --out r --set workload.trace=fifo.jsonl
refused '/dev/zero": is a character device, not a regular file; lynxsim reads only regular files' /dev/zero -- \
  trace-stats /dev/zero
# A calibration table replaced by a FIFO inside a data folder (a copy of links to the real one): refused by name,
# never waited on (the default engine, vllm-0.24, reads this table for every run on h200-sxm, while the run is set up).
mkdir fake-data && cp -rs "$data"/. fake-data/
table="fake-data/calibration/aiconfigurator/systems/data/h200_sxm/gemm/vllm/0.24.0/gemm_perf.parquet"
[ -e "$table" ] || fail "no $table in the data folder"
rm "$table" && mkfifo "$table"
refused "c.json: \$.compute_model: $tmp/$table: is a FIFO, not a regular file; lynxsim reads only regular files" "$table" -- \
  --data-dir fake-data simulate --config c.json --out r
[ -e r ] && fail "a refused simulate left r"

# --- Work bounded by what a legal value costs. ---
sites() {  # a two-site configuration whose link carries the cross traffic $1
  cat <<JSON
{"model": "llama-3.1-8b", "format": "bf16", "workload": {"trace": "t.jsonl"},
 "cluster": {"prefill": {"instances": 1}, "decode": {"instances": 1},
  "network": {"topology": "sites", "sites": [{"name": "a", "pools": ["prefill"]}, {"name": "b", "pools": ["decode"]}],
   "site_links": [{"sites": ["a", "b"], "bandwidth_gbps": 400, "cross_traffic": $1}]}}}
JSON
}
sites '{"kind": "on-off", "fraction": 0.5, "on_ms": 1e-6, "off_ms": 1e-6}' > onoff.json
refused 'onoff.json: $.cluster.network.site_links[0].cross_traffic: on_ms 1e-06 and off_ms 1e-06: 1e+09 on/off switches per simulated second; over the run (at least the workload'"'"'s 0 s of arrivals, and at least 1 s) that is about 1e+09 background events, more than the 2e+07 lynxsim runs' \
  onoff.json -- simulate --config onoff.json --out r
sites '{"kind": "poisson", "fraction": 0.5, "mean_flow_mb": 1e-6}' > poisson.json
refused 'poisson.json: $.cluster.network.site_links[0].cross_traffic: mean_flow_mb 1e-06 with fraction 0.5 of 400 Gbps (bandwidth_gbps x count): 2.5e+10 flows per simulated second' \
  poisson.json -- simulate --config poisson.json --out r
[ -e r ] && fail "a refused simulate left r"
# The same links with periods and flows a real link has run.
sites '{"kind": "on-off", "fraction": 0.5, "on_ms": 10, "off_ms": 30}' > onoff_ok.json
timeout 60 "$lynxsim" simulate --config onoff_ok.json --out ok --quiet 2> err.txt || fail "on-off 10/30 ms: $(cat err.txt)"
refused 'c.json: $.cluster: prefill.instances 65536 x 64 NICs each + decode.instances 65536 x 64 NICs each' c.json -- \
  simulate --config c.json --out r --set cluster.prefill.instances=65536 --set cluster.prefill.tp=64 \
  --set cluster.decode.instances=65536 --set cluster.decode.tp=64
# Out of memory is a resource limit (exit 2, one line), never an internal error: a 140 MB line (no newline) read
# under address-space limits from tight to loose. Each run must end in one clear error, and at least one of them in
# "out of memory" (the rest: the 256 MiB line limit, or the trace format); limits under which the binary does not
# start at all (AddressSanitizer reserves terabytes) are skipped.
head -c 140000000 /dev/zero | tr '\0' 'x' > line.jsonl
oom=0
for limit in 300000 400000 500000; do
  (ulimit -v $limit && "$lynxsim" --version > /dev/null 2>&1) 2> /dev/null || continue
  (ulimit -v $limit && exec "$lynxsim" trace-stats line.jsonl) > out.txt 2> err.txt; code=$?
  [ $code -eq 2 ] && [ "$(grep -c '^lynxsim: error:' err.txt)" -eq 1 ] \
    || fail "trace-stats of a 140 MB line under ulimit -v $limit: exit $code: $(cut -c1-300 err.txt)"
  grep -q '^lynxsim: error: out of memory: .*(a resource limit, not a bug)' err.txt && oom=1
done
if [ $oom -eq 0 ] && (ulimit -v 500000 && "$lynxsim" --version > /dev/null 2>&1) 2> /dev/null; then
  fail "no address-space limit gave the out-of-memory error"
fi
rm -f line.jsonl

# --- The rest of the cases. ---
refused '--prompt-ids: no token id given' c.json -- generate --prompt-ids ""
refused 'config --where: --set edits a configuration: give it with --config FILE' c.json -- \
  config --where --set seed=2
refused '--out c.json: exists and is not a folder' c.json -- config --where --out c.json
touch project-file
LYNX_PROJECT_DIR="$tmp/project-file" refused "project folder $tmp/project-file (chosen by \$LYNX_PROJECT_DIR): is not a folder" \
  c.json -- config --where
LYNX_DATA_DIR="$tmp/no-such-data" timeout 60 "$lynxsim" config --where > where.txt 2>&1 || fail "config --where, no data folder"
grep -qF "  missing: the folder does not exist; scripts/get-data.sh fetches the data into it" where.txt \
  || fail "a missing data folder is not said: $(cat where.txt)"
# list models: a name's newline and ESC shown escaped, on its own row.
printf '{"models": [{"name": "bad\\nname\\u001b[31m", "n_layers": 2, "hidden_size": 64, "n_heads": 8, "n_kv_heads": 4, "head_dim": 8, "ffn_size": 172, "vocab_size": 512, "context_tokens": 256}]}\n' > names.json
timeout 60 "$lynxsim" list models --models-catalog names.json > list.txt 2>&1 || fail "list models: $(cat list.txt)"
grep -qF 'bad\nname\x1b[31m ' list.txt || fail "list models shows a name raw: $(cat -v list.txt)"
[ -z "$(tr -d '\n\t' < list.txt | tr -d '[:print:]')" ] || fail "list models printed control bytes: $(cat -v list.txt)"
# plot's baseline and ratio series, refused before the sweep.
experiment() {  # an experiment over formats bf16 and int8-g128 with the plot section $1
  cat <<JSON
{"name": "e", "base": {"model": "llama-3.1-8b", "format": "bf16", "workload": {"trace": "$tmp/t.jsonl"},
  "cluster": {"prefill": {"instances": 1}, "decode": {"instances": 1}}},
 "sweep": {"axes": [{"path": "cluster.network.nic_gbps", "values": [25, 100]},
                    {"path": "format", "values": ["bf16", "int8-g128"]}]},
 "plot": $1}
JSON
}
experiment '{"x": "cluster.network.nic_gbps", "series": "format", "baseline": "fp8"}' > baseline.json
refused 'baseline.json: $.plot.baseline: "fp8" is not a value of the series axis format (its values: bf16, int8-g128)' \
  baseline.json -- run baseline.json --out eres
experiment '{"x": "cluster.network.nic_gbps", "series": "format", "ratios": [{"numerator": ["int8-g128", "ttft"], "denominator": ["int4", "ttft"]}]}' > ratio.json
refused 'ratio.json: $.plot.ratios[0].denominator[0]: "int4" is not a value of the series axis format' \
  ratio.json -- run ratio.json --out eres
[ -e eres ] && fail "a refused run left eres"
# summary.csv cut: a column gone, a finished point's row gone.
experiment '{"x": "cluster.network.nic_gbps", "series": "format"}' > ok.json
timeout 120 "$lynxsim" run ok.json --out res > /dev/null 2>&1 || fail "run ok.json"
cp res/summary.csv summary.keep && mkdir figs
cut -d, -f1-5,7- summary.keep > res/summary.csv
column="$(head -n 1 summary.keep | cut -d, -f6)"
refused "res/summary.csv:1: no column \"$column\", a metric of the finished point" res/summary.csv -- \
  plot res --metric ttft --out figs
head -n 2 summary.keep > res/summary.csv
refused "res/summary.csv: no row for the finished point" res/summary.csv -- plot res --metric ttft --out figs
cp summary.keep res/summary.csv
# trace-stats: two requests at one time have no rate (undefined, not 0).
timeout 60 "$lynxsim" trace-stats t.jsonl > stats.txt 2>&1 || fail "trace-stats t.jsonl: $(cat stats.txt)"
grep -qxF "rate_per_s      undefined (span 0: every request arrives at the same time)" stats.txt \
  || fail "trace-stats at span 0: $(cat stats.txt)"
timeout 60 "$lynxsim" trace-stats t.jsonl --json > stats.json 2>&1 || fail "trace-stats --json"
grep -qF '"rate_per_s": null' stats.json || fail "trace-stats --json at span 0: $(cat stats.json)"
echo "limits: every case as expected"
