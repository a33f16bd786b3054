#!/usr/bin/env bash
# A sweep interrupted with SIGINT leaves no partial file, exits 2 saying it was interrupted, and a rerun finishes it
# with results identical to an uninterrupted run.   interrupt_rerun.sh LYNXSIM EXPERIMENT
set -euo pipefail
lynxsim=$1
experiment=$2
tmp=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
count() { { find "$1" -mindepth 2 -maxdepth 2 -name summary.json 2>/dev/null || true; } | wc -l; }
"$lynxsim" run "$experiment" --out "$tmp/whole" -j 2 >/dev/null 2>&1
total=$(count "$tmp/whole")

"$lynxsim" run "$experiment" --out "$tmp/cut" -j 1 >/dev/null 2>"$tmp/cut.err" &
pid=$!
for _ in $(seq 1 400); do
  done_points=$(count "$tmp/cut")
  [ "$done_points" -ge 3 ] && break
  sleep 0.02
done
kill -INT "$pid"
set +e
wait "$pid"
code=$?
set -e
pid=""
finished=$(count "$tmp/cut")
if [ "$finished" -ge "$total" ]; then echo "the run ended before it could be interrupted"; exit 1; fi
if [ "$code" -ne 2 ] || ! grep -q "^lynxsim: error: interrupted: " "$tmp/cut.err"; then
  echo "an interrupted run exited $code, expected 2 with \"lynxsim: error: interrupted: ...\":"; cat "$tmp/cut.err"; exit 1
fi
if find "$tmp/cut" -name '*.tmp.*' | grep -q .; then echo "partial files left:"; find "$tmp/cut" -name '*.tmp.*'; exit 1; fi
"$lynxsim" run "$experiment" --out "$tmp/cut" -j 2 >/dev/null 2>&1
diff -r "$tmp/whole" "$tmp/cut"
echo "interrupted after $finished of $total points (exit $code), no partial file, rerun identical"
