#!/usr/bin/env bash
# `lynxsim run --plot` on a regime map (plot kind "regime-map"): one figure per baseline and Lynx value (PNG and SVG),
# regimes.json holds every gain, and each gain is int8's median over Lynx's median of the same metric as summary.csv
# has them; plotting again gives the same files.   regimes_check.sh LYNXSIM EXPERIMENT
set -euo pipefail
lynxsim=$1
experiment=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$lynxsim" run "$experiment" --out "$tmp/r" -j 2 --plot >"$tmp/out.txt" 2>/dev/null
stem="$tmp/r/regimes_int8-g64_lynx-a4r4-g64"
for ext in png svg; do [ -s "$stem.$ext" ] || { echo "missing $stem.$ext"; exit 1; }; done
grep -q "ttft_spec .*>= 1.1x" "$tmp/out.txt" || { echo "no cell counts printed"; exit 1; }
python3 - "$tmp/r" <<'PY'
import csv, json, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(d + "/summary.csv")))
gains = json.load(open(d + "/regimes.json"))
assert len(gains) == 5 * 2 * 2 * 2, len(gains)  # 5 metrics x 2 distances (rows) x 2 x 2 cells
def median(fmt, metric, x, y, dist):
    for r in rows:
        if (r["format"], float(r["cluster.network.nic_gbps"]), float(r["workload.synthetic.input_tokens.fixed"]),
                float(r["cluster.network.site_links.0.latency_ms"])) == (fmt, x, y, dist):
            return float(r["median_%s_ms" % metric])
for g in gains:
    want = median("int8-g64", g["metric"], g["x"], g["y"], g["row"][0]) / median("lynx-a4r4-g64", g["metric"], g["x"], g["y"], g["row"][0])
    assert abs(g["gain"] - want) <= 1e-12 * want, (g, want)
# At 10 Gbps the speculative first token comes before int8's (the anchor is half the bytes).
assert all(g["gain"] > 1.1 for g in gains if g["metric"] == "ttft_spec" and g["x"] == 10), gains
PY
cp "$stem.png" "$tmp/first.png"; cp "$stem.svg" "$tmp/first.svg"
"$lynxsim" plot "$tmp/r" >/dev/null
cmp -s "$stem.png" "$tmp/first.png" && cmp -s "$stem.svg" "$tmp/first.svg" || { echo "plotting again changed the figure"; exit 1; }
echo "regime map checked"
