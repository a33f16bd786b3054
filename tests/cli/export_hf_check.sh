#!/usr/bin/env bash
# `lynxsim export-hf --out DIR` writes stories260K as a Hugging Face folder that `accuracy --model DIR` reads with
# its own tokenizer.model, giving the figures of the llama2.c .bin (only model and model_sha256 differ); bf16 weights
# load too; exporting again gives the same bytes; a folder holding something else under one of its names is refused.
#   export_hf_check.sh LYNXSIM
set -euo pipefail
lynxsim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$lynxsim" export-hf --out "$tmp/hf" >"$tmp/out.txt"
for f in config.json model.safetensors tokenizer.model; do [ -s "$tmp/hf/$f" ] || fail "no $f written"; done
grep -q "try it: lynxsim accuracy --model $tmp/hf" "$tmp/out.txt" || fail "no hint printed: $(cat "$tmp/out.txt")"
grep -q '"LlamaForCausalLM"' "$tmp/hf/config.json" || fail "config.json names no LlamaForCausalLM"
small=(--stories 3 --format lynx-a4r4-g64 --k-max 4 --greedy-tokens 4 --cut 16 --length-cut 16
       --min-length-prompts 1 --quiet)
"$lynxsim" accuracy --model "$tmp/hf" "${small[@]}" --out "$tmp/hf.json" >/dev/null
"$lynxsim" accuracy --model @data/models/stories260K/stories260K.bin \
  --tokenizer @data/models/stories260K/tok512.model "${small[@]}" --out "$tmp/bin.json" >/dev/null
python3 - "$tmp" <<'PY' || fail "the exported folder's accuracy differs from the .bin's"
import json, sys
d = sys.argv[1]
hf, bin_ = (json.load(open("%s/%s.json" % (d, n))) for n in ("hf", "bin"))
assert hf["model"] == "hf" and hf["model_sha256"] != bin_["model_sha256"], (hf["model"], bin_["model"])
for j in (hf, bin_):
    j.pop("model"); j.pop("model_sha256")
assert hf == bin_, "HF export and .bin differ"
PY
cp "$tmp/hf/model.safetensors" "$tmp/first.safetensors"
"$lynxsim" export-hf --out "$tmp/hf" >/dev/null
cmp -s "$tmp/hf/model.safetensors" "$tmp/first.safetensors" || fail "exporting again wrote other bytes"
"$lynxsim" export-hf --out "$tmp/bf16" --dtype bf16 >/dev/null
"$lynxsim" accuracy --model "$tmp/bf16" "${small[@]}" --out "$tmp/bf16.json" >/dev/null \
  || fail "accuracy on the bf16 export"
mkdir -p "$tmp/taken/config.json"
status=0
"$lynxsim" export-hf --out "$tmp/taken" >/dev/null 2>"$tmp/err.txt" || status=$?
[ "$status" = 2 ] && [ "$(wc -l <"$tmp/err.txt")" = 1 ] && grep -q "config.json" "$tmp/err.txt" \
  || fail "a folder named config.json in --out: exit $status: $(cat "$tmp/err.txt")"
echo "export-hf checked"
