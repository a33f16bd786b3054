#!/usr/bin/env python3
"""Checks what `lynxsim plot --data FILE` says it plotted against the points' own summary.json (written by the
simulator, not by the plotting script):
  plot_data_check.py values DATA RESULTS POINTS  every point of the sweep is plotted once, with its summary value
  plot_data_check.py cdf DATA RESULTS            each CDF's values give the summary's p50/p90/p99/mean and count
  plot_data_check.py colours DATA_A DATA_B       a series has one colour in both plots; colours differ within one
  plot_data_check.py drawn DATA RESULTS X_LABEL [SLO]  what each panel shows (its "drawn" record) is what the data
                                                 and summary.csv call for: the overload ring in the legend only
                                                 where a point is overloaded, never in a series' colour; log y only
                                                 over a decade; a line within 1.5% of the axis's drawn span of
                                                 another says so; the SLO line; the x label; the title names topology
                                                 and pools; every legend outside its panel in 8 pt or more, and no
                                                 legend over a panel or another legend
  plot_data_check.py rules                       plot_panel.py's decade and overlap rules at their boundaries
Prints one line per failure and exits 1 on any."""
import csv
import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "experiments"))

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
    """sim/output/metrics.cpp's percentile: linear between the two nearest ranks."""
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


OVERLOAD_ENTRY = "ring: overloaded (requests wait longer than they are served)"


def overloaded_points(results):
    """summary.csv's overloaded points: {point name}."""
    with open(os.path.join(results, "summary.csv")) as f:
        return {r["point"] for r in csv.DictReader(f) if r.get("overloaded", "").lower() in ("true", "1")}


def check_drawn(data, results, x_label, slo):
    overloaded = overloaded_points(results)
    slo_drawn = []
    check(data.get("drawn"), "no figure recorded as drawn")
    for figure in data.get("drawn", []):
        check(figure["overlaps"] == [], "%s: overlaps: %s" % (figure["file"], figure["overlaps"]))
        for panel in figure["panels"]:
            where = "%s: panel %r" % (figure["file"], panel["title"].split("\n")[0])
            legend = panel["legend"]
            check(not legend or (panel["legend_place"] == "outside, right" and panel["legend_size"] >= 8),
                  "%s: legend %s at %s pt" % (where, panel["legend_place"], panel["legend_size"]))
            check((OVERLOAD_ENTRY in legend) == (panel["overloaded_points"] > 0),
                  "%s: overload entry in the legend %s, %d points ringed" % (
                      where, OVERLOAD_ENTRY in legend, panel["overloaded_points"]))
            check(len(legend) == len(set(legend)), "%s: a legend entry twice: %s" % (where, legend))
            check(" network: prefill " in panel["title"] and ", decode " in panel["title"],
                  "%s: the title names no topology and pools: %r" % (where, panel["title"]))
            if not figure["file"].startswith(("ttft_cdf", "anchor_width")) and "_cdf_" not in figure["file"]:
                check(panel["x_label"] == x_label, "%s: x label %r, expected %r" % (where, panel["x_label"], x_label))
            for c in panel["covers"]:
                named = "on top of %s" % c["under"] in c["label"]
                check(c["label"] in legend and named == (c["points"] == c["of"]),
                      "%s: line %r meets %r at %d of %d points; the legend says so: %s" % (
                          where, c["label"], c["under"], c["points"], c["of"], named))
            # The SLO line is on the plots of its metric (ttft_vs_X, ttft_p99_vs_X, ttft_cdf_...), on no other.
            if slo is not None and re.match(r"^%s(_(p50|p90|p99|mean))?_(vs|cdf)_" % slo["metric"], figure["file"]):
                entry = "SLO: %s %g ms" % (slo["metric"], slo["value"])
                check(entry in legend and panel["slo"] == [dict(slo, unit="ms")],
                      "%s: no SLO line %r (legend %s)" % (where, entry, legend))
                slo_drawn.append(figure["file"])
            else:
                check(not panel["slo"] and not any(e.startswith("SLO:") for e in legend),
                      "%s: an SLO line where none was asked for" % where)
    check(slo is None or slo_drawn, "the SLO line is on no plot")
    # A --metric plot (one figure, its panels in the data's order): values, colours and rings against summary.csv.
    for panel, drawn in zip(data.get("panels", []), data["drawn"][0]["panels"] if "panels" in data else []):
        values = [p["value"] for s in panel["series"] for p in s["points"] if p["value"] is not None]
        decade = min(values) > 0 and max(values) >= 10 * min(values)
        check(drawn["y_scale"] == ("log" if decade else "linear"),
              "%s: y scale %s over %g..%g" % (data["metric"], drawn["y_scale"], min(values), max(values)))
        rings = sum(1 for s in panel["series"] for p in s["points"] if p["point"] in overloaded)
        check(drawn["overloaded_points"] == rings, "%d points ringed, summary.csv has %d overloaded" % (
            drawn["overloaded_points"], rings))
        check(all(s["colour"].lower() != drawn["overload_colour"] for s in panel["series"]) and
              drawn["overload_colour"] not in ("red", "#d62728"), "the overload ring has a series' colour")
        series = {s["name"]: [p["value"] for p in s["points"]] for s in panel["series"]}
        covered = {c["label"].split(" (on top of ")[0]: c for c in drawn["covers"]}
        names = list(series)
        low, high = drawn["y_limits"]
        def share(v):
            if drawn["y_scale"] == "log":
                return (math.log(v) - math.log(low)) / (math.log(high) - math.log(low))
            return (v - low) / (high - low)
        for i, a in enumerate(names):
            for b in names[:i]:
                meets = [abs(share(u) - share(v)) <= 0.015 + 1e-12 for u, v in zip(series[a], series[b])
                         if u is not None and v is not None]
                if any(meets):  # recorded (its shared points drawn larger); named in the legend when everywhere
                    check(a in covered and covered[a]["points"] >= sum(meets),
                          "%s meets %s within 1.5%% of the axis at %d of %d points and the plot does not mark it" % (
                              a, b, sum(meets), len(meets)))
                elif a in covered and covered[a]["under"] == b:
                    check(False, "%s is marked as lying on %s, more than 1.5%% of the axis away everywhere" % (a, b))


