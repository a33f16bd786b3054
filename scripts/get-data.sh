#!/usr/bin/env bash
# Fetches the data lynxsim reads (traces, the stories260K model and tokenizer, the evaluation text, published
# calibration measurements) from their original public sources into the data folder, checking each file's sha256.
# Nothing of it is committed to the repository (see README, "Data").
#
#   scripts/get-data.sh [--quiet] [PREFIX...]
#
# The data folder is found as lynxsim finds it (common/data_folder.hpp): $LYNX_DATA_DIR if set, else
# ../shared/data beside the checkout when it exists, else data/ in the checkout. Only files that are missing (or
# whose sha256 differs) are downloaded; PREFIX limits the work to paths that start with it (e.g. traces/).
# The list of files, their sha256 and sources is scripts/data-manifest.tsv ($LYNX_DATA_MANIFEST overrides it). --quiet prints nothing when every
# file is already there (used by `make demo` and `make test`).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
manifest="${LYNX_DATA_MANIFEST:-$root/scripts/data-manifest.tsv}"  # another list: a mirror, or the tests

quiet=0
prefixes=()
for arg in "$@"; do
  case "$arg" in
    --quiet) quiet=1 ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "get-data.sh: unknown option $arg (see --help)" >&2; exit 2 ;;
    *) prefixes+=("$arg") ;;
  esac
done

if [ -n "${LYNX_DATA_DIR:-}" ]; then
  folder="$LYNX_DATA_DIR"; chosen="\$LYNX_DATA_DIR"
elif [ -d "$root/../shared/data" ]; then
  folder="$(cd "$root/../shared/data" && pwd)"; chosen="../shared/data beside the checkout"
else
  folder="$root/data"; chosen="data/ in the checkout"
fi

wanted() {
  [ ${#prefixes[@]} -eq 0 ] && return 0
  local p
  for p in "${prefixes[@]}"; do [[ "$1" == "$p"* ]] && return 0; done
  return 1
}

sha_of() { sha256sum "$1" | cut -d' ' -f1; }

# Rows whose file is missing or differs.
todo=()
while IFS=$'\t' read -r path sha url how; do
  [[ -z "$path" || "$path" == \#* ]] && continue
  wanted "$path" || continue
  if [ -f "$folder/$path" ] && [ "$(sha_of "$folder/$path")" = "$sha" ]; then continue; fi
  todo+=("$path"$'\t'"$sha"$'\t'"$url"$'\t'"$how")
done < "$manifest"

if [ ${#todo[@]} -eq 0 ]; then
  [ $quiet -eq 1 ] || echo "get-data.sh: every file is in $folder ($chosen), sha256 checked"
  exit 0
fi

echo "get-data.sh: ${#todo[@]} file(s) missing or different in $folder ($chosen); fetching them" >&2
if ! mkdir -p "$folder" 2>/dev/null || [ ! -w "$folder" ]; then
  echo "get-data.sh: error: cannot write to the data folder $folder ($chosen); set LYNX_DATA_DIR to a writable" \
       "folder and run scripts/get-data.sh again" >&2
  exit 1
fi
if command -v curl >/dev/null; then
  download() { curl -fsSL --retry 3 -o "$2" "$1"; }
elif command -v wget >/dev/null; then
  download() { wget -q -O "$2" "$1"; }
else
  echo "get-data.sh: installing curl (Debian package)" >&2
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -q && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends curl ca-certificates
  download() { curl -fsSL --retry 3 -o "$2" "$1"; }
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failed=0
for row in "${todo[@]}"; do
  IFS=$'\t' read -r path sha url how <<<"$row"
  echo "  $path <- $url" >&2
  if ! download "$url" "$tmp/download"; then
    echo "get-data.sh: error: could not download $url" >&2; failed=1; continue
  fi
  case "$how" in
    copy) mv "$tmp/download" "$tmp/file" ;;
    # The evaluation text is the start of TinyStoriesV2-GPT4-valid.txt: up to and including its 100th
    # "<|endoftext|>" line.
    first-100-stories) awk '{ print } /^<\|endoftext\|>$/ { if (++n == 100) exit }' "$tmp/download" > "$tmp/file" ;;
    *) echo "get-data.sh: error: $manifest: unknown method \"$how\" for $path" >&2; exit 1 ;;
  esac
  got="$(sha_of "$tmp/file")"
  if [ "$got" != "$sha" ]; then
    echo "get-data.sh: error: $path from $url has sha256 $got, expected $sha (the source changed?); not installed" >&2
    failed=1; continue
  fi
  mkdir -p "$(dirname "$folder/$path")"
  mv "$tmp/file" "$folder/$path"
done
if [ $failed -ne 0 ]; then exit 1; fi
echo "get-data.sh: done; the data folder is $folder" >&2
