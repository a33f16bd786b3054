#!/usr/bin/env bash
# Regenerates the committed accuracy file models/accuracy/stories260k.json (`make accuracy`): the functional
# decoder on the shipped stories260K with every format the simulator and the README table use (the anchor-width
# frontier lynx-a2r6 .. a6r2 in both splits), Lynx acceptance pooled and by prompt length. About 130 s of one
# core; byte-identical on every run and every machine (the decoder's kernels sum in a fixed order).
# test_decoder's "the committed accuracy file matches the decoder" fails when the file is stale.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
"$build"/app/lynxsim accuracy --out models/accuracy/stories260k.json \
  --format bf16 --format fp8-e4m3 --format int8-g64 --format int4-g64 --format kivi2-g32 \
  --format lynx-a4r4-g64 --format lynx-a4r4-g64-rq --format int4-g8 --format lynx-a4r4-g8 --format lynx-a4r4-g8-rq \
  --format lynx-a2r6-g64 --format lynx-a2r6-g64-rq --format lynx-a3r5-g64 --format lynx-a3r5-g64-rq \
  --format lynx-a5r3-g64 --format lynx-a5r3-g64-rq --format lynx-a6r2-g64 --format lynx-a6r2-g64-rq \
  --cut 16 --cut 64 --cut 192 --greedy-tokens 64 --k-max 64 --min-length-prompts 20 \
  --length-cut 16 --length-cut 32 --length-cut 64 --length-cut 128 --length-cut 192 --length-cut 256 --length-cut 384
