#!/usr/bin/env bash
# Runs every libFuzzer harness of a fuzz build for a set time, FUZZ_JOBS at a time (make fuzz, make fuzz-short).
#   fuzz/run.sh BUILD_DIR SECONDS [HARNESS...]
# Each harness starts from its committed seeds (fuzz/corpus/<name>/) and grows a working corpus in
# BUILD_DIR/fuzz-corpus/<name>/ (kept between runs, never committed). A finding (crash, hang over 10 s, sanitizer
# report, foreign exception) is saved in BUILD_DIR/fuzz-findings/<name>/ and fails the run. One line per harness:
# runs, execs/s, coverage (edges), corpus size, result; full logs in BUILD_DIR/fuzz-logs/<name>.log.
# FUZZ_JOBS harnesses run at once (default 2); FUZZ_SEED fixes libFuzzer's random seed (default 0: a new one).
set -uo pipefail
build=${1:?usage: fuzz/run.sh BUILD_DIR SECONDS [HARNESS...]}
seconds=${2:?usage: fuzz/run.sh BUILD_DIR SECONDS [HARNESS...]}
shift 2
here=$(cd "$(dirname "$0")" && pwd)
jobs=${FUZZ_JOBS:-2}
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  names=(trace_mooncake trace_azure trace_burstgpt trace_vidur trace_csv trace_jsonl kv_format sim_config experiment set_override parquet csv_cache safetensors hf_config)
fi
mkdir -p "$build/fuzz-corpus" "$build/fuzz-findings" "$build/fuzz-logs"
# Leaks are checked by the sanitized test suite; here they would stop a harness on libFuzzer's own exit path.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

run_one() {
  local name=$1 binary="$build/fuzz/fuzz_$1"
  local corpus="$build/fuzz-corpus/$name" findings="$build/fuzz-findings/$name/" log="$build/fuzz-logs/$name.log"
  mkdir -p "$corpus" "$findings"
  "$binary" -max_total_time="$seconds" -seed="${FUZZ_SEED:-0}" -timeout=10 -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 \
    -artifact_prefix="$findings" "$corpus" "$here/corpus/$name" >"$log" 2>&1
  local code=$?
  local runs speed cov
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  local result="clean"
  [ "$code" -ne 0 ] && result="FINDING (exit $code): $(ls "$findings" | head -3 | tr '\n' ' ')"
  printf '%-16s %6ss  %10s runs  %7s execs/s  cov %6s  corpus %5s  %s\n' "$name" "$seconds" "${runs:-?}" \
    "${speed:-?}" "${cov:-?}" "$(ls "$corpus" | wc -l)" "$result"
  return "$code"
}

failed=0
pids=()
for name in "${names[@]}"; do
  if [ ! -x "$build/fuzz/fuzz_$name" ]; then echo "fuzz/run.sh: $build/fuzz/fuzz_$name not built" >&2; exit 2; fi
  run_one "$name" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$jobs" ]; then
    wait "${pids[0]}" || failed=1
    pids=("${pids[@]:1}")
  fi
done
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
if [ "$failed" -ne 0 ]; then echo "fuzz: findings above (inputs in $build/fuzz-findings/, logs in $build/fuzz-logs/)"; exit 1; fi
echo "fuzz: every harness ran ${seconds} s without a finding"
