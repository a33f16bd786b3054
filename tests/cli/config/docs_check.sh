#!/usr/bin/env bash
# docs/config.md must be what `lynxsim config --schema` prints now: the reference is generated from the readers'
# field declarations, so a changed field changes it. Fails with the difference and the command that regenerates it.
set -uo pipefail
lynxsim="$1"; docs="$2"
tmp="$(mktemp)"; trap 'rm -f "$tmp"' EXIT
"$lynxsim" config --schema > "$tmp" || { echo "lynxsim config --schema failed"; exit 1; }
if ! diff -u "$docs" "$tmp"; then
  echo "docs/config.md is out of date with the field declarations; regenerate it with:"
  echo "  build/app/lynxsim config --schema > docs/config.md"
  exit 1
fi
echo "docs/config.md is current"
