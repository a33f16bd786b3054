#!/usr/bin/env bash
# `lynxsim run --plot` writes the TTFT-vs-bandwidth, relative and ratio plots as PNG and SVG, prints the ratio
# tables, and plotting again gives the same files (PNG and SVG, byte for byte).   plot_check.sh LYNXSIM EXPERIMENT
set -euo pipefail
lynxsim=$1
experiment=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$lynxsim" run "$experiment" --out "$tmp/r" -j 2 --plot >"$tmp/out.txt" 2>/dev/null
# The ratios compare like with like: int8's time over Lynx's, for each of the three first-token definitions.
for d in ttft_spec ttft_correct ttft; do grep -q "int8-g64 $d / lynx-a4r4-g64 $d\$" "$tmp/out.txt"; done
if grep -q "different definitions" "$tmp/out.txt"; then echo "a ratio mixes definitions"; exit 1; fi
for stem in ttft_vs_nic_gbps ttft_relative_to_bf16 ratios speculation; do
  for ext in png svg; do
    f="$tmp/r/$stem.$ext"
    [ -s "$f" ] || { echo "missing $f"; exit 1; }
  done
  head -c 8 "$tmp/r/$stem.png" | od -An -tx1 | grep -q "89 50 4e 47" || { echo "$stem.png is not a PNG"; exit 1; }
  # The x label is the schema's meaning and unit of cluster.network.nic_gbps, not its path.
  grep -q "Network: bandwidth of each NIC" "$tmp/r/$stem.svg" || { echo "$stem.svg has no axis label"; exit 1; }
  ! grep -q "cluster.network.nic_gbps" "$tmp/r/$stem.svg" || { echo "$stem.svg shows a raw JSON path"; exit 1; }
  grep -q "llama-3.1-8b on a star network: prefill 1 x 1 GPU" "$tmp/r/$stem.svg" \
    || { echo "$stem.svg has no topology and pools in its title"; exit 1; }
  cp "$tmp/r/$stem.svg" "$tmp/$stem.first.svg"
  cp "$tmp/r/$stem.png" "$tmp/$stem.first.png"
done
"$lynxsim" plot "$tmp/r" --data "$tmp/drawn.json" >/dev/null
# What each panel shows follows the rules (tests/experiments/plot_data_check.py drawn).
here=$(cd "$(dirname "$0")" && pwd)
/usr/bin/python3 "$here/plot_data_check.py" drawn "$tmp/drawn.json" "$tmp/r" \
  "Network: bandwidth of each NIC's link to its switch (Gbps)" || { echo "what is drawn breaks a rule"; exit 1; }
for stem in ttft_vs_nic_gbps ttft_relative_to_bf16 ratios speculation; do
  for ext in svg png; do
    cmp -s "$tmp/r/$stem.$ext" "$tmp/$stem.first.$ext" || { echo "$stem.$ext differs when plotted again"; exit 1; }
  done
done
echo "plots written and reproducible"
