#!/usr/bin/env bash
# `lynxsim run --plot` on a regime map (plot kind "regime-map"): one figure per baseline and contender (PNG and SVG):
# Lynx over int8, the adaptive format policy over int8 and over Lynx; regimes.json holds every gain, and each gain is
# the baseline's median over the contender's median of the same metric as summary.csv has them; plotting again gives
# the same files.   regimes_check.sh LYNXSIM EXPERIMENT
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
python3 - "$tmp/r" <<'PY'
import csv, json, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(d + "/summary.csv")))
gains = json.load(open(d + "/regimes.json"))
# 5 metrics x 2 distances (rows) x 2 x 2 cells x 3 pairs (int8/Lynx, int8/adaptive, Lynx/adaptive)
assert len(gains) == 5 * 2 * 2 * 2 * 3, len(gains)
def median(series, metric, x, y, dist):
    found = [r for r in rows if [r["format"], r["transfer.format_policy"]] == series[:2] and
             (float(r["cluster.network.nic_gbps"]), float(r["workload.synthetic.input_tokens.fixed"]),
              float(r["cluster.network.site_links.0.latency_ms"])) == (x, y, dist)]
    assert len(found) == 1, (series, x, y, dist, len(found))
    return float(found[0]["median_%s_ms" % metric])
pairs = set()
for g in gains:
    pairs.add((tuple(g["baseline"][:2]), tuple(g["lynx"][:2])))
    want = median(g["baseline"], g["metric"], g["x"], g["y"], g["row"][0]) / median(g["lynx"], g["metric"], g["x"], g["y"], g["row"][0])
    assert abs(g["gain"] - want) <= 1e-12 * want, (g, want)
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