def check_rules():
    from plot_panel import coincident, near, spans_decade
    check(spans_decade([1.0, 10.0]) and spans_decade([3.0, 5.0, 30.0]), "a decade is not a decade")
    check(not spans_decade([1.0, 9.99]) and not spans_decade([0.0, 100.0]) and not spans_decade([]),
          "less than a decade, or a zero, counted as a decade")
    # 1.5% of the drawn span: on a linear axis 0..1000, 15 apart; on a log axis 1..1000 (3 decades), a factor of
    # 10^0.045 = 1.109.
    check(coincident([100.0, 200.0], [114.9, 185.1], "linear", (0.0, 1000.0)) and
          not coincident([100.0, 200.0], [100.0, 184.0], "linear", (0.0, 1000.0)),
          "the overlap rule is off at its boundary on a linear axis")
    check(near(100.0, 110.8, "log", (1.0, 1000.0)) and not near(100.0, 111.2, "log", (1.0, 1000.0)),
          "the overlap rule is off at its boundary on a log axis")
    # Two lines 1.6% apart on a plot of +-3% are apart; on one spanning 0..2 they lie on each other.
    check(not near(1.0, 1.016, "linear", (0.97, 1.03)) and near(1.0, 1.016, "linear", (0.0, 2.0)),
          "the overlap rule does not follow the axis's range")
    # lay_out reports a legend over a panel (here inside its own), and none for Panel's legend beside it.
    from plot_panel import Panel, lay_out
    from plot_style import plt
    fig, ax = plt.subplots()
    ax.plot([1, 2], [1, 2], label="inside")
    ax.legend(loc="upper left")
    check(lay_out(fig), "a legend inside its panel is not reported")
    fig, grid = plt.subplots(1, 2, squeeze=False)
    for ax in grid[0]:
        panel = Panel(ax)
        panel.line([1, 2], [1, 2], "a line with a rather long name, %s" % ("x" * 40), marker="o")
        ax.set_title("a title as wide as %s" % ("y" * 60))
        panel.legend()
    check(lay_out(fig) == [], "legends beside their panels reported as overlapping")
    check(coincident([math.nan, 5.0], [1.0, 5.0], "linear", (0.0, 10.0)) and
          not coincident([math.nan], [1.0], "linear", (0.0, 10.0)), "missing points are not skipped")


def main():
    mode = sys.argv[1]
    if mode == "rules":
        check_rules()
        for f in failures:
            print("rules: %s" % f)
        sys.exit(1 if failures else 0)
    first = json.load(open(sys.argv[2]))
    if mode == "values":
        check_values(first, sys.argv[3], int(sys.argv[4]))
    elif mode == "cdf":
        check_cdf(first, sys.argv[3])
    elif mode == "colours":
        check_colours(first, json.load(open(sys.argv[3])))
    elif mode == "drawn":
        slo = None
        if len(sys.argv) > 5:
            metric, value = sys.argv[5].split(":")
            slo = {"metric": metric, "value": float(value)}
        check_drawn(first, sys.argv[3], sys.argv[4], slo)
    for f in failures:
        print("%s: %s" % (sys.argv[2], f))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
