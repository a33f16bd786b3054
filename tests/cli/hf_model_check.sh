#!/usr/bin/env bash
# lynxsim accuracy and generate on a Hugging Face folder (stories260K converted by the project's own converter):
#   - accuracy --model DIR (its tokenizer.model read by SentencePiece) writes the same figures as the .bin with the
#     same tokenizer; only model and model_sha256 differ;
#   - accuracy --model DIR --tokens IDS (pre-tokenized text) writes the same figures again; text and text_sha256
#     name the ids file;
#   - a configuration naming that accuracy file as lynx.acceptance simulates, and its summary says it was read;
#   - generate --model DIR writes the .bin's text; --prompt-ids writes token ids;
#   - a folder without a tokenizer, and a bad --tokens file, are one clear error each.
# Usage: hf_model_check.sh LYNXSIM WRITE_HF_CHECKPOINT
set -euo pipefail
lynxsim=$1
writer=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir "$tmp/with-tokenizer"
"$writer" stories260k "$tmp/stories260k-hf" F32
small=(--stories 3 --format lynx-a4r4-g64 --format int4-g64 --k-max 4 --greedy-tokens 4 --cut 16
       --length-cut 16 --min-length-prompts 1 --quiet)
"$lynxsim" accuracy --model "$tmp/stories260k-hf" --tokenizer @data/models/stories260K/tok512.model "${small[@]}" \
  --out "$tmp/no-default.json" >/dev/null
code=0
"$lynxsim" accuracy --model "$tmp/stories260k-hf" "${small[@]}" --out "$tmp/x.json" >/dev/null 2>"$tmp/err" || code=$?
[ $code -eq 2 ] || fail "a folder without tokenizer.model: exit $code, expected 2: $(cat "$tmp/err")"
grep -q "no tokenizer.model in the folder" "$tmp/err" || fail "no tokenizer: $(cat "$tmp/err")"
# With tokenizer.model in the folder it is the default.
"$writer" stories260k "$tmp/with-tokenizer/stories260k-hf" F32 tokenizer
"$lynxsim" accuracy --model "$tmp/with-tokenizer/stories260k-hf" "${small[@]}" --out "$tmp/default.json" >/dev/null
cmp "$tmp/default.json" "$tmp/no-default.json" || fail "the folder's tokenizer.model gives other figures"
"$lynxsim" accuracy --model @data/models/stories260K/stories260K.bin \
  --tokenizer @data/models/stories260K/tok512.model "${small[@]}" --out "$tmp/bin.json" >/dev/null
"$writer" ids "$tmp/ids.txt" 3
"$lynxsim" accuracy --model "$tmp/stories260k-hf" --tokens "$tmp/ids.txt" "${small[@]}" --out "$tmp/ids.json" \
  >/dev/null
python3 - "$tmp" <<'PY' || fail "accuracy files differ"
import json, sys
d = sys.argv[1]
hf, bin_, ids = (json.load(open(f"{d}/{n}.json")) for n in ("no-default", "bin", "ids"))
assert hf["model"] == "stories260k-hf", hf["model"]
assert hf["model_sha256"] != bin_["model_sha256"]
assert ids["text"] == "ids.txt", ids["text"]
assert hf["formats"]["lynx-a4r4-g64"]["speculation"]["prompts"] == 3
for j in (hf, bin_, ids):
    j.pop("model"); j.pop("model_sha256")
assert hf == bin_, "HF folder and .bin differ"
for j in (hf, ids):
    j.pop("text"); j.pop("text_sha256")
assert hf == ids, "pre-tokenized and SentencePiece differ"
PY
# A configuration names the accuracy file measured this way.
cat >"$tmp/run.json" <<JSON
{"model": "llama-3.1-8b", "format": "lynx-a4r4-g64", "lynx": {"acceptance": "no-default.json"},
 "workload": {"synthetic": {"rate_per_s": 8, "count": 20, "input_tokens": {"fixed": 64},
                            "output_tokens": {"fixed": 16}}}}
JSON
(cd "$tmp" && "$lynxsim" simulate --config run.json --out run --quiet >/dev/null 2>&1) || fail "simulate failed"
python3 - "$tmp" <<'PY' || fail "the summary does not name the accuracy file"
import json, sys
s = json.load(open(sys.argv[1] + "/run/summary.json"))
source = s["sources"]["acceptance"]
assert "no-default.json (lynx-a4r4-g64, by prompt length: 1" in source, source
PY
# generate: the same text as the .bin; token ids in and out.
bin_text=$("$lynxsim" generate --steps 24 2>/dev/null | sed -n 's/^text: *//p')
hf_text=$("$lynxsim" generate --model "$tmp/stories260k-hf" --tokenizer @data/models/stories260K/tok512.bin --steps 24 \
          2>/dev/null | sed -n 's/^text: *//p')
[ -n "$bin_text" ] && [ "$bin_text" = "$hf_text" ] || fail "generate: '$hf_text' vs the .bin's '$bin_text'"
ids_text=$("$lynxsim" generate --model "$tmp/stories260k-hf" --prompt-ids "403 407 261 378" --steps 8 2>/dev/null |
           sed -n 's/^text: *//p')
[[ $ids_text =~ ^[0-9]+( [0-9]+){7}$ ]] || fail "--prompt-ids wrote '$ids_text'"
printf '1 2\n3 x\n' >"$tmp/bad.txt"
code=0
"$lynxsim" accuracy --model "$tmp/stories260k-hf" --tokens "$tmp/bad.txt" --quiet 2>"$tmp/err" >/dev/null || code=$?
[ $code -eq 2 ] || fail "a bad --tokens file: exit $code, expected 2: $(cat "$tmp/err")"
grep -q "bad.txt:2: column 3: expected token ids" "$tmp/err" || fail "bad tokens: $(cat "$tmp/err")"
echo "hf model: accuracy files equal (.bin, folder, pre-tokenized), simulate reads it, generate equal"
