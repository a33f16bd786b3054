#!/usr/bin/env bash
# `lynxsim plot --metric/--stat/--cdf` on two small sweeps (tests/experiments/plot_sweep*.json):
# - every metric is plotted, and the values it plotted (--data) are the points' summary.json values;
# - per-request CDFs give back the summary's percentiles and mean;
# - a format has the same colour in plots with different sets of formats;
# - two series that share a format but differ in another path of their axis are drawn apart, each with its values;
# - a series of two keys is a line per combination, and the relative plot and ratios divide like by like;
# - log axes are labelled with the swept numbers (10, 25, 100), never as powers of ten;
# - plotting twice gives byte-identical PNG and SVG files;
# - what each panel shows (legend entries, scales, overlaps, SLO lines, labels, titles) follows the rules;
# - a bad option, statistic, --slo or plot section is exit 2 with one line naming the valid values, and writes nothing,
#   the same error from `lynxsim run` (before the sweep) and `lynxsim plot` (the results directory's copy);
# - --help shows every option with its default.
#   plot_metrics_check.sh LYNXSIM
set -euo pipefail
lynxsim=$1
here=$(cd "$(dirname "$0")" && pwd)
python=/usr/bin/python3
[ -x "$python" ] || python=python3
check="$python $here/plot_data_check.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$lynxsim" run "$here/plot_sweep.json" --out "$tmp/a" -j 2 >/dev/null 2>&1
"$lynxsim" run "$here/plot_sweep_other_formats.json" --out "$tmp/b" -j 2 >/dev/null 2>&1

# Every metric (its default statistic), and some other statistics: the plotted values are the summary's.
for spec in ttft ttft_spec ttft_correct tpot itl e2el kv_transfer exposed_transfer goodput slo_attainment \
            request_throughput output_throughput tpot:p99 ttft_spec:p90 e2el:mean kv_transfer:p99; do
  metric=${spec%%:*}
  stat=()
  [ "$spec" != "$metric" ] && stat=(--stat "${spec#*:}")
  "$lynxsim" plot "$tmp/a" --metric "$metric" "${stat[@]}" --data "$tmp/$spec.json" >"$tmp/out.txt"
  $check values "$tmp/$spec.json" "$tmp/a" 9 || fail "$spec: plotted values differ from summary.json"
done
for f in tpot_p99_vs_nic_gbps goodput_vs_nic_gbps itl_mean_vs_nic_gbps ttft_p50_vs_nic_gbps; do
  for ext in png svg; do [ -s "$tmp/a/$f.$ext" ] || fail "missing $f.$ext"; done
done
grep -q '"stat": "p99"' "$tmp/tpot:p99.json" && grep -q '"column": "p99_tpot_ms"' "$tmp/tpot:p99.json" \
  || fail "tpot --stat p99 did not plot p99_tpot_ms"

# Two series sharing a format (fixed int8, the adaptive policy with int8 as its reference) are two lines, each
# point plotted with its own values, the policy's line named by what sets it apart.
"$lynxsim" run "$here/plot_sweep_shared_format.json" --out "$tmp/shared" -j 2 >/dev/null 2>&1
"$lynxsim" plot "$tmp/shared" --metric ttft --data "$tmp/shared.json" >/dev/null
$check values "$tmp/shared.json" "$tmp/shared" 6 || fail "series sharing a format: plotted values differ from summary.json"
grep -q '"name": "int8-g64 (format_policy=adaptive, adaptive_formats=' "$tmp/shared.json" \
  || fail "the adaptive policy's line is not named apart from int8's"

# A series of two keys (format, chunk_layers): a line per combination, each point with its own values; the relative
# plot and the ratio divide each line by the one of the same chunk size.
"$lynxsim" run "$here/plot_sweep_series_keys.json" --out "$tmp/keys" -j 2 >/dev/null 2>&1
"$lynxsim" plot "$tmp/keys" --metric ttft --data "$tmp/keys.json" >/dev/null
$check values "$tmp/keys.json" "$tmp/keys" 8 || fail "series of two keys: plotted values differ from summary.json"
for name in "int8-g64 (chunk_layers=2)" "int8-g64 (chunk_layers=16)" "lynx-a4r4-g64 (chunk_layers=2)" \
            "lynx-a4r4-g64 (chunk_layers=16)"; do
  [ "$(grep -c "\"name\": \"$name\"" "$tmp/keys.json")" = 1 ] || fail "series of two keys: no line \"$name\""
