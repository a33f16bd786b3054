#!/usr/bin/env python3
"""Checks what `lynxsim plot --data FILE` says it plotted against the points' own summary.json (written by the
simulator, not by the plotting script):
  plot_data_check.py values DATA RESULTS POINTS  every point of the sweep is plotted once, with its summary value
  plot_data_check.py cdf DATA RESULTS            each CDF's values give the summary's p50/p90/p99/mean and count
  plot_data_check.py colours DATA_A DATA_B       a series has one colour in both plots; colours differ within one
Prints one line per failure and exits 1 on any."""
import json
import math
import os
import sys

failures = []


def check(ok, message):
    if not ok:
        failures.append(message)


def close(a, b, rel=1e-9, abs_tol=0.0):
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_tol)


def summary_metrics(results, point):
    with open(os.path.join(results, point, "summary.json")) as f:
        return json.load(f)["metrics"]


def percentile(sorted_values, pct):
    """sim/metrics.cpp's percentile: linear between the two nearest ranks."""
    rank = pct / 100.0 * (len(sorted_values) - 1)
    lo = int(math.floor(rank))
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (rank - lo)


def check_values(data, results, expected_points):
    seen = []
    for panel in data["panels"]:
        for series in panel["series"]:
            for p in series["points"]:
                seen.append(p["point"])
                want = summary_metrics(results, p["point"])[data["column"]]
                check(p["value"] is not None and close(p["value"], want),
                      "%s %s: plotted %s, summary.json has %s" % (p["point"], data["column"], p["value"], want))
                check(("nic_gbps=%g_" % p["x"]) in p["point"] + "_" or data["x"] != "cluster.network.nic_gbps",
                      "%s plotted at x = %s" % (p["point"], p["x"]))
    check(sorted(seen) == sorted(set(seen)) and len(seen) == expected_points,
          "%d points plotted (%d distinct), expected %d" % (len(seen), len(set(seen)), expected_points))


def check_cdf(data, results):
    distribution = {"p50": "median_%s_ms", "p90": "p90_%s_ms", "p99": "p99_%s_ms"}
    count = 0
    for figure in data["figures"]:
        for panel in figure["panels"]:
            for series in panel["series"]:
                count += 1
                values, m = series["values"], summary_metrics(results, series["point"])
                check(values == sorted(values), "%s: CDF values not sorted" % series["point"])
                for stat, column in distribution.items():
                    want = m[column % data["metric"]]
                    got = percentile(values, float(stat[1:]))
                    # requests.csv holds times to the nanosecond: 1e-6 ms.
                    check(close(got, want, abs_tol=2e-6), "%s: CDF %s %s, summary.json %s" % (
                        series["point"], stat, got, want))
                want = m["mean_%s_ms" % data["metric"]]
                check(close(sum(values) / len(values), want, abs_tol=2e-6),
                      "%s: CDF mean %s, summary.json %s" % (series["point"], sum(values) / len(values), want))
                if data["metric"] != "tpot":
                    check(len(values) == m["completed"], "%s: %d requests in the CDF, %d completed" % (
                        series["point"], len(values), m["completed"]))
    check(count > 0, "no CDF plotted")


def colours(data):
    return {s["name"]: s["colour"] for panel in data["panels"] for s in panel["series"]}


def check_colours(a, b):
    ca, cb = colours(a), colours(b)
    for data, c in ((a, ca), (b, cb)):
        check(len(set(c.values())) == len(c), "%s: two series share a colour: %s" % (data["metric"], c))
    common = sorted(set(ca) & set(cb))
    check(common, "the two plots have no series in common")
    for s in common:
        check(ca[s] == cb[s], "%s is %s in one plot and %s in the other" % (s, ca[s], cb[s]))


def main():
    mode, first = sys.argv[1], json.load(open(sys.argv[2]))
    if mode == "values":
        check_values(first, sys.argv[3], int(sys.argv[4]))
    elif mode == "cdf":
        check_cdf(first, sys.argv[3])
    elif mode == "colours":
        check_colours(first, json.load(open(sys.argv[3])))
    for f in failures:
        print("%s: %s" % (sys.argv[2], f))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
