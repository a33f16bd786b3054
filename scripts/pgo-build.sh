#!/usr/bin/env bash
# The Makefile's build: profile-guided optimisation of the per-event code (cmake/profile_guided.cmake says why and
# which files).
#   1. lynxsim is built with those files instrumented (LYNX_PGO=generate);
#   2. the training set is run: every golden case (tests/golden/*/config.json), about 2 s;
#   3. TARGET is built with the profile (LYNX_PGO=use); only the instrumented files are compiled again.
# If no training run succeeds, the build goes on without a profile (LYNX_PGO=OFF) and says so; the simulator's
# outputs are the same either way.
#   pgo-build.sh BUILD_DIR JOBS TARGET [CMAKE_ARG...]     TARGET: all, or one target (e.g. lynxsim)
set -euo pipefail
if [[ $# -lt 3 ]]; then
  echo "usage: $0 BUILD_DIR JOBS TARGET [CMAKE_ARG...]" >&2
  exit 2
fi
build=$1 jobs=$2 target=$3
shift 3
root=$(cd "$(dirname "$0")/.." && pwd)

cmake -S "$root" -B "$build" "$@" -DLYNX_PGO=generate
cmake --build "$build" -j "$jobs" --target lynxsim

profile="$build/pgo-profile"
rm -rf "$profile"  # counters add up across runs: each build trains from zero
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lynx-pgo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trained=0
for config in "$root"/tests/golden/*/config.json; do
  name=$(basename "$(dirname "$config")")
  if "$build/app/lynxsim" simulate --config "$config" --out "$tmp/$name" --quiet --no-progress >"$tmp/$name.log" 2>&1
  then
    trained=$((trained + 1))
  else
    echo "pgo-build: training run $name failed:" >&2
    cat "$tmp/$name.log" >&2
  fi
done

mode=use
if [[ $trained -eq 0 ]]; then
  echo "pgo-build: no training run succeeded; building without a profile" >&2
  mode=OFF
else
  echo "pgo-build: trained on $trained golden cases"
fi
cmake -S "$root" -B "$build" "$@" -DLYNX_PGO=$mode
if [[ $target == all ]]; then
  cmake --build "$build" -j "$jobs"
else
  cmake --build "$build" -j "$jobs" --target "$target"
fi
