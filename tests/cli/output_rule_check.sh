#!/usr/bin/env bash
# The output rule (common/output_paths.hpp), command by command and case by case: an output that is an input of
# the same command (by another spelling, or through a symbolic link), the same file as another output, a folder
# where a file is meant or the reverse, a FIFO or a device, an unwritable folder. Each must exit 2 with one
# "lynxsim: error:" line saying why, before any work, and leave every input byte for byte as it was.
set -uo pipefail
lynxsim="$1"
tmp="$(mktemp -d)"; trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
cd "$tmp" || exit 1
# What a path is: the bytes of a regular file, else its kind (a FIFO is never opened: that would block).
fingerprint() { if [ -f "$1" ]; then sha256sum "$1"; else stat -L -c %F "$1"; fi; }
# refused EXPECTED_REGEX FILE_THAT_MUST_NOT_CHANGE -- lynxsim ARGS...
refused() {
  local expected="$1" keep="$2"; shift 3
  local before; before="$(fingerprint "$keep")"
  "$lynxsim" "$@" > out.txt 2> err.txt; local code=$?
  [ $code -eq 2 ] || fail "$* exited $code, expected 2: $(cat err.txt)"
  [ "$(grep -c '^lynxsim: error:' err.txt)" -eq 1 ] || fail "$*: expected one error line: $(cat err.txt)"
  grep -qE -- "$expected" err.txt || fail "$*: message does not match /$expected/: $(cat err.txt)"
  grep -qiE 'internal error|Traceback' err.txt && fail "$*: $(cat err.txt)"
  [ "$(fingerprint "$keep")" = "$before" ] || fail "$*: changed $keep"
  return 0
}
cat > c.json <<'JSON'
{"model": "llama-3.1-8b", "format": "bf16", "cluster": {"prefill": {"instances": 1}, "decode": {"instances": 1}},
 "workload": {"trace": "t.jsonl"}}
JSON
printf '{"timestamp": 0, "input_length": 600, "output_length": 4, "hash_ids": [1, 2]}\n{"timestamp": 5, "input_length": 700, "output_length": 3, "hash_ids": [1, 3]}\n' > t.jsonl
mkfifo fifo
mkdir adir
ln -s c.json link.json

# simulate: the configuration, the trace it names, the run's own files, devices, FIFOs, folders, links.
refused 'timeline c\.json would replace the input --config \./c\.json' c.json -- simulate --config ./c.json --out r --timeline c.json
refused 'timeline link\.json would replace the input --config c\.json' c.json -- simulate --config c.json --out r --timeline link.json
refused 'timeline t\.jsonl would replace the input --config c\.json \(\$\.workload\.trace\)' t.jsonl -- simulate --config c.json --out r --timeline t.jsonl
refused 'out r \(its config\.json\) and --timeline r/config\.json are the same file' c.json -- simulate --config c.json --out r --timeline r/config.json
refused 'timeline /dev/null: is a character device, not a regular file' /dev/null -- simulate --config c.json --out r --timeline /dev/null
refused 'timeline fifo: is a FIFO, not a regular file' fifo -- simulate --config c.json --out r --timeline fifo
refused 'timeline adir: is a folder, expected a file path' adir -- simulate --config c.json --out r --timeline adir
refused 'out c\.json: exists and is not a folder' c.json -- simulate --config c.json --out c.json
refused 'timeline r is also the folder --out r' c.json -- simulate --config c.json --out r --timeline r
[ -e r ] && fail "a refused simulate left r"
"$lynxsim" simulate --config c.json --out run1 --quiet 2> /dev/null || fail "simulate c.json"
refused 'out run1 \(its config\.json\) would replace the input --config run1/config\.json' run1/config.json -- simulate --config run1/config.json --out run1
mkdir -p bad/config.json
refused 'out bad: bad/config\.json is a folder, where lynxsim writes a regular file' c.json -- simulate --config c.json --out bad
mkdir ro && chmod a-w ro
if [ "$(id -u)" != 0 ]; then
  refused 'timeline ro/t\.json: cannot write there|cannot create it under' c.json -- simulate --config c.json --out r --timeline ro/t.json
fi

