#!/usr/bin/env bash
# scripts/figures.sh itself, on copies of README.md and docs/decoder.md (the real files are checked by
# cli:readme-figures-fast): a changed number in a generated table fails --check with a diff and is restored by a
# rewrite; --check writes nothing; a measured table is not compared; a table of numbers outside every marked block,
# an unclosed block, an unknown generator and a block name used in two files fail; a table without numbers needs no
# marker.
# Usage: figures_check.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1
build=$2
tmp=$(mktemp -d "$build/figures-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/docs"
page="$tmp/docs/decoder.md"  # where the accuracy table lives
figures() {
  "$src/scripts/figures.sh" --only accuracy --jobs 1 --readme "$tmp/README.md" --readme "$page" "$@" "$build"
}
fail() { echo "figures_check: $*" >&2; exit 1; }
# figures --check on a file it must refuse: exit 1, as figures.sh documents (stdout in $tmp/out, stderr in $tmp/err).
refused() {
  local code=0
  figures --check >"$tmp/out" 2>"$tmp/err" || code=$?
  [ $code -eq 1 ] || fail "$1: --check exited $code, expected 1: $(cat "$tmp/err")"
}
fresh() { cp "$src/README.md" "$tmp/README.md"; cp "$src/docs/decoder.md" "$page"; }

fresh
figures --check 2>/dev/null || fail "the unchanged files fail"

# A changed number in a generated table: --check fails with a diff naming both lines and leaves the file alone.
sed -i 's/^| fp32 | 3\.8579 |/| fp32 | 3.8578 |/' "$page"
cp "$page" "$tmp/changed.md"
refused "a changed number"
grep -q '^-| fp32 | 3\.8578 |' "$tmp/out" && grep -q '^+| fp32 | 3\.8579 |' "$tmp/out" || fail "no diff: $(cat "$tmp/out")"
grep -q "1 differ (accuracy)" "$tmp/err" || fail "the stale table is not named: $(cat "$tmp/err")"
cmp -s "$page" "$tmp/changed.md" || fail "--check wrote the file"
# ... and a rewrite restores it byte for byte, leaving no temporary file.
figures >/dev/null 2>&1 || fail "the rewrite fails"
cmp -s "$page" "$src/docs/decoder.md" || fail "the rewrite does not restore docs/decoder.md"
cmp -s "$tmp/README.md" "$src/README.md" || fail "the rewrite changed the README"
[ "$(ls -A "$tmp/docs" | grep -c '^\.')" = 0 ] || fail "a temporary file is left: $(ls -A "$tmp/docs")"

# A measured table is never compared.
sed -i 's/^| `make demo` | [^|]* |/| `make demo` | 9 min 59 s |/' "$tmp/README.md"
grep -q '| `make demo` | 9 min 59 s |' "$tmp/README.md" || fail "the measured table was not found"
figures --check 2>/dev/null || fail "a changed measurement fails --check"

# An unmarked table of numbers fails, named by its file and line; one without numbers passes.
fresh
printf '\n| format | bytes |\n|---|---|\n| `int8-g64` | 69,632 |\n' >>"$page"
refused "an unmarked table of numbers"
grep -q "decoder.md:$(( $(wc -l <"$src/docs/decoder.md") + 2 )): a table of numbers that is neither generated nor marked" \
  "$tmp/err" || fail "the unmarked table is not reported: $(cat "$tmp/err")"
fresh
printf '\n| task | command |\n|---|---|\n| sweep, plot p99 | `lynxsim run x.json --jobs 2` |\n' >>"$tmp/README.md"
figures --check 2>/dev/null || fail "a table without numbers fails"

# Malformed markers: unclosed, unknown generator, a block in two files.
fresh
sed -i 's|^<!-- /figures:accuracy -->$||' "$page"
refused "an unclosed block"
grep -q "block figures:accuracy is never closed" "$tmp/err" || fail "unclosed: $(cat "$tmp/err")"
fresh
sed -i 's|figures:accuracy |figures:accuracy-x |; s|/figures:accuracy -->|/figures:accuracy-x -->|' "$page"
refused "an unknown generator"
grep -q "figures:accuracy-x has no generator" "$tmp/err" || fail "unknown generator: $(cat "$tmp/err")"
fresh
sed -n '/^<!-- figures:accuracy /,/^<!-- \/figures:accuracy -->/p' "$page" >>"$tmp/README.md"
refused "a block in two files"
grep -q "figures:accuracy is also in" "$tmp/err" || fail "a block in two files: $(cat "$tmp/err")"
echo "figures: checker checked"
