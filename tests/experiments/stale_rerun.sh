#!/usr/bin/env bash
# Results are reused only for the configuration they were computed from. After the experiment is edited, a rerun
# into the same results directory stops with one error naming a finished point and the first differing JSON path,
# suggesting --force, and changes nothing (not even experiment.json); an edit that changes no point (the
# description) reuses everything; a tampered or missing config.json is refused the same way; --force reruns and
# ends identical to a fresh run of the edited experiment. Each point's config.json reproduces its results byte for
# byte with `lynxsim simulate`.   stale_rerun.sh LYNXSIM
set -euo pipefail
lynxsim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
write_experiment() {  # write_experiment DESCRIPTION SEED
  cat >"$tmp/exp.json" <<JSON
{"name": "stale", "description": "$1",
 "base": {"model": "llama-3.1-8b", "seed": $2,
          "workload": {"synthetic": {"rate_per_s": 50, "count": 40, "input_tokens": {"uniform": [100, 3000]},
                                     "output_tokens": {"uniform": [1, 64]}}}},
 "sweep": {"axes": [{"path": "format", "values": ["bf16", "lynx-a4r4-g64"]},
                    {"path": "cluster.network.nic_gbps", "values": [10, 100]}]}}
JSON
}
run() { "$lynxsim" run "$tmp/exp.json" --out "$1" "${@:2}" 2>"$tmp/stderr"; }
expect() {  # expect TEXT FILE...
  local text=$1
  shift
  grep -qF -- "$text" "$@" || { echo "expected \"$text\" in $*:"; cat "$@"; exit 1; }
}
refused() {  # refused TEXT: the rerun exits 2 with one error holding TEXT and leaves $tmp/out as $tmp/before
  cp -r "$tmp/out" "$tmp/before"
  local code=0
  run "$tmp/out" >"$tmp/stdout" || code=$?
  [ "$code" -eq 2 ] || { echo "expected exit 2, got $code"; cat "$tmp/stderr"; exit 1; }
  [ "$(grep -c '^lynxsim: error:' "$tmp/stderr")" -eq 1 ] || { echo "expected one error line"; cat "$tmp/stderr"; exit 1; }
  expect "$1" "$tmp/stderr"
  expect "run with --force" "$tmp/stderr"
  diff -r "$tmp/before" "$tmp/out"
  rm -rf "$tmp/before"
}

write_experiment "first" 1
run "$tmp/out" >"$tmp/stdout"
expect "4 ran, 0 already finished" "$tmp/stdout"
cp -r "$tmp/out" "$tmp/seed1"

# Each point's config.json runs as is and reproduces the point's results byte for byte.
point="p0003_format=lynx-a4r4-g64_nic_gbps=100"
(cd / && "$lynxsim" simulate --config "$tmp/out/$point/config.json" --out "$tmp/single" --quiet 2>/dev/null)
cmp "$tmp/out/$point/summary.json" "$tmp/single/summary.json"
cmp "$tmp/out/$point/requests.csv" "$tmp/single/requests.csv"
cmp "$tmp/out/$point/config.json" "$tmp/single/config.json"

# Unchanged, or only the description changed: every point is reused.
write_experiment "second" 1
run "$tmp/out" >"$tmp/stdout"
expect "0 ran, 4 already finished" "$tmp/stdout"
diff -r -x experiment.json "$tmp/seed1" "$tmp/out"

# Another seed: refused, naming the first point and path; nothing changes.
write_experiment "second" 2
refused "p0000_format=bf16_nic_gbps=10: finished with another configuration than $tmp/exp.json gives now: \$.seed is 1 in the results, 2 now (config.json); 4 finished point(s) differ in all"
# --force: every point runs again, and the results are those of a fresh run, not the old ones.
run "$tmp/out" --force >"$tmp/stdout"
expect "4 ran, 0 already finished" "$tmp/stdout"
expect "4 of the points that ran had results from another configuration, now replaced" "$tmp/stdout"
run "$tmp/fresh" >/dev/null
diff -r "$tmp/fresh" "$tmp/out"
if diff -q "$tmp/seed1/p0000_format=bf16_nic_gbps=10/requests.csv" \
           "$tmp/out/p0000_format=bf16_nic_gbps=10/requests.csv" >/dev/null; then
  echo "seeds 1 and 2 gave the same requests: the check above proves nothing"
  exit 1
fi

# A record edited by hand: refused, naming that point and the path.
point="$tmp/out/p0001_format=bf16_nic_gbps=100"
sed -i 's/"seed": 2/"seed": 7/' "$point/config.json"
refused "p0001_format=bf16_nic_gbps=100: finished with another configuration than $tmp/exp.json gives now: \$.seed is 7 in the results, 2 now"
# An axis value edited in the record: the path is the nested one.
sed -i 's/"seed": 7/"seed": 2/; s/"nic_gbps": 100/"nic_gbps": 40/' "$point/config.json"
refused "\$.cluster.network.nic_gbps is 40 in the results, 100 now"
# A missing record (results of an older lynxsim): refused too.
rm "$point/config.json"
refused "p0001_format=bf16_nic_gbps=100: finished with another configuration than $tmp/exp.json gives now: no config.json"

# --force: everything runs again, to the same files.
run "$tmp/out" --force >"$tmp/stdout"
expect "4 ran, 0 already finished" "$tmp/stdout"
diff -r "$tmp/fresh" "$tmp/out"
echo "edited experiment: refused with the point and path, unchanged reused, --force reruns all; results equal a fresh run"
