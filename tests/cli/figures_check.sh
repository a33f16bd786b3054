#!/usr/bin/env bash
# scripts/figures.sh itself, on copies of README.md (the real one is checked by cli:readme-figures-fast): a changed
# number in a generated table fails --check with a diff and is restored by a rewrite; --check writes nothing; a
# measured table is not compared; a table of numbers outside every marked block, an unclosed block and an unknown
# generator fail; a table without numbers needs no marker.
# Usage: figures_check.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1
build=$2
tmp=$(mktemp -d "$build/figures-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
figures() { "$src/scripts/figures.sh" --only accuracy --jobs 1 --readme "$tmp/README.md" "$@" "$build"; }
fail() { echo "figures_check: $*" >&2; exit 1; }

cp "$src/README.md" "$tmp/README.md"
figures --check 2>/dev/null || fail "the unchanged README fails"

# A changed number in a generated table: --check fails with a diff naming both lines and leaves the file alone.
sed -i 's/^| fp32 | 3\.8579 |/| fp32 | 3.8578 |/' "$tmp/README.md"
cp "$tmp/README.md" "$tmp/changed.md"
if figures --check >"$tmp/out" 2>"$tmp/err"; then fail "a changed number passes --check"; fi
grep -q '^-| fp32 | 3\.8578 |' "$tmp/out" && grep -q '^+| fp32 | 3\.8579 |' "$tmp/out" || fail "no diff: $(cat "$tmp/out")"
grep -q "1 differ (accuracy)" "$tmp/err" || fail "the stale table is not named: $(cat "$tmp/err")"
cmp -s "$tmp/README.md" "$tmp/changed.md" || fail "--check wrote the file"
# ... and a rewrite restores it byte for byte, leaving no temporary file.
figures >/dev/null 2>&1 || fail "the rewrite fails"
cmp -s "$tmp/README.md" "$src/README.md" || fail "the rewrite does not restore the README"
[ "$(ls -A "$tmp" | grep -c '^\.README')" = 0 ] || fail "a temporary file is left: $(ls -A "$tmp")"

# A measured table is never compared.
sed -i 's/^| `make demo` | [^|]* |/| `make demo` | 9 min 59 s |/' "$tmp/README.md"
grep -q '| `make demo` | 9 min 59 s |' "$tmp/README.md" || fail "the measured table was not found"
figures --check 2>/dev/null || fail "a changed measurement fails --check"

# An unmarked table of numbers fails, named by its line; one without numbers passes.
cp "$src/README.md" "$tmp/README.md"
printf '\n| format | bytes |\n|---|---|\n| `int8-g64` | 69,632 |\n' >>"$tmp/README.md"
if figures --check 2>"$tmp/err"; then fail "an unmarked table of numbers passes"; fi
grep -q "README.md:$(( $(wc -l <"$src/README.md") + 2 )): a table of numbers that is neither generated nor marked" \
  "$tmp/err" || fail "the unmarked table is not reported: $(cat "$tmp/err")"
cp "$src/README.md" "$tmp/README.md"
printf '\n| task | command |\n|---|---|\n| sweep, plot p99 | `lynxsim run x.json --jobs 2` |\n' >>"$tmp/README.md"
figures --check 2>/dev/null || fail "a table without numbers fails"

# Malformed markers: unclosed, unknown generator.
cp "$src/README.md" "$tmp/README.md"
sed -i 's|^<!-- /figures:accuracy -->$||' "$tmp/README.md"
if figures --check 2>"$tmp/err"; then fail "an unclosed block passes"; fi
grep -q "block figures:accuracy is never closed" "$tmp/err" || fail "unclosed: $(cat "$tmp/err")"
cp "$src/README.md" "$tmp/README.md"
sed -i 's|figures:accuracy |figures:accuracy-x |; s|/figures:accuracy -->|/figures:accuracy-x -->|' "$tmp/README.md"
if figures --check 2>"$tmp/err"; then fail "an unknown generator passes"; fi
grep -q "figures:accuracy-x has no generator" "$tmp/err" || fail "unknown generator: $(cat "$tmp/err")"
echo "figures: checker checked"
