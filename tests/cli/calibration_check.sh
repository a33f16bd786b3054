#!/usr/bin/env bash
# Calibration data is checked (models/readers/csv_table.hpp, common/data_manifest.hpp):
# - validate on a copy of the calibration folder with an impossible time (NaN, 0, -1) in the end-to-end
#   measurements: exit 2, one line naming the file, the row's line and the column, no MAPE printed;
# - a data folder file the manifest lists, changed: exit 2, one line naming the file and both sha256s; unchanged:
#   it runs, and the size+mtime cache goes where LYNX_CACHE_DIR says (never into the data folder).
set -uo pipefail
lynxsim="$1"; data="$2"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
export LYNX_CACHE_DIR="$tmp/cache"
refused() {  # EXPECTED_REGEX -- lynxsim ARGS...
  local expected="$1"; shift 2
  "$lynxsim" "$@" > "$tmp/out.txt" 2> "$tmp/err.txt"; local code=$?
  [ $code -eq 2 ] || fail "$* exited $code, expected 2: $(head -3 "$tmp/err.txt")"
  [ "$(grep -c '^lynxsim: error:' "$tmp/err.txt")" -eq 1 ] || fail "$*: expected one error line: $(cat "$tmp/err.txt")"
  grep -qE -- "$expected" "$tmp/err.txt" || fail "$*: message does not match /$expected/: $(cat "$tmp/err.txt")"
  grep -q "MAPE" "$tmp/out.txt" && fail "$*: printed a MAPE"
  return 0
}
[ -d "$data/calibration" ] || { echo "no calibration data in $data: skipped"; exit 77; }
cp -r "$data/calibration" "$tmp/cal"
perf="$tmp/cal/splitwise-sim/data/perf_model.csv"
cp "$perf" "$tmp/perf.orig"
for bad in nan 0 -1 inf; do
  # line 2, column 8 (prompt_time)
  awk -F, -v OFS=, -v v="$bad" 'NR == 2 { $8 = v } { print }' "$tmp/perf.orig" > "$perf"
  case $bad in
    nan|inf) expected="perf_model\.csv:2: column prompt_time is \"$bad\", not a finite number" ;;
    *) expected="perf_model\.csv:2: column prompt_time is a measured time, expected > 0, got $bad" ;;
  esac
  refused "$expected" -- validate --data-dir "$tmp/cal" --out "$tmp/v" --no-plot --quiet
done

mkdir -p "$tmp/data/traces/azure-llm-2023"
trace=traces/azure-llm-2023/AzureLLMInferenceTrace_code.csv
cp -p "$data/$trace" "$tmp/data/$trace"  # its old mtime: a file modified under 2 s ago is hashed, not cached
"$lynxsim" --data-dir "$tmp/data" trace-stats "@data/$trace" > /dev/null || fail "unchanged trace refused"
grep -q "$tmp/data/$trace	" "$tmp/cache/data-sha256.tsv" || fail "no cache line in $tmp/cache/data-sha256.tsv"
[ -z "$(find "$tmp/data" -name '*sha256*')" ] || fail "the cache went into the data folder"
echo "2023-11-16 18:17:03.9799600,100,10" >> "$tmp/data/$trace"
refused "$tmp/data/$trace: changed: its sha256 is [0-9a-f]{64}, scripts/data-manifest.tsv gives [0-9a-f]{64} for $trace" \
  -- --data-dir "$tmp/data" trace-stats "@data/$trace"
echo "calibration and data checks: every case as expected"
