#!/usr/bin/env bash
# A small accuracy run (10 stories: every prompt length has fewer prompts than --min-length-prompts) writes a file
# that simulate accepts: the pooled speculation statistics alone, said so by accuracy and named by simulate's
# acceptance line.   small_to_simulate.sh LYNXSIM CONFIG
set -uo pipefail
lynxsim="$1"; config="$2"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
out="$("$lynxsim" accuracy --stories 10 --format lynx-a4r4-g64 --k-max 4 --greedy-tokens 4 --out "$tmp/acc.json" 2>&1)" \
  || { echo "accuracy failed: $out"; exit 1; }
grep -q 'every prompt length was left out: the file has speculation statistics pooled over prompt lengths only' <<<"$out" \
  || { echo "accuracy did not say the file is pooled only: $out"; exit 1; }
sim="$("$lynxsim" simulate --config "$config" --out "$tmp/run" --set format=lynx-a4r4-g64 \
  --set "lynx.acceptance=$tmp/acc.json" 2>&1)" || { echo "simulate refused the file: $sim"; exit 1; }
grep -qE "^  acceptance: .*acc\.json \(lynx-a4r4-g64, pooled over prompt lengths\)" <<<"$sim" \
  || { echo "simulate did not use the pooled statistics: $sim"; exit 1; }
echo "a small accuracy run leads to a simulation"
