#!/usr/bin/env bash
# Results are reused only for the configuration they were computed from: after the experiment is edited, a rerun
# into the same results directory runs the changed points again (and says so) and ends identical to a fresh run of
# the edited experiment; an edit that changes no point (the description) reuses everything; a tampered record
# reruns its point; --force reruns every point.   stale_rerun.sh LYNXSIM
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

write_experiment "first" 1
run "$tmp/out" >"$tmp/stdout"
expect "4 ran, 0 already finished" "$tmp/stdout"
cp -r "$tmp/out" "$tmp/seed1"

# Unchanged, or only the description changed: every point is reused.
write_experiment "second" 1
run "$tmp/out" >"$tmp/stdout"
expect "0 ran, 4 already finished" "$tmp/stdout"
diff -r -x experiment.json "$tmp/seed1" "$tmp/out"

# Another seed: every point runs again, said once, and the results are those of a fresh run, not the old ones.
write_experiment "second" 2
run "$tmp/out" >"$tmp/stdout"
expect "4 ran, 0 already finished" "$tmp/stdout"
expect "4 finished point(s) were computed from another configuration" "$tmp/stderr"
run "$tmp/fresh" >/dev/null
diff -r "$tmp/fresh" "$tmp/out"
if diff -q "$tmp/seed1/p0000_format=bf16_nic_gbps=10/requests.csv" \
           "$tmp/out/p0000_format=bf16_nic_gbps=10/requests.csv" >/dev/null; then
  echo "seeds 1 and 2 gave the same requests: the check above proves nothing"
  exit 1
fi

# A record that no longer matches (edited by hand, or missing): that point alone runs again.
point="$tmp/out/p0001_format=bf16_nic_gbps=100"
sed -i 's/"seed": 2/"seed": 7/' "$point/resolved_config.json"
rm "$tmp/out/p0002_format=lynx-a4r4-g64_nic_gbps=10/resolved_config.json"
run "$tmp/out" >"$tmp/stdout"
expect "2 ran, 2 already finished" "$tmp/stdout"
diff -r "$tmp/fresh" "$tmp/out"

# --force: everything runs again, to the same files.
run "$tmp/out" --force >"$tmp/stdout"
expect "4 ran, 0 already finished" "$tmp/stdout"
diff -r "$tmp/fresh" "$tmp/out"
echo "edited experiment: changed points rerun, unchanged reused, --force reruns all; results equal a fresh run"