done
mkdir "$tmp/keys_standard"
"$lynxsim" plot "$tmp/keys" --out "$tmp/keys_standard" --data "$tmp/keys_standard.json" >"$tmp/keys_ratios.txt"
for entry in "lynx-a4r4-g64 (chunk_layers=16): p50 first verified token / int8-g64 (chunk_layers=16)'s" \
             "int8-g64 (chunk_layers=2) ttft_spec / lynx-a4r4-g64 (chunk_layers=2) ttft_spec"; do
  grep -qF "\"$entry" "$tmp/keys_standard.json" || fail "series of two keys: no legend entry \"$entry\""
done
"$python" - "$tmp/keys" "$tmp/keys_ratios.txt" <<'PY' || fail "series of two keys: a ratio is not its two lines' medians"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/summary.csv")))
lines = open(sys.argv[2]).read().split("\n")
for chunk in ("2", "16"):
    head = "int8-g64 (chunk_layers=%s) ttft_spec / lynx-a4r4-g64 (chunk_layers=%s) ttft_spec" % (chunk, chunk)
    at = lines.index(head)
    for line in lines[at + 1:at + 3]:
        nic = line.split()[2]
        median = lambda f: float(next(r["median_ttft_spec_ms"] for r in rows if r["format"] == f and
                                      r["transfer.chunk_layers"] == chunk and r["cluster.network.nic_gbps"] == nic))
        assert abs(float(line.split()[3]) - median("int8-g64") / median("lynx-a4r4-g64")) < 1e-3, line
PY
$check drawn "$tmp/keys_standard.json" "$tmp/keys" "Network: bandwidth of each NIC's link to its switch (Gbps)" || fail "series of two keys: what is drawn"

# CDFs from requests.csv equal the summary's distribution.
"$lynxsim" plot "$tmp/a" --metric tpot --cdf --at 25 --data "$tmp/cdf_tpot.json" >/dev/null
"$lynxsim" plot "$tmp/a" --metric kv_transfer --cdf --at 10 --at 100 --data "$tmp/cdf_kv.json" >/dev/null
"$lynxsim" plot "$tmp/a" --metric ttft_spec --cdf --data "$tmp/cdf_spec.json" >/dev/null  # at the plot section's cdf_at
for f in cdf_tpot cdf_kv cdf_spec; do $check cdf "$tmp/$f.json" "$tmp/a" || fail "$f: CDF differs from summary.json"; done
grep -q '"at": 25' "$tmp/cdf_spec.json" || fail "--cdf without --at is not at the plot section's cdf_at (25)"
for f in tpot_cdf_nic_gbps_25 kv_transfer_cdf_nic_gbps_10 kv_transfer_cdf_nic_gbps_100; do
  [ -s "$tmp/a/$f.svg" ] || fail "missing $f.svg"
done

# The colour of a format does not depend on which formats a plot has.
"$lynxsim" plot "$tmp/b" --metric ttft --data "$tmp/b_ttft.json" >/dev/null
$check colours "$tmp/ttft.json" "$tmp/b_ttft.json" || fail "colours differ between plots"
grep -q '"colour": "#d62728"' "$tmp/b_ttft.json" || fail "lynx-a4r4-g64 is not its fixed red"

# What each panel shows, as the script decided it (--data's "drawn"): legend entries only for what is drawn (the
# overload ring only where summary.csv has an overloaded point), log y only over a decade, lines within 1.5% of the axis of
# another said so, the SLO line on its metric's plots only, the x label from the schema, topology and pools in the
# title; for the standard plots and for --metric plots, with and without --slo.
label="Network: bandwidth of each NIC's link to its switch (Gbps)"
$check rules || fail "plot_panel.py's rules"
$check drawn "$tmp/ttft.json" "$tmp/a" "$label" || fail "ttft: what is drawn"
$check drawn "$tmp/b_ttft.json" "$tmp/b" "$label" || fail "ttft (other formats): what is drawn"
"$lynxsim" plot "$tmp/a" --metric ttft --stat p99 --slo ttft:2000 --data "$tmp/slo.json" >/dev/null
$check drawn "$tmp/slo.json" "$tmp/a" "$label" ttft:2000 || fail "--slo ttft:2000: what is drawn"
"$lynxsim" plot "$tmp/a" --metric ttft --cdf --slo ttft:1500 --data "$tmp/slo_cdf.json" >/dev/null
$check drawn "$tmp/slo_cdf.json" "$tmp/a" "$label" ttft:1500 || fail "--cdf --slo ttft:1500: what is drawn"
mkdir "$tmp/standard"
"$lynxsim" plot "$tmp/a" --out "$tmp/standard" --slo ttft:2000 --data "$tmp/standard.json" >/dev/null
$check drawn "$tmp/standard.json" "$tmp/a" "$label" ttft:2000 || fail "standard plots: what is drawn"
for f in ttft_vs_nic_gbps ttft_relative_to_bf16 speculation ttft_cdf_at_25; do
  grep -q "\"file\": \"$f\"" "$tmp/standard.json" || fail "standard plots: $f not recorded"
