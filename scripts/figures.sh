#!/usr/bin/env bash
# The tables of figures of README.md and docs/*.md, regenerated from the code (`make figures` checks them all; ctest's
# cli:readme-figures-fast checks the fast ones).
#
#   scripts/figures.sh [--check] [--fast] [--only NAME]... [--list] [--jobs N] [--readme FILE]... BUILD_DIR
#
# --readme FILE (repeatable): the files to look at; default README.md and every docs/*.md (each block name in one
# of them). Each generated table sits in its file between `<!-- figures:NAME (scripts/figures.sh) -->` and
# `<!-- /figures:NAME -->`; NAME's generator (scripts/figures/generators.py) runs BUILD_DIR/app/lynxsim (simulate,
# run, validate, trace-stats) or reads a committed file the code wrote (models/accuracy/, kernels/costs/) and formats
# the result as the README does. Tables of wall-clock measurements are between `<!-- measured:NAME (COMMAND) -->`
# and `<!-- /measured:NAME -->` and are never regenerated; definitions (not results) between
# `<!-- definitions:NAME -->` and `<!-- /definitions:NAME -->`.
#
# Without --check: rewrites each file that differs in place (a temporary file renamed over it: never half-written).
# With --check: rewrites nothing; exits 1 with a unified diff of every table that differs from what the code computes
# now. Both fail (exit 1) when a table with numbers in a file is in none of the blocks above, and on a malformed
# or unknown marker. --fast: only the tables that take seconds; --only NAME (repeatable): only those; --list: the
# generators, fast or not. Runs go to a temporary folder under BUILD_DIR, removed at the end.
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1  # nothing but README.md and docs/*.md is written into the source tree
exec python3 "$(dirname "$0")/figures/figures.py" "$@"
