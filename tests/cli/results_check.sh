#!/usr/bin/env bash
# Readers of lynxsim's own results verify them (experiments/results.hpp), and two runs into one folder:
# - merge: shards disagreeing on a point (both files named), a point's config.json corrupt or another point's, a
#   point without summary.json, a point in no shard, --out holding another experiment's results;
# - plot: summary.csv with NaN, cut short, a missing column; a requests.csv cut mid-row; plot --data writes
#   valid JSON (no NaN, no Infinity);
# - two `run`s into one --out at once: both exit 0, no "failed", the results equal a single run's;
# - a sweep point that fails at run time because of a --set override names the override, as `simulate` does.
# Each refusal: exit 2, one "lynxsim: error:" line naming the file, no traceback, the output folder untouched.
set -uo pipefail
lynxsim="$1"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
cd "$tmp" || exit 1
refused() {  # EXPECTED_REGEX -- lynxsim ARGS...
  local expected="$1"; shift 2
  "$lynxsim" "$@" > out.txt 2> err.txt; local code=$?
  [ $code -eq 2 ] || fail "$* exited $code, expected 2: $(cat err.txt)"
  [ "$(grep -c '^lynxsim: error:' err.txt)" -eq 1 ] || fail "$*: expected one error line: $(cat err.txt)"
  grep -qE -- "$expected" err.txt || fail "$*: message does not match /$expected/: $(cat err.txt)"
  grep -qiE 'internal error|Traceback' err.txt && fail "$*: $(cat err.txt)"
  return 0
}
printf '{"timestamp": 0, "input_length": 600, "output_length": 4, "hash_ids": [1, 2]}\n{"timestamp": 5, "input_length": 700, "output_length": 3, "hash_ids": [1, 3]}\n' > t.jsonl
experiment() {  # $1: name
  cat <<JSON
{"name": "$1", "base": {"model": "llama-3.1-8b", "format": "bf16",
  "cluster": {"prefill": {"instances": 1}, "decode": {"instances": 1}}, "workload": {"trace": "t.jsonl"}},
 "sweep": {"axes": [{"path": "format", "values": ["bf16"]}, {"path": "cluster.network.nic_gbps", "values": [25, 100]}]},
 "plot": {"x": "cluster.network.nic_gbps", "series": "format"}}
JSON
}
experiment verify > e.json
experiment other > other.json
"$lynxsim" run e.json --out full > /dev/null 2>&1 || fail "run e.json"
"$lynxsim" run e.json --out s1 --shard 1/2 > /dev/null 2>&1 || fail "shard 1"
"$lynxsim" run e.json --out s2 --shard 2/2 > /dev/null 2>&1 || fail "shard 2"
"$lynxsim" run other.json --out foreign > /dev/null 2>&1 || fail "run other.json"
p0="$(basename "$(ls -d full/p0000_*)")"; p1="$(basename "$(ls -d full/p0001_*)")"
shards() { rm -rf a b; cp -r s1 a; cp -r s2 b; }

# merge
shards; cp -r full/"$p1" a/; sed -i '2s/,[0-9]/,9/' a/"$p1"/requests.csv
refused "a/$p1/requests.csv and b/$p1/requests.csv differ|b/$p1/requests.csv and a/$p1/requests.csv differ" -- merge --out m a b
[ -e m ] && fail "a refused merge left m"
shards; echo '{"broken' > a/"$p0"/config.json
refused "a/$p0/config.json:1:[0-9]+: malformed JSON" -- merge --out m a b
shards; cp b/"$p1"/config.json a/"$p0"/config.json
refused "a/$p0/config.json: not this point's configuration: \\\$\.cluster\.network\.nic_gbps differs" -- merge --out m a b
shards; rm a/"$p0"/summary.json
refused "a/$p0/summary.json: missing \(point $p0 is not finished" -- merge --out m a b
shards; rm -r b/"$p1"
refused "point $p1 is in none of the 2 results directories" -- merge --out m a b
shards
refused "--out foreign holds the results of another experiment" -- merge --out foreign a b
[ "$(ls foreign | wc -l)" -eq 4 ] || fail "a refused merge changed foreign/"
"$lynxsim" merge --out m a b > /dev/null || fail "merge a b"
diff -r full m > /dev/null || fail "merged shards differ from the unsharded run"

# plot (summary.csv and requests.csv checked before the script runs)
damaged() { rm -rf d; cp -r full d; }
damaged; sed -i '2s/,[0-9.e+-]*$/,nan/' d/summary.csv
refused 'd/summary\.csv:2: column [a-z_0-9]+ is nan, not a finite number' -- plot d --metric ttft --data d.json
damaged; head -c -5 d/summary.csv > x && mv x d/summary.csv
refused 'd/summary\.csv: cut short|d/summary\.csv:3: [0-9]+ cells, the header has' -- plot d --metric ttft
damaged; cut -d, -f1,3- d/summary.csv > x && mv x d/summary.csv
refused 'd/summary\.csv:1: not the header this experiment' -- plot d --metric ttft
damaged; head -c -7 d/"$p0"/requests.csv > x && mv x d/"$p0"/requests.csv
refused "d/$p0/requests\.csv: cut short" -- plot d --metric ttft
damaged; cut -d, -f2- d/"$p0"/requests.csv > x && mv x d/"$p0"/requests.csv
refused "d/$p0/requests\.csv:1: not the header of requests\.csv" -- plot d --metric ttft
damaged; rm d/"$p1"/summary.json
refused "d/$p1/summary\.json: missing" -- plot d --metric ttft
# --data: valid JSON, a metric no request has (itl: every request here decodes) is null, never NaN
"$lynxsim" plot full --metric ttft --data data.json > /dev/null 2>&1 || fail "plot --data"
python3 -c 'import json, sys; json.load(open(sys.argv[1]), parse_constant=lambda c: sys.exit("not JSON: " + c))' data.json \
  || fail "--data is not valid JSON"

# Two runs into one folder at once: one waits for the other, both succeed, the results equal the single run's.
"$lynxsim" run e.json --out both --jobs 2 > r1.out 2> r1.err & first=$!
"$lynxsim" run e.json --out both --jobs 2 > r2.out 2> r2.err; second=$?
wait $first; first=$?
[ $first -eq 0 ] && [ $second -eq 0 ] || fail "concurrent runs exited $first and $second: $(cat r1.err r2.err)"
grep -q "failed:" r1.err r2.err && fail "a concurrent run reported a failure: $(cat r1.err r2.err)"
grep -q " 0 failed" r1.out && grep -q " 0 failed" r2.out || fail "concurrent runs: $(cat r1.out r2.out)"
diff -r -x "*.png" -x "*.svg" full both > /dev/null || fail "concurrent runs' results differ from a single run's"

# A point's run-time error (a cross-field check made when the point runs) names the --set override that caused it.
"$lynxsim" run e.json --out blamed --set cluster.router=prefix-aware > blame.out 2> blame.err; code=$?
[ $code -eq 2 ] || fail "run with a failing override exited $code: $(cat blame.err)"
[ "$(grep -c '^point .* failed: --set cluster\.router=prefix-aware: .*\$\.cluster\.router: ' blame.err)" -eq 2 ] \
  || fail "point failures do not name the override: $(cat blame.err)"
echo "results checks: every case as expected"
