#!/usr/bin/env bash
# The Makefile's build: profile-guided optimisation of the per-event code (cmake/profile_guided.cmake says why and
# which files).
#   1. lynxsim is built with those files instrumented (LYNX_PGO=generate);
#   2. the training set is run: every golden case (tests/golden/*/config.json), about 2 s;
#   3. TARGET is built with the profile (LYNX_PGO=use); only the instrumented files are compiled again.
# If no training run succeeds, the build goes on without a profile (LYNX_PGO=OFF) and says so; the simulator's
# outputs are the same either way. When no source, CMake file, training configuration or CMake argument has changed
# since this folder's profile was taken (their digest is kept beside it), steps 1 and 2 are skipped: the profile is
# that of the same code.
#   pgo-build.sh BUILD_DIR JOBS TARGET [CMAKE_ARG...]     TARGET: all, or one target (e.g. lynxsim)
set -euo pipefail
if [[ $# -lt 3 ]]; then
  echo "usage: $0 BUILD_DIR JOBS TARGET [CMAKE_ARG...]" >&2
  exit 2
fi
build=$1 jobs=$2 target=$3
shift 3
cmake_args=("$@")
root=$(cd "$(dirname "$0")/.." && pwd)
profile="$build/pgo-profile"  # LYNX_PGO_DIR (cmake/profile_guided.cmake)
stamp="$build/pgo-profile.sources"

configure() { cmake -S "$root" -B "$build" "${cmake_args[@]}" -DLYNX_PGO="$1"; }
build_target() {
  if [[ $1 == all ]]; then
    cmake --build "$build" -j "$jobs"
  else
    cmake --build "$build" -j "$jobs" --target "$1"
  fi
}
# What the profile depends on: the CMake arguments, and every file that is compiled or configures the build, or
# that the training runs.
sources_digest() {
  (
    cd "$root"
    printf '%s\n' "${cmake_args[@]}"
    {
      find CMakeLists.txt cmake app bench common experiments kernels models sim traces -type f \
        \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' -o -name '*.cmake' \
           -o -name CMakeLists.txt \) -print0
      find tests -name CMakeLists.txt -print0
      find tests/golden -path 'tests/golden/*/config.json' -print0
    } | sort -z | xargs -0 sha256sum
  ) | sha256sum | cut -d' ' -f1
}

digest=$(sources_digest)
if [[ -d $profile && -f $stamp && $(cat "$stamp") == "$digest" ]]; then
  echo "pgo-build: nothing changed since the profile in $profile was taken; building with it"
  configure use
  build_target "$target"
  exit 0
fi
rm -f "$stamp"

configure generate
build_target lynxsim

# Counters add up across runs: each build trains from zero. Only the profile's own files go.
if [[ -d $profile ]]; then find "$profile" -maxdepth 1 -type f -name '*.gcda' -delete; fi
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

if [[ $trained -eq 0 ]]; then
  echo "pgo-build: no training run succeeded; building without a profile" >&2
  configure OFF
  build_target "$target"
  exit 0
fi
echo "pgo-build: trained on $trained golden cases"
configure use
build_target "$target"
echo "$digest" >"$stamp.tmp"
mv -f "$stamp.tmp" "$stamp"  # replaces whatever was there (a link included), never what it points to
