#!/usr/bin/env bash
# The main job of `make demo`. Until the simulator lands this prints the KV-size table of every catalog model
# and format at 32K tokens.
set -euo pipefail
build=${1:-build}
"$build/app/lynxsim" kv-size --tokens 32768
