#!/usr/bin/env bash
# Runs the bad-input corpus (tests/cli/bad_inputs/cases.txt): for each case, lynxsim must exit 2, print exactly one
# "lynxsim: error:" line matching the case's expression (or CLI11's one-line usage error), never "internal error" or
# a traceback, and leave nothing at the output path.
set -uo pipefail
lynxsim="$1"; dir="$(cd "$(dirname "$0")/bad_inputs" && pwd)"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
cd "$dir"
failures=0; cases=0
while IFS= read -r line; do
  [[ -z "$line" || "$line" == \#* ]] && continue
  file="$(sed 's/ *|.*//' <<<"$line")"
  command="$(cut -d'|' -f2 <<<"$line" | sed 's/^ *//; s/ *$//')"
  expected="$(cut -d'|' -f3- <<<"$line" | sed 's/^ //')"
  out="$tmp/out$cases"
  command="${command//FILE/$file}"; command="${command//OUT/$out}"
  cases=$((cases + 1))
  # shellcheck disable=SC2086
  "$lynxsim" $command > "$tmp/stdout" 2> "$tmp/stderr"; code=$?
  errors=$(grep -c "^lynxsim: error:" "$tmp/stderr")
  why=""
  if [ $code -ne 2 ]; then why="exit $code, expected 2"
  elif grep -qiE "internal error|Traceback|Segmentation|Aborted|terminate called" "$tmp/stderr"; then why="crash or internal error"
  elif ! grep -qE -- "$expected" "$tmp/stderr"; then why="message does not match /$expected/"
  elif [ "$errors" -gt 1 ]; then why="$errors error lines, expected one"
  elif [ -e "$out" ]; then why="left output at $out"
  fi
  if [ -n "$why" ]; then
    failures=$((failures + 1))
    echo "FAIL [$file | $command]: $why"; sed 's/^/    /' "$tmp/stderr" | head -5
  fi
done < cases.txt
echo "$((cases - failures)) passed, $failures failed"
[ $failures -eq 0 ]