done

# Log axes: ticks at the swept values written as numbers (matplotlib names each text in an SVG comment).
svg="$tmp/a/ttft_p50_vs_nic_gbps.svg"
for tick in 10 25 100; do grep -q -- "<!-- $tick -->" "$svg" || fail "no x tick \"$tick\" in $svg"; done
! grep -q 'mathdefault' "$svg" || fail "$svg has a tick written as a power of ten"

# Same inputs, same files, byte for byte.
mkdir "$tmp/again"
"$lynxsim" plot "$tmp/a" --metric tpot --stat p99 --out "$tmp/again" >/dev/null
for ext in png svg; do
  cmp -s "$tmp/a/tpot_p99_vs_nic_gbps.$ext" "$tmp/again/tpot_p99_vs_nic_gbps.$ext" || fail "$ext differs when plotted again"
done

# Bad input: exit 2, one line on stderr naming what is valid, nothing written.
bad() {  # bad EXPECTED_TEXT ARGS...
  local expected=$1
  shift
  local before after status=0
  before=$(ls "$tmp/a")
  "$lynxsim" "$@" >/dev/null 2>"$tmp/err.txt" || status=$?
  [ "$status" = 2 ] || fail "lynxsim $* exited $status, expected 2"
  [ "$(wc -l <"$tmp/err.txt")" = 1 ] || fail "lynxsim $*: not one line: $(cat "$tmp/err.txt")"
  grep -q '^lynxsim: error: ' "$tmp/err.txt" || fail "lynxsim $*: $(cat "$tmp/err.txt")"
  grep -qF -- "$expected" "$tmp/err.txt" || fail "lynxsim $*: no \"$expected\" in: $(cat "$tmp/err.txt")"
  after=$(ls "$tmp/a")
  [ "$before" = "$after" ] || fail "lynxsim $* wrote files"
}
bad "ttft_spec" plot "$tmp/a" --metric ttfb
bad "p99" plot "$tmp/a" --metric tpot --stat p95
bad "valid --stat for itl: mean" plot "$tmp/a" --metric itl --stat p99
bad "goodput is one value per point" plot "$tmp/a" --metric goodput --stat p50
bad "CDFs of: ttft" plot "$tmp/a" --metric goodput --cdf
bad "not a value of cluster.network.nic_gbps (10, 25, 100)" plot "$tmp/a" --metric ttft --cdf --at 40
bad "--stat needs --metric" plot "$tmp/a" --stat p99
bad "--at needs --cdf" plot "$tmp/a" --metric ttft --at 25
bad "options of \`lynxsim plot\`: --help, --metric, --stat, --cdf, --at, --data, --slo, --gantt, --out" plot "$tmp/a" --colour red
bad "--slo ttft:0: the target must be a positive number of ms, got 0" plot "$tmp/a" --slo ttft:0
bad "--slo ttft:-5: the target must be a positive number of ms" plot "$tmp/a" --slo ttft:-5
bad "--slo ttfb:2000: ttfb is not a metric in ms (valid: ttft, " plot "$tmp/a" --slo ttfb:2000
bad "--slo goodput:3: goodput is not a metric in ms" plot "$tmp/a" --metric goodput --slo goodput:3
bad "--slo ttft: expected METRIC:VALUE with VALUE in ms, e.g. --slo ttft:2000" plot "$tmp/a" --slo ttft
bad "--slo tpot:50: no plot of this command shows tpot (these do: ttft, ttft_correct, ttft_spec); add --metric tpot" \
  plot "$tmp/a" --slo tpot:50
