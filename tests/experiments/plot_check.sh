#!/usr/bin/env bash
# `lynxsim run --plot` writes the TTFT-vs-bandwidth, relative and ratio plots as PNG and SVG, prints the ratio
# tables, and plotting again gives the same files.   plot_check.sh LYNXSIM EXPERIMENT
set -euo pipefail
lynxsim=$1
experiment=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$lynxsim" run "$experiment" --out "$tmp/r" -j 2 --plot >"$tmp/out.txt" 2>/dev/null
grep -q "int8-g64 ttft / lynx-a4r4-g64 ttft_spec" "$tmp/out.txt"
for stem in ttft_vs_nic_gbps ttft_relative_to_bf16 ratios; do
  for ext in png svg; do
    f="$tmp/r/$stem.$ext"
    [ -s "$f" ] || { echo "missing $f"; exit 1; }
  done
  head -c 8 "$tmp/r/$stem.png" | od -An -tx1 | grep -q "89 50 4e 47" || { echo "$stem.png is not a PNG"; exit 1; }
  grep -q "NIC bandwidth (Gbps)" "$tmp/r/$stem.svg" || { echo "$stem.svg has no axis label"; exit 1; }
  cp "$tmp/r/$stem.svg" "$tmp/$stem.first.svg"
done
"$lynxsim" plot "$tmp/r" >/dev/null
for stem in ttft_vs_nic_gbps ttft_relative_to_bf16 ratios; do
  cmp -s "$tmp/r/$stem.svg" "$tmp/$stem.first.svg" || { echo "$stem.svg differs when plotted again"; exit 1; }
done
echo "plots written and reproducible"
