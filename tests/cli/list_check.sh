#!/usr/bin/env bash
# lynxsim list: the shipped catalogs as tables (exact rows), JSON that parses to the same figures, and a user
# catalog merged by name: its overriding entry replaces the shipped one whole (origin said), a new entry is added,
# and the rest stay shipped.   list_check.sh LYNXSIM
set -euo pipefail
lynxsim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
expect() {  # expect REGEX FILE: a line of FILE matches
  grep -qE -- "$1" "$2" || { echo "expected /$1/ in $2:"; cat "$2"; exit 1; }
}

"$lynxsim" list models >"$tmp/models"
expect '^llama-3\.1-8b +8,030,261,248 +8,030,261,248 +gqa +32 +4096 +32 +8 +128 +14336 +- +- +131072 +128256 +131072 +no +no +shipped$' "$tmp/models"
expect '^qwen2\.5-7b +7,615,616,512 +7,615,616,512 +gqa +28 +3584 +28 +4 +128 +18944 +- +- +57344 +152064 +131072 +no +yes +shipped$' "$tmp/models"
expect '^stories260k +260,032 +260,032 +gqa +5 +64 +8 +4 +8 +172 +- +- +640 +512 +512 +yes +no +shipped$' "$tmp/models"
# The hf_config entries, read from the data folder's config.json files: total and active parameters,
# DeepSeek-V3's MLA latent of 61 x 576 x 2 B, gpt-oss's 18 sliding layers of 128 tokens.
expect '^qwen3-235b-a22b +235,093,634,560 +22,190,763,520 +gqa +94 +4096 +64 +4 +128 +12288 +8/128 +- +192512 ' "$tmp/models"
expect '^deepseek-v3 +671,026,419,200 +37,552,297,472 +mla +61 +7168 +128 +1 +192 +18432 +8/256\+shared +- +70272 ' "$tmp/models"
expect '^mixtral-8x7b +46,702,792,704 +12,879,925,248 +gqa ' "$tmp/models"
expect '^gpt-oss-120b +116,829,156,672 +5,711,982,912 +gqa +36 +2880 +64 +8 +64 +2880 +4/128 +128x18 ' "$tmp/models"
[ "$(wc -l <"$tmp/models")" -eq 22 ] || { echo "expected a header and 21 models"; cat "$tmp/models"; exit 1; }
# One config.json shown as read.
"$lynxsim" list models --hf-config @data/calibration/aiconfigurator/model_configs/deepseek-ai--DeepSeek-V3_config.json >"$tmp/hf"
expect '^architecture +DeepseekV3ForCausalLM$' "$tmp/hf"
expect '^kv_bytes_per_token_bf16 +70272\.0$' "$tmp/hf"
expect '^mla\.kv_lora_rank +512$' "$tmp/hf"
# An unknown architecture is refused by name, with the file and key.
printf '{"architectures": ["MambaForCausalLM"], "hidden_size": 64}\n' >"$tmp/unknown_config.json"
code=0
"$lynxsim" list models --hf-config "$tmp/unknown_config.json" 2>"$tmp/unknown.err" || code=$?
[ $code -eq 2 ] || { echo "an unknown architecture: exit $code, expected 2 (bad input)"; cat "$tmp/unknown.err"; exit 1; }
expect 'unknown_config\.json: \$\.architectures\[0\]: architecture "MambaForCausalLM" is not supported \(supported: LlamaForCausalLM, ' "$tmp/unknown.err"
# Aligned: every row is as long as the header up to the origin column.
awk 'NR == 1 { w = index($0, "origin") } NR > 1 && substr($0, w, 7) != "shipped" { print "misaligned: " $0; exit 1 }' \
  "$tmp/models"

"$lynxsim" list gpus >"$tmp/gpus"
expect '^h200-sxm +989 +1979 +67 +4800 +141 +450 +0\.70 +0\.86 +measured +shipped$' "$tmp/gpus"
expect '^h20 +148 +296 +44 +4000 +96 +450 +0\.70 +0\.86 +derived from h100-sxm +shipped$' "$tmp/gpus"
expect '^a100-80gb-sxm +312 +- +19\.5 +2039 +80 +300 +0\.76 +0\.78 +derived from h100-sxm +shipped$' "$tmp/gpus"

