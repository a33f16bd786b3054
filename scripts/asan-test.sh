#!/usr/bin/env bash
# Runs the test suite of an ASan+UBSan build (make asan-test; CI after `make test`).   asan-test.sh BUILD_DIR [JOBS]
# Every test but those labelled not-sanitized (cli:readme-figures-fast: a comparison of the committed tables with the
# code's output, which `make figures` makes on the plain build). Any sanitizer report fails the test that triggered
# it: UBSan is built with -fno-sanitize-recover (it aborts) and ASan aborts at its first report. Leak checking stays
# on. Child processes (sweep points, lynxsim run by the shell tests) inherit these settings.
# SimGrid: ASan can misread SimGrid's actor context switches (stacks swapped under it). lynxsim starts no actor: the
# engine runs in maestro only, on the main stack (DESIGN.md, "The event loop and SimGrid"), so no switch happens and no option is
# needed; the suite runs clean with ASan's defaults. Should actors ever appear, run them with SimGrid's thread
# contexts (--cfg=contexts/factory:thread), which ASan understands, rather than silencing reports.
set -euo pipefail
build=${1:?usage: asan-test.sh BUILD_DIR [JOBS]}
jobs=${2:-$(nproc)}
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:strict_string_checks=1:check_initialization_order=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
start=$(date +%s)
cd "$build"
ctest --output-on-failure -j "$jobs" -LE not-sanitized
echo "asan-test: sanitized suite passed in $(( $(date +%s) - start )) s"
