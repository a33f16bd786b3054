#!/usr/bin/env bash
# scripts/get-data.sh against a local mirror (file:// URLs): it installs missing files with the right sha256, cuts
# the evaluation text at its 100th story, refuses a file whose sha256 differs (installing nothing), and does nothing
# when every file is present.
set -euo pipefail
script="$1"; root="$(cd "$(dirname "$script")/.." && pwd)"
# The data folder, found as lynxsim finds it: the files to mirror come from there.
if [ -n "${LYNX_DATA_DIR:-}" ]; then data="$LYNX_DATA_DIR"
elif [ -d "$root/../shared/data" ]; then data="$root/../shared/data"
else data="$root/data"; fi
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
text="text/tinystories_v2_validation_100.txt"
{ cat "$data/$text"; printf 'One more story.\n<|endoftext|>\n'; } > "$tmp/valid.txt"
sha() { sha256sum "$1" | cut -d' ' -f1; }
printf 'models/stories260K/tok512.bin\t%s\tfile://%s\tcopy\n' "$(sha "$data/models/stories260K/tok512.bin")" \
  "$data/models/stories260K/tok512.bin" > "$tmp/manifest.tsv"
printf '%s\t%s\tfile://%s\tfirst-100-stories\n' "$text" "$(sha "$data/$text")" "$tmp/valid.txt" >> "$tmp/manifest.tsv"
LYNX_DATA_MANIFEST="$tmp/manifest.tsv" LYNX_DATA_DIR="$tmp/out" bash "$script"
cmp "$tmp/out/models/stories260K/tok512.bin" "$data/models/stories260K/tok512.bin"
cmp "$tmp/out/$text" "$data/$text"
[ -z "$(LYNX_DATA_MANIFEST="$tmp/manifest.tsv" LYNX_DATA_DIR="$tmp/out" bash "$script" --quiet 2>&1)" ]
printf 'traces/x.jsonl\t%064d\tfile://%s\tcopy\n' 0 "$tmp/valid.txt" > "$tmp/bad.tsv"
code=0
LYNX_DATA_MANIFEST="$tmp/bad.tsv" LYNX_DATA_DIR="$tmp/out" bash "$script" 2> "$tmp/err" || code=$?
[ $code -eq 1 ] || { echo "a wrong sha256: exit $code, expected 1"; cat "$tmp/err"; exit 1; }
grep -q "traces/x.jsonl from file://.* has sha256 .*, expected 0000" "$tmp/err"
[ ! -e "$tmp/out/traces/x.jsonl" ]
echo "get-data: mirror install, text cut, sha256 refusal and no-op all checked"
