#!/usr/bin/env bash
# The main job of `make demo`: the default TTFT-vs-bandwidth experiment (experiments/ttft_vs_bandwidth.json: the
# whole Mooncake conversation trace, Llama-3.1-8B and -70B, bf16/int8/int4/Lynx, NIC 10 to 400 Gbps), then its plots.
# A rerun skips the points already finished (delete results/ttft_vs_bandwidth to start over).
set -euo pipefail
build=${1:-build}
out=${2:-results/ttft_vs_bandwidth}
jobs=$(nproc)
"$build/app/lynxsim" run experiments/ttft_vs_bandwidth.json --out "$out" --jobs "$jobs" --plot
echo
echo "Plots (PNG and SVG) are in $out/:"
ls "$out"/*.png | sed 's/^/  /'
echo "Per-point results: $out/summary.csv and $out/p*/{summary.json,requests.csv}"
