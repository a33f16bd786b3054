#!/usr/bin/env bash
# `lynxsim run --plot` on a regime map (plot kind "regime-map"): one figure per baseline and contender (PNG and SVG):
# Lynx over int8, the adaptive format policy over int8 and over Lynx; regimes.json holds every gain, and each gain is
# the baseline's median over the contender's median of the same metric as summary.csv has them; each cell's spread
# (request counts, quartiles from the points' requests.csv, the gain between the quartiles), the figure's colour
# range (to its largest gain or loss, at least 1.5x) and white text on the dark cells only; four metrics (no TPOT);
# loads named in the user's terms (time_scale 2: "50% load", files "load50"); plotting again gives the same files.
#   regimes_check.sh LYNXSIM EXPERIMENT
set -euo pipefail
lynxsim=$1
experiment=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$lynxsim" run "$experiment" --out "$tmp/r" -j 2 --plot >"$tmp/out.txt" 2>/dev/null
stem="$tmp/r/regimes_int8-g64_lynx-a4r4-g64"
for s in "$stem" "$tmp/r/regimes_int8-g64_adaptive" "$tmp/r/regimes_lynx-a4r4-g64_adaptive"; do
  for ext in png svg; do [ -s "$s.$ext" ] || { echo "missing $s.$ext"; exit 1; }; done
done
grep -q "ttft_spec .*>= 1.1x" "$tmp/out.txt" || { echo "no cell counts printed"; exit 1; }
python=/usr/bin/python3
[ -x "$python" ] || python=python3
here=$(cd "$(dirname "$0")" && pwd)
"$python" - "$tmp/r" "$here/../../experiments" <<'PY'
import csv, json, math, sys
d = sys.argv[1]
sys.path.insert(0, sys.argv[2])
import plot_regimes
assert plot_regimes.value_text("workload.time_scale", 2.0) == "50% load"
assert plot_regimes.value_text("workload.time_scale", 1.25) == "80% load"
assert plot_regimes.file_token("workload.time_scale", 2.0) == "load50"
assert plot_regimes.file_token("workload.time_scale", 4.0) == "load25"
assert plot_regimes.value_text("cluster.network.site_links.0.cross_traffic.fraction", 0.5) == "50% cross traffic"
assert plot_regimes.value_text("cluster.network.site_links.0.latency_ms", 10.0) == "10 ms apart"
assert plot_regimes.tick_text("workload.synthetic.input_tokens.fixed", 130944.0) == "128K"
# Outlines follow the cell edges: a 2 x 2 grid with one cell inside has two edges, both on its sides.
import numpy as np
assert sorted(plot_regimes.edges(np.array([[True, False], [False, False]]))) == [((0, 1), (1, 1)), ((1, 0), (1, 1))]
rows = list(csv.DictReader(open(d + "/summary.csv")))
gains = json.load(open(d + "/regimes.json"))
# 4 metrics x 2 distances (rows) x 2 x 2 cells x 3 pairs (int8/Lynx, int8/adaptive, Lynx/adaptive)
assert len(gains) == 4 * 2 * 2 * 2 * 3, len(gains)
assert {g["metric"] for g in gains} == {"ttft_spec", "ttft_correct", "ttft", "e2el"}, {g["metric"] for g in gains}
def point(series, x, y, dist):
    found = [r for r in rows if [r["format"], r["transfer.format_policy"]] == series[:2] and
             (float(r["cluster.network.nic_gbps"]), float(r["workload.synthetic.input_tokens.fixed"]),
              float(r["cluster.network.site_links.0.latency_ms"])) == (x, y, dist)]
    assert len(found) == 1, (series, x, y, dist, len(found))
    return found[0]
def median(series, metric, x, y, dist):
    return float(point(series, x, y, dist)["median_%s_ms" % metric])
def quartiles(series, metric, x, y, dist):
    """p25 and p75 of the point's requests (ms), linear between the nearest ranks."""
    with open("%s/%s/requests.csv" % (d, point(series, x, y, dist)["point"])) as f:
        values = sorted(1000 * float(r[metric + "_s"]) for r in csv.DictReader(f))
    def pct(p):
        rank = p / 100 * (len(values) - 1)
        lo = int(math.floor(rank))
        hi = min(lo + 1, len(values) - 1)
        return values[lo] + (values[hi] - values[lo]) * (rank - lo)
    return len(values), [pct(25), pct(75)]
pairs = set()
for g in gains:
    pairs.add((tuple(g["baseline"][:2]), tuple(g["lynx"][:2])))
    want = median(g["baseline"], g["metric"], g["x"], g["y"], g["row"][0]) / median(g["lynx"], g["metric"], g["x"], g["y"], g["row"][0])
    assert abs(g["gain"] - want) <= 1e-12 * want, (g, want)
    # The spread: 8 requests a side, their quartiles, the gain between them.
    nb, bq = quartiles(g["baseline"], g["metric"], g["x"], g["y"], g["row"][0])
    nl, lq = quartiles(g["lynx"], g["metric"], g["x"], g["y"], g["row"][0])
    assert g["baseline_requests"] == nb == 8 and g["contender_requests"] == nl == 8, g
    for got, expected in zip(g["baseline_quartiles_ms"] + g["contender_quartiles_ms"], bq + lq):
        assert abs(got - expected) <= 1e-9 * expected, (g, bq, lq)
    low, high = g["gain_between_quartiles"]
    assert abs(low - bq[0] / lq[1]) <= 1e-9 * low and abs(high - bq[1] / lq[0]) <= 1e-9 * high, g
    assert low <= high, g
# The colour scale of a figure reaches its largest gain or loss (at least 1.5x), the same for all its cells; a
# cell's text is white where its colour is dark (far from 1 on that scale), black where it is pale (near 1).
by_file = {}
for g in gains:
    by_file.setdefault(g["file"], []).append(g)
assert sorted(by_file) == ["regimes_int8-g64_adaptive", "regimes_int8-g64_lynx-a4r4-g64",
                           "regimes_lynx-a4r4-g64_adaptive"], sorted(by_file)
dark = pale = 0
for cells in by_file.values():
    reach = max([1.5] + [max(c["gain"], 1 / c["gain"]) for c in cells])
    for c in cells:
        assert abs(c["colour_range"][1] - reach) <= 1e-12 * reach and abs(c["colour_range"][0] * reach - 1) <= 1e-12, c
        depth = abs(math.log(c["gain"])) / math.log(reach)
        if depth >= 0.7:
            assert c["text_colour"] == "white", c
            dark += 1
        if depth <= 0.3:
            assert c["text_colour"] == "black", c
            pale += 1
assert dark and pale, (dark, pale)
assert pairs == {(("int8-g64", ""), ("lynx-a4r4-g64", "")), (("int8-g64", ""), ("int8-g64", "adaptive")),
                 (("lynx-a4r4-g64", ""), ("int8-g64", "adaptive"))}, pairs
# At 10 Gbps the speculative first token comes before int8's (the anchor is half the bytes).
lynx_over_int8 = [g for g in gains if g["baseline"][0] == "int8-g64" and g["lynx"][0] == "lynx-a4r4-g64"]
assert all(g["gain"] > 1.1 for g in lynx_over_int8 if g["metric"] == "ttft_spec" and g["x"] == 10), gains
PY
cp "$stem.png" "$tmp/first.png"; cp "$stem.svg" "$tmp/first.svg"
"$lynxsim" plot "$tmp/r" >/dev/null
cmp -s "$stem.png" "$tmp/first.png" && cmp -s "$stem.svg" "$tmp/first.svg" || { echo "plotting again changed the figure"; exit 1; }
echo "regime map checked"