# The plot section is checked by one reader, the same for an experiment file before its sweep runs (nothing
# created) and for a results directory's copy: an unknown key, a wrong type, an x value that is not swept.
plot_error() {  # plot_error SED_EXPRESSION EXPECTED_TEXT: the experiment's plot section edited, run and plot refuse it
  sed "$1" "$here/plot_sweep.json" >"$tmp/bad_plot.json"
  bad "$tmp/bad_plot.json: $2" run "$tmp/bad_plot.json" --out "$tmp/never"
  [ ! -e "$tmp/never" ] || fail "run with a bad plot section created its results directory"
  cp "$tmp/a/experiment.json" "$tmp/experiment.saved.json"
  sed "$1" "$tmp/experiment.saved.json" >"$tmp/a/experiment.json"
  bad "$tmp/a/experiment.json: $2" plot "$tmp/a"
  cp "$tmp/experiment.saved.json" "$tmp/a/experiment.json"
}
plot_error 's/"baseline": "bf16"/"baseline": "bf16", "colour_by": "format"/' \
  '$.plot.colour_by: unknown field (valid here: baseline, cdf_at, facet, frontier, kind, ratios, series, x, y)'
plot_error 's/"cdf_at": 25/"cdf_at": true/' '$.plot.cdf_at: expected a value of the x axis (number or string), got true'
plot_error 's/"cdf_at": 25/"cdf_at": 40/' '$.plot.cdf_at: 40: not a value of cluster.network.nic_gbps (10, 25, 100)'
plot_error 's/"series": "format"/"series": "seed"/' '$.plot.series: "seed" is not a sweep axis (axes: format, cluster.network.nic_gbps)'
plot_error 's/"x": "cluster.network.nic_gbps"/"x": "format"/' \
  '$.plot: axis "cluster.network.nic_gbps" has several values; name it as "facet"'
plot_error 's/"cdf_at": 25/"frontier": ["itl"]/' '$.plot.frontier[0]: "itl" is not a metric with a median'
# cdf_at is a value of x as text too (as docs/config.md says): the same plot as the number.
mkdir "$tmp/number_at" "$tmp/text_at"
"$lynxsim" plot "$tmp/a" --out "$tmp/number_at" >/dev/null
sed 's/"cdf_at": 25/"cdf_at": "25"/' "$tmp/experiment.saved.json" >"$tmp/a/experiment.json"
"$lynxsim" plot "$tmp/a" --out "$tmp/text_at" >/dev/null
cp "$tmp/experiment.saved.json" "$tmp/a/experiment.json"
for ext in png svg; do
  cmp -s "$tmp/text_at/ttft_cdf_at_25.$ext" "$tmp/number_at/ttft_cdf_at_25.$ext" \
    || fail "cdf_at \"25\" does not give the $ext of cdf_at 25"
done
# A ratio between two first-token definitions says which, in words (no bare "[different definitions]" tag).
mkdir "$tmp/ratio"
sed 's/"cdf_at": 25/"cdf_at": 25, "ratios": [{"numerator": ["int8-g64", "ttft"], "denominator": ["lynx-a4r4-g64", "ttft_spec"]}]/' \
  "$tmp/experiment.saved.json" >"$tmp/a/experiment.json"
"$lynxsim" plot "$tmp/a" --out "$tmp/ratio" --data "$tmp/ratio.json" >"$tmp/ratio.txt"
cp "$tmp/experiment.saved.json" "$tmp/a/experiment.json"
grep -qxF "int8-g64 ttft / lynx-a4r4-g64 ttft_spec (different definitions: int8-g64's TTFT (first verified token) over lynx-a4r4-g64's TTFT (first, speculative, token))" \
  "$tmp/ratio.txt" || fail "the mixed ratio is not spelled out: $(cat "$tmp/ratio.txt")"
! grep -q "\[different definitions\]" "$tmp/ratio.txt" || fail "the cryptic tag is back"
$check drawn "$tmp/ratio.json" "$tmp/a" "$label" || fail "ratios: what is drawn"
# The plot request handed to the script is a temporary file, removed after it.
mkdir "$tmp/tmpdir"
TMPDIR="$tmp/tmpdir" "$lynxsim" plot "$tmp/a" --metric ttft --cdf --out "$tmp/text_at" >/dev/null
[ -z "$(ls -A "$tmp/tmpdir")" ] || fail "the plot request was left in TMPDIR: $(ls "$tmp/tmpdir")"

# --help: every option with its default.
"$lynxsim" plot --help >"$tmp/help.txt"
for opt in --metric --stat --cdf --at --data --slo --out; do
  grep -A3 -- "^ *$opt" "$tmp/help.txt" | tr '\n' ' ' | grep -q "default" || fail "plot --help: $opt has no default"
done
"$lynxsim" run --help | tr '\n' ' ' | grep -q -- "--jobs.*(default 1)" || fail "run --help does not show --jobs' default"
echo "every metric plotted as in summary.json; CDFs, colours, ticks, reproducibility, bad input and --help checked"
