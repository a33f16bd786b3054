#!/usr/bin/env bash
# lynxsim generate, checked on its real output (stories260K, the default prompt):
#   - every format writes a text of the requested length to stdout and its speed (tokens/s) to stderr only;
#   - a Lynx format's full text equals the fp32 text (stories260K's greedy story survives 8-bit KV for 64 tokens);
#   - --anchor-only prints exactly the anchor-only line of the side-by-side view;
#   - the divergence index N is consistent: with --steps N the two texts are equal ("none"), with --steps N+1 they
#     differ at token N, and the first N tokens of both texts are the same text.
# Usage: generate_check.sh LYNXSIM
set -euo pipefail
lynxsim=$1
stderr_file=$(mktemp)
trap 'rm -f "$stderr_file"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
field() { sed -n "s/^$1: *//p"; }  # the text after "label:" on stdout

fp32=$("$lynxsim" generate --format fp32 --steps 64 2>/dev/null | field text)
[ -n "$fp32" ] || fail "fp32 wrote no text"
for format in bf16 fp8-e4m3 int8-g64 int4-g64 kivi2-g32 int4-g8 lynx-a4r4-g64 lynx-a4r4-g64-rq lynx-a4r4-g8 \
              lynx-a4r4-g8-rq lynx-a2r6-g32; do
  out=$("$lynxsim" generate --format "$format" --steps 64 2>"$stderr_file") || fail "$format: exit status $?"
  grep -q "tokens/s" "$stderr_file" || fail "$format: no tokens/s on stderr"
  ! grep -q "tokens/s" <<<"$out" || fail "$format: tokens/s on stdout"
  case $format in
    lynx-*)
      full=$(field full <<<"$out"); anchor=$(field anchor-only <<<"$out")
      [ "$full" = "$fp32" ] || fail "$format: full text differs from fp32's: '$full'"
      only=$("$lynxsim" generate --format "$format" --steps 64 --anchor-only 2>/dev/null | field anchor-only)
      [ "$only" = "$anchor" ] || fail "$format: --anchor-only wrote '$only', the side-by-side view '$anchor'"
      n=$(sed -n 's/^divergence: *token \([0-9]*\) of 64.*/\1/p' <<<"$out")
      if [ -z "$n" ]; then
        grep -q "^divergence: *none in 64 tokens" <<<"$out" || fail "$format: no divergence line"
        [ "$full" = "$anchor" ] || fail "$format: 'none' but the texts differ"
        echo "$format: no divergence in 64 tokens"
        continue
      fi
      grep -q "accept $n drafts" <<<"$out" || fail "$format: divergence $n but another acceptance"
      if [ "$n" -gt 0 ]; then
        short=$("$lynxsim" generate --format "$format" --steps "$n" 2>/dev/null)
        grep -q "^divergence: *none in $n tokens" <<<"$short" || fail "$format: --steps $n still diverges"
        head=$(field full <<<"$short")
        [ "$head" = "$(field anchor-only <<<"$short")" ] || fail "$format: --steps $n texts differ"
        [ "${full#"$head"}" != "$full" ] || fail "$format: the first $n tokens are not the start of the full text"
        [ "${anchor#"$head"}" != "$anchor" ] || fail "$format: the first $n tokens are not the start of the anchor text"
      fi
      one_more=$("$lynxsim" generate --format "$format" --steps $((n + 1)) 2>/dev/null)
      grep -q "^divergence: *token $n of $((n + 1))" <<<"$one_more" || fail "$format: --steps $((n + 1)) does not diverge at $n"
      echo "$format: diverges at token $n of 64"
      ;;
    *)
      text=$(field text <<<"$out")
      [ -n "$text" ] || fail "$format: no text"
      echo "$format: ${text:0:40}..."
      ;;
  esac
done
echo "generate: every format checked"