"$lynxsim" list formats --tokens 32768 >"$tmp/formats"
expect '^bf16 +float +16 +0 +- +16\.000 +131072\.0 +0\.0 +131072\.0 +1\.000$' "$tmp/formats"
expect '^int8-g64 +int-group +8 +0 +64 +8\.500 +69632\.0 +0\.0 +69632\.0 +0\.531$' "$tmp/formats"
expect '^lynx-a4r4-g64 +lynx bit-slice +4 +4 +64 +8\.500 +36864\.0 +32768\.0 +69632\.0 +0\.531$' "$tmp/formats"
expect '^kivi2-g32 +kivi +2 +0 +32 +3\.000 +24576\.0 +0\.0 +24576\.0 +0\.188$' "$tmp/formats"

# JSON: the same figures (python's json module reads it).
"$lynxsim" list models --json >"$tmp/models.json"
python3 - "$tmp/models.json" <<'PY'
import json, sys
models = {m["name"]: m for m in json.load(open(sys.argv[1]))["models"]}
m = models["llama-3.1-70b"]
assert m["params"] == 70553706496 == m["params_from_shapes"], m
assert (m["n_layers"], m["n_kv_heads"], m["context_tokens"], m["origin"]) == (80, 8, 131072, "shipped"), m
PY
"$lynxsim" list formats --json --format lynx-a2r6-g32 --model llama-3.1-70b --tokens 1000 >"$tmp/formats.json"
python3 - "$tmp/formats.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
f = j["formats"][0]
# 70B: 80 layers x (K, V) x 8 kv heads x 128 = 163,840 values a token; anchor 2 bits + 4 B of scale/zero per group of
# 32; residual 6 bits.
assert j["reference"] == {"model": "llama-3.1-70b", "tokens": 1000}, j
assert f["anchor_bytes"] == 1000 * (163840 * 2 // 8 + 163840 // 32 * 4), f
assert f["residual_bytes"] == 1000 * 163840 * 6 // 8, f
PY

# A user catalog: llama-3.1-8b overridden (an 8K context, no source inherited), my-8b added.
cat >"$tmp/user.json" <<'JSON'
{"models": [
  {"name": "llama-3.1-8b", "n_layers": 32, "hidden_size": 4096, "n_heads": 32, "n_kv_heads": 8, "head_dim": 128,
   "ffn_size": 14336, "vocab_size": 128256, "params": 8030261248, "context_tokens": 8192, "source": "mine"},
  {"name": "my-8b", "n_layers": 32, "hidden_size": 4096, "n_heads": 32, "n_kv_heads": 8, "head_dim": 128,
   "ffn_size": 14336, "vocab_size": 128256, "params": 8030261248, "context_tokens": 65536, "source": "mine"}]}
JSON
"$lynxsim" list models --models-catalog "$tmp/user.json" >"$tmp/merged"
expect "^llama-3\.1-8b +8,030,261,248 .* 8192 +no +no +overrides shipped: $tmp/user.json\$" "$tmp/merged"
expect "^my-8b +8,030,261,248 .* 65536 +no +no +added: $tmp/user.json\$" "$tmp/merged"
expect '^qwen2\.5-7b .* shipped$' "$tmp/merged"
[ "$(wc -l <"$tmp/merged")" -eq 23 ] || { echo "expected 22 models"; cat "$tmp/merged"; exit 1; }
# The override is in the shipped entry's place (first), the new entry last.
[ "$(sed -n 2p "$tmp/merged" | cut -d' ' -f1)" = llama-3.1-8b ] && [ "$(tail -1 "$tmp/merged" | cut -d' ' -f1)" = my-8b ] ||
  { echo "wrong order"; cat "$tmp/merged"; exit 1; }
"$lynxsim" list models --json --models-catalog "$tmp/user.json" >"$tmp/merged.json"
python3 - "$tmp/merged.json" "$tmp/user.json" <<'PY'
import json, sys
models = {m["name"]: m for m in json.load(open(sys.argv[1]))["models"]}
m = models["llama-3.1-8b"]
assert (m["origin"], m["overrides_shipped"], m["file"], m["source"]) == ("user", True, sys.argv[2], "mine"), m
assert models["my-8b"]["overrides_shipped"] is False and models["qwen2.5-7b"]["origin"] == "shipped"
PY
echo "list: catalogs and formats checked"
