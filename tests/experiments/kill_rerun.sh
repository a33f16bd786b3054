#!/usr/bin/env bash
# A sweep killed with SIGKILL at any moment reruns to results byte-identical to an uninterrupted run, and its
# points die with it (no orphan goes on writing).   kill_rerun.sh LYNXSIM EXPERIMENT
# For each delay the run is killed once, its rerun killed again after half the delay, and a last rerun finishes
# it; `diff -r` then compares the whole tree (stale temporaries, records and summaries included) with the
# uninterrupted run. The test fails unless most kills landed while points were still to run.
set -euo pipefail
lynxsim=$1
experiment=$2
tmp=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
count() { { find "$1" -mindepth 2 -maxdepth 2 -name summary.json 2>/dev/null || true; } | wc -l; }

"$lynxsim" run "$experiment" --out "$tmp/whole" -j 2 >/dev/null 2>&1
total=$(count "$tmp/whole")
[ "$total" -ge 4 ] || { echo "the uninterrupted run finished only $total points"; exit 1; }

# Starts a run into $1 and kills it with SIGKILL after $2 s; prints 1 when the kill landed before the end.
kill_after() {
  local out=$1 delay=$2 mid=0 killed=0 code=0
  "$lynxsim" run "$experiment" --out "$out" -j 2 >/dev/null 2>&1 &
  pid=$!
  sleep "$delay"
  if kill -KILL "$pid" 2>/dev/null; then
    killed=1
    [ "$(count "$out")" -lt "$total" ] && mid=1
  fi
  wait "$pid" 2>/dev/null || code=$?
  # Killed: 137 (SIGKILL), or 0 where it had just ended; else it ran to its end and exited 0.
  if [ $code -ne 0 ] && { [ $killed -eq 0 ] || [ $code -ne 137 ]; }; then
    echo "a run into $out exited $code (killed: $killed)" >&2; exit 1
  fi
  pid=""
  # The points in flight died with the sweep: nothing finishes after the kill.
  local after
  after=$(count "$out")
  sleep 1
  if [ "$(count "$out")" -ne "$after" ]; then echo "a point finished after its sweep was killed" >&2; exit 1; fi
  echo "$mid"
}

mid_kills=0
kills=0
for delay in 0.1 0.5 1.5 3; do
  cut="$tmp/cut_$delay"
  m1=$(kill_after "$cut" "$delay")
  m2=$(kill_after "$cut" "$(awk "BEGIN { print $delay / 2 }")")
  mid_kills=$((mid_kills + m1 + m2))
  kills=$((kills + 2))
  "$lynxsim" run "$experiment" --out "$cut" -j 2 >/dev/null 2>&1
  if ! diff -r "$tmp/whole" "$cut"; then echo "killed after ${delay} s: the rerun differs from the uninterrupted run"; exit 1; fi
done
if [ "$mid_kills" -lt $((kills / 2)) ]; then
  echo "only $mid_kills of $kills kills landed before the sweep ended: the test sweep is too short to check anything"
  exit 1
fi
echo "$mid_kills of $kills SIGKILLs landed mid-sweep; every rerun is identical to the uninterrupted run ($total points)"
