#!/usr/bin/env bash
# `lynxsim simulate` with --timeline and the progress meter, end to end on a small synthetic workload:
# - stderr not a terminal: no progress line; --progress forces it; --progress with --no-progress is an error;
# - --timeline and --progress change no byte of requests.csv and summary.json;
# - the timeline is valid JSON and the same bytes on a second run; read as doubles its spans nest on every track and
#   each request's spans form one flow (scripts/timeline_check.py), also with --timeline-per-request;
# - a run that fails during the simulation leaves no timeline, no temporary file and no folder made for it.
set -uo pipefail
lynxsim="$1"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
config() {  # $1: input tokens
  cat <<JSON
{"model": "llama-3.1-8b", "format": "lynx-a4r4-g64", "compute_model": "roofline",
 "cluster": {"prefill": {"instances": 2}, "decode": {"instances": 2}, "network": {"nic_gbps": 25}},
 "lynx": {"acceptance_rate": 0.9},
 "workload": {"synthetic": {"arrival": "poisson", "rate_per_s": 20, "count": 40,
                            "input_tokens": {"uniform": [512, $1]}, "output_tokens": {"uniform": [4, 64]}}}}
JSON
}
config 16384 > "$tmp/ok.json"
config 200000 > "$tmp/too_long.json"   # longer than the model's context: an error while the run streams its workload

"$lynxsim" simulate --config "$tmp/ok.json" --out "$tmp/plain" > /dev/null 2> "$tmp/plain.err" || fail "plain run"
grep -q ' | ' "$tmp/plain.err" && fail "progress shown on a stderr that is not a terminal: $(cat "$tmp/plain.err")"
"$lynxsim" simulate --config "$tmp/ok.json" --out "$tmp/with" --timeline "$tmp/with/timeline.json" --progress \
  > /dev/null 2> "$tmp/with.err" || fail "run with --timeline"
grep -q '^simulated [0-9.]* s | [0-9]* / 40 requests' "$tmp/with.err" || fail "--progress: no progress line: $(cat "$tmp/with.err")"
cmp "$tmp/plain/requests.csv" "$tmp/with/requests.csv" || fail "--timeline changed requests.csv"
cmp "$tmp/plain/summary.json" "$tmp/with/summary.json" || fail "--timeline changed summary.json"
"$lynxsim" simulate --config "$tmp/ok.json" --out "$tmp/again" --timeline "$tmp/again.json" --no-progress --quiet \
  2> /dev/null || fail "second run"
cmp "$tmp/with/timeline.json" "$tmp/again.json" || fail "the timeline differs between two runs"
# read as doubles, as viewers read it: spans nest on every track, and each request's spans form one flow
python3 "$(dirname "$0")/../../scripts/timeline_check.py" "$tmp/again.json" || fail "timeline_check.py"
"$lynxsim" simulate --config "$tmp/ok.json" --out "$tmp/per" --timeline "$tmp/per.json" --timeline-per-request \
  --quiet 2> /dev/null || fail "--timeline-per-request"
python3 "$(dirname "$0")/../../scripts/timeline_check.py" "$tmp/per.json" || fail "timeline_check.py, per request"
[ "$(grep -c '"process_name"' "$tmp/per.json")" -eq 40 ] || fail "--timeline-per-request: not one process per request"
out="$("$lynxsim" simulate --config "$tmp/ok.json" --out "$tmp/y" --timeline-per-request 2>&1)"; code=$?
[ $code -eq 2 ] || fail "--timeline-per-request without --timeline: exit $code, expected 2: $out"
grep -q -- "--timeline-per-request requires --timeline" <<<"$out" || fail "unclear message: $out"
python3 -c 'import json, sys; t = json.load(open(sys.argv[1])); assert t["displayTimeUnit"] == "ms"; \
assert sum(e["ph"] == "X" for e in t["traceEvents"]) >= 40 * 6' "$tmp/again.json" || fail "timeline is not the JSON expected"
out="$("$lynxsim" simulate --config "$tmp/ok.json" --out "$tmp/x" --progress --no-progress 2>&1)"; code=$?
[ $code -eq 2 ] || fail "--progress --no-progress: exit $code, expected 2: $out"
grep -qE -- "--(no-)?progress excludes --(no-)?progress" <<<"$out" || fail "unclear message for --progress --no-progress: $out"

out="$("$lynxsim" simulate --config "$tmp/too_long.json" --out "$tmp/failed" --timeline "$tmp/new/dir/timeline.json" 2>&1)"
code=$?
[ $code -eq 2 ] || fail "a request over the context: exit $code ($out)"
[ -e "$tmp/new" ] && fail "a failed run left $(find "$tmp/new")"
[ -e "$tmp/failed" ] && fail "a failed run left $(find "$tmp/failed")"
echo "timeline: all checked"