# run: the experiment file among its outputs, a file as --out, a FIFO where summary.csv goes.
cat > e.json <<JSON
{"name": "rule", "base": {"model": "llama-3.1-8b", "format": "bf16",
  "cluster": {"prefill": {"instances": 1}, "decode": {"instances": 1}}, "workload": {"trace": "$PWD/t.jsonl"}},
 "sweep": {"axes": [{"path": "cluster.network.nic_gbps", "values": [25, 100]}]}}
JSON
mkdir -p inside && cp e.json inside/experiment.json
refused 'out inside \(its experiment\.json\) would replace the input experiment inside/experiment\.json' inside/experiment.json -- run inside/experiment.json --out inside
refused 'out c\.json: exists and is not a folder' c.json -- run e.json --out c.json
mkdir -p fifo_out && mkfifo fifo_out/summary.csv
refused 'out fifo_out: fifo_out/summary\.csv is a FIFO' e.json -- run e.json --out fifo_out
"$lynxsim" run e.json --out res --jobs 2 > /dev/null 2>&1 || fail "run e.json"
"$lynxsim" run e.json --out s1 --shard 1/2 > /dev/null 2>&1 || fail "run shard 1"
"$lynxsim" run e.json --out s2 --shard 2/2 > /dev/null 2>&1 || fail "run shard 2"

# merge: into one of its own shards.
refused 'out s1 is also the input folder shard s1' s1/experiment.json -- merge --out s1 s1 s2
"$lynxsim" merge --out merged s1 s2 > /dev/null || fail "merge s1 s2"
diff -r res merged > /dev/null || fail "merged shards differ from the unsharded run"

# plot --data: never over a result file, a device, a folder.
point="$(ls -d res/p0000_*)"
refused 'data res/summary\.csv would replace res/summary\.csv, an input of this command' res/summary.csv -- plot res --metric ttft --data res/summary.csv
refused "data $point/summary\.json would replace" "$point/summary.json" -- plot res --metric ttft --data "$point/summary.json"
refused 'data /dev/null: is a character device' /dev/null -- plot res --metric ttft --data /dev/null
refused 'data adir: is a folder, expected a file path' adir -- plot res --metric ttft --data adir
# plot's figures: the script alone knows their names, so it applies the rule to each before writing it.
cat > p.json <<JSON
{"name": "figs", "base": {"model": "llama-3.1-8b", "format": "bf16",
  "cluster": {"prefill": {"instances": 1}, "decode": {"instances": 1}}, "workload": {"trace": "$PWD/t.jsonl"}},
 "sweep": {"axes": [{"path": "cluster.network.nic_gbps", "values": [25, 100]},
                    {"path": "format", "values": ["bf16", "int8-g128"]}]}}
JSON
"$lynxsim" run p.json --out pres > /dev/null 2>&1 || fail "run p.json"
mkdir figs && "$lynxsim" plot pres --metric ttft --out figs > /dev/null 2>&1 || fail "plot pres --out figs"
figure="$(ls figs/*.png | head -n 1)"
[ -n "$figure" ] || fail "plot res --out figs wrote no PNG"
rm "$figure" && mkfifo "$figure"
refused "$figure: is not a regular file; the plot would replace it" "$figure" -- plot pres --metric ttft --out figs
rm "$figure" && mkdir "$figure"
refused "$figure: is a folder" "$figure" -- plot pres --metric ttft --out figs

# accuracy, bench-kernels: one output file each.
echo "Once upon a time." > text.txt
refused 'out text\.txt would replace the input --text' text.txt -- accuracy --text text.txt --out text.txt --stories 1
refused 'out /dev/null: is a character device' /dev/null -- accuracy --out /dev/null --stories 1
refused 'out fifo: is a FIFO' fifo -- bench-kernels --device datasheet --out fifo
refused 'out adir: is a folder, expected a file path' adir -- bench-kernels --device datasheet --out adir

# validate: into its own data folder, or a folder it cannot write (refused before the whole run, not after it).
mkdir cal && echo "x" > cal/keep.csv
refused 'out cal is also the input folder --data-dir cal' cal/keep.csv -- validate --data-dir cal --out cal
if [ "$(id -u)" != 0 ]; then
  refused 'out ro/v: cannot create it under' c.json -- validate --out ro/v
fi
echo "output rule: every case refused"
