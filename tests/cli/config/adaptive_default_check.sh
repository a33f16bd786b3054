#!/usr/bin/env bash
# The adaptive format policy's default minimum gain (transfer.adaptive_min_gain) on README's example: the Mooncake
# configuration at 10 Gbps, int8 against Lynx. Lynx's anchor is predicted ahead for every request, so a default of 1
# sent Lynx for all 12,031; the default must leave some requests on int8 and send Lynx for others, and the terminal
# summary must say which it chose and where the acceptance comes from.
set -uo pipefail
lynxsim="$1"; config="$2"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
out="$("$lynxsim" simulate --config "$config" --out "$tmp/out" --set format=int8-g64 \
  --set transfer.format_policy=adaptive --set 'transfer.adaptive_formats=["lynx-a4r4-g64"]' \
  --set cluster.network.nic_gbps=10 2>&1)" || { echo "simulate failed: $out"; exit 1; }
line="$(grep -E '^  formats chosen \(transfer.format_policy adaptive\): ' <<<"$out")" || { echo "no formats line: $out"; exit 1; }
int8="$(sed -E 's/.*int8-g64 ([0-9]+).*/\1/' <<<"$line")"; lynx="$(sed -E 's/.*lynx-a4r4-g64 ([0-9]+).*/\1/' <<<"$line")"
[[ "$int8" =~ ^[0-9]+$ && "$lynx" =~ ^[0-9]+$ ]] || { echo "unreadable: $line"; exit 1; }
(( int8 > 0 && lynx > 0 && int8 + lynx == 12031 )) || { echo "one format for all (or a wrong count): $line"; exit 1; }
grep -qE '^  ttft_correct mean ' <<<"$out" || { echo "no ttft_correct line"; exit 1; }
grep -qE '^  acceptance: .*a stand-in' <<<"$out" || { echo "no acceptance provenance"; exit 1; }
grep -qE '^  acceptance extrapolated for [0-9]+ of 12031 requests' <<<"$out" || { echo "no extrapolation count"; exit 1; }
echo "the adaptive default splits the requests: int8 $int8, lynx $lynx"
