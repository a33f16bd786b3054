#!/usr/bin/env bash
# `lynxsim plot RUN --gantt IDS` on a small Lynx run and an int8 run: the figure's bars (--data) are each request's
# phases at the times requests.csv holds (ms since its arrival), with the same span names the timeline writes for
# that request (--timeline-per-request); PNG and SVG are written and the same bytes when drawn again; a bad id, an id
# not in the run, a folder without requests.csv and an option of the sweep plots are one clear error each.
#   gantt_check.sh LYNXSIM
set -euo pipefail
lynxsim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
python=/usr/bin/python3
[ -x "$python" ] || python=python3
config() {  # $1: format
  cat <<JSON
{"model": "llama-3.1-8b", "format": "$1", "compute_model": "roofline",
 "cluster": {"prefill": {"instances": 2}, "decode": {"instances": 2}, "network": {"nic_gbps": 10}},
 "lynx": {"acceptance_rate": 0.9},
 "workload": {"synthetic": {"arrival": "poisson", "rate_per_s": 20, "count": 12,
                            "input_tokens": {"uniform": [2048, 16384]}, "output_tokens": {"uniform": [8, 64]}}}}
JSON
}
config lynx-a4r4-g64 >"$tmp/lynx.json"
config int8-g64 >"$tmp/int8.json"
for f in lynx int8; do
  "$lynxsim" simulate --config "$tmp/$f.json" --out "$tmp/$f" --timeline "$tmp/$f/timeline.json" \
    --timeline-per-request >/dev/null 2>&1 || fail "simulate $f"
done
mkdir "$tmp/figs"
"$lynxsim" plot "$tmp/lynx" --gantt 0,5,11 --out "$tmp/figs" --data "$tmp/lynx_gantt.json" >"$tmp/out.txt"
"$lynxsim" plot "$tmp/int8" --gantt 3 --data "$tmp/int8_gantt.json" >/dev/null
for f in "$tmp/figs/gantt_0_5_11" "$tmp/int8/gantt_3"; do
  for ext in png svg; do [ -s "$f.$ext" ] || fail "missing $f.$ext"; done
done
"$python" - "$tmp" <<'PY' || fail "the Gantt's bars differ from requests.csv or the timeline"
import csv, json, sys
d = sys.argv[1]
def check(run, data, ids, lynx):
    rows = {int(r["id"]): r for r in csv.DictReader(open("%s/%s/requests.csv" % (d, run)))}
    timeline = json.load(open("%s/%s/timeline.json" % (d, run)))["traceEvents"]
    drawn = json.load(open(data))
    assert [r["id"] for r in drawn["requests"]] == ids, drawn["requests"]
    for r in drawn["requests"]:
        row = rows[r["id"]]
        t = lambda column: float(row[column])
        ms = lambda column: (t(column) - t("arrival_s")) * 1000
        bars = {b["name"]: (b["start_ms"], b["end_ms"]) for b in r["bars"]}
        want = {"prefill": (ms("prefill_start_s"), ms("prefill_end_s")), "decode": None}
        if lynx:
            want["anchor transfer"] = (ms("transfer_start_s"), ms("anchor_arrival_s"))
            want["residual transfer"] = (ms("transfer_start_s"), ms("residual_arrival_s"))
            want["verification"] = (max(ms("residual_arrival_s"), ms("first_spec_token_s")), ms("verify_s"))
            want["decode"] = (ms("verify_s"), ms("end_s"))
            assert "drafting" in bars, bars
            assert r["lanes"] == ["prefill instance %s" % row["prefill_instance"], "anchor stream",
                                  "residual stream", "decode instance %s" % row["decode_instance"]], r["lanes"]
        else:
            want["KV transfer"] = (ms("transfer_start_s"), ms("anchor_arrival_s"))
            want["decode"] = (ms("decode_start_s"), ms("end_s"))
            assert r["lanes"] == ["prefill instance %s" % row["prefill_instance"], "KV stream",
                                  "decode instance %s" % row["decode_instance"]], r["lanes"]
        for name, (start, end) in want.items():
            got = bars[name]
            assert abs(got[0] - start) < 1e-6 and abs(got[1] - end) < 1e-6, (r["id"], name, got, start, end)
        marks = {m["name"]: m["at_ms"] for m in r["marks"]}
        assert abs(marks["first token"] - ms("first_token_s")) < 1e-6, marks
        assert ("first draft" in marks) == lynx, marks
        # The same phases the timeline shows for this request (spans of at least one tick there).
        pid = next(e["pid"] for e in timeline if e.get("ph") == "M" and e.get("name") == "process_name"
                   and e["args"]["name"] == "request %d" % r["id"])
        spans = {e["name"] for e in timeline if e.get("ph") == "X" and e["pid"] == pid}
        assert spans == set(bars), (r["id"], sorted(spans), sorted(bars))
    assert all(n in drawn["key"] for r in drawn["requests"] for n in [b["name"] for b in r["bars"]])
check("lynx", d + "/lynx_gantt.json", [0, 5, 11], True)
check("int8", d + "/int8_gantt.json", [3], False)
PY
cp "$tmp/figs/gantt_0_5_11.png" "$tmp/first.png"
cp "$tmp/figs/gantt_0_5_11.svg" "$tmp/first.svg"
"$lynxsim" plot "$tmp/lynx" --gantt 0,5,11 --out "$tmp/figs" >/dev/null
cmp -s "$tmp/first.png" "$tmp/figs/gantt_0_5_11.png" && cmp -s "$tmp/first.svg" "$tmp/figs/gantt_0_5_11.svg" \
  || fail "drawing again changed the figure"
bad() {  # bad EXPECTED_TEXT ARGS...
  local expected=$1 status=0
  shift
  "$lynxsim" "$@" >/dev/null 2>"$tmp/err.txt" || status=$?
  [ "$status" = 2 ] || fail "lynxsim $* exited $status, expected 2"
  [ "$(wc -l <"$tmp/err.txt")" = 1 ] || fail "lynxsim $*: not one line: $(cat "$tmp/err.txt")"
  grep -qF -- "$expected" "$tmp/err.txt" || fail "lynxsim $*: no \"$expected\" in: $(cat "$tmp/err.txt")"
}
bad "--gantt 0,x: \"x\" is not a request id" plot "$tmp/lynx" --gantt 0,x
bad "--gantt 40: $tmp/lynx/requests.csv has no request 40 (12 requests, ids 0 to 11)" plot "$tmp/lynx" --gantt 40
bad "--gantt 2,2: request 2 named twice" plot "$tmp/lynx" --gantt 2,2
bad "$tmp/figs/requests.csv: not found (--gantt reads the requests.csv" plot "$tmp/figs" --gantt 1
bad "--metric: not used with --gantt" plot "$tmp/lynx" --gantt 1 --metric ttft
echo "gantt checked"
