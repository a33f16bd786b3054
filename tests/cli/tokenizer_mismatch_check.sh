#!/usr/bin/env bash
# A tokenizer of the model's vocabulary size but other pieces (stories260K's tok512 with its merged pieces
# reversed) is refused by `lynxsim accuracy` with one error, not a perplexity of 1e11.
set -uo pipefail
lynxsim="$1"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
root="${LYNX_DATA_DIR:-}"
here="$(cd "$(dirname "$0")/../.." && pwd)"
[ -n "$root" ] || { if [ -d "$here/../shared/data" ]; then root="$here/../shared/data"; else root="$here/data"; fi; }
python3 - "$root/models/stories260K/tok512.bin" "$tmp/shuffled.bin" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
off, toks = 4, []
for _ in range(512):
    score = struct.unpack_from("<f", d, off)[0]; n = struct.unpack_from("<i", d, off + 4)[0]
    toks.append((score, d[off + 8:off + 8 + n])); off += 8 + n
pieces = [t[1] for t in toks[259:]][::-1]  # the merged pieces in reverse order, scores kept in place
toks = toks[:259] + [(toks[259 + i][0], p) for i, p in enumerate(pieces)]
with open(sys.argv[2], "wb") as f:
    f.write(d[:4])
    for score, b in toks:
        f.write(struct.pack("<fi", score, len(b)) + b)
PY
out="$("$lynxsim" accuracy --tokenizer "$tmp/shuffled.bin" --stories 2 --format int8-g64 --k-max 2 --greedy-tokens 2 --cut 8 --quiet 2>&1)"; code=$?
echo "$out"
[ $code -eq 2 ] && grep -q "is above the vocabulary size 512 (a uniform guess): the tokenizer does not match the model" <<<"$out" && echo "tokenizer mismatch refused"
