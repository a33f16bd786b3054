"""Plots of any one metric (`lynxsim plot --metric M --stat S`): its statistic against the swept x, a line per
series, from summary.csv; or (`--cdf`) its per-request CDF at chosen x values. The metric, its statistic and
summary column, the CDFs' x values and their per-request values come checked in the plot request
(experiments/plot_request.hpp); the metric table (labels, units, columns) is lynxsim's (experiments/plot_metrics.hpp).
What is plotted can also be written as JSON (`--data FILE`) so tests can compare it with the points' summary.json,
with what each panel shows (plot_panel.py: legend entries, axis scales, lines covering others)."""
import json
import math
import os
import stat

from plot_data import PlotInputError, number
from plot_panel import MARKERS


def plot_metric(res, name, stat, column, out_dir, written):
    """The metric's statistic (None: its one value) from summary.csv's `column` against x: a panel per facet, a line
    per series. Returns what was plotted."""
    m = res.metrics[name]
    what = "%s %s" % (stat, name) if stat else name
    fig, panels = res.facet_grid(4.4)
    data = {"metric": name, "stat": stat, "column": column, "unit": m["unit"], "x": res.x_key, "panels": []}
    shown = []
    for panel, facet in zip(panels, res.facets):
        entry = {"facet": facet, "series": []}
        for k, s in enumerate(res.series):
            values = [res.metric(facet, s, x, column) for x in res.xs]
            line = panel.line(res.px, values, s, marker=MARKERS[k % len(MARKERS)], markersize=5, linestyle="-",
                              color=res.colour(s))
            res.mark_overloaded(panel, facet, s, values)
            entry["series"].append({"name": s, "colour": line.get_color(), "points": [
                {"x": number(x), "point": res.row(facet, s, x)["point"], "value": None if math.isnan(v) else v}
                for x, v in zip(res.xs, values) if res.row(facet, s, x) is not None]})
        data["panels"].append(entry)
        for slo in res.slos([name]):
            panel.slo_line(slo)
        res.x_axis(panel)
        panel.y_axis(allow_log=m["log"])
        shown.append(res.finish_panel(panel, facet, "%s (%s)" % (what, m["unit"]),
                                      title="%s: %s\n%s" % (what, m["label"], res.title(facet))))
    stem = "%s_vs_%s" % (name + ("_" + stat if stat else ""), res.x_short)
    res.save(fig, out_dir, stem, written, shown)
    return data


def plot_cdf(res, name, at, out_dir, written):
    """Per-request CDFs of the metric at each x value of `at`: a panel per facet, a line per series."""
    m = res.metrics[name]
    data = {"metric": name, "unit": m["unit"], "x": res.x_key, "figures": []}
    for x in at:
        fig, panels = res.facet_grid(4.2)
        figure = {"at": number(x), "panels": []}
        shown = []
        for panel, facet in zip(panels, res.facets):
            entry = {"facet": facet, "series": []}
            every = []
            for s in res.series:
                row = res.row(facet, s, x)
                if row is None:
                    continue
                values = res.request_values(row["point"], name)
                every += values
                line = panel.line(values, [(k + 1) / len(values) for k in range(len(values))], s, linestyle="-",
                                  drawstyle="steps-post", color=res.colour(s))
                entry["series"].append({"name": s, "colour": line.get_color(), "point": row["point"],
                                        "values": values})
            figure["panels"].append(entry)
            for slo in res.slos([name]):
                panel.slo_line(slo, vertical=True)
            panel.x_log(every, allow_log=m["log"])
            panel.ax.set_xlabel("%s (%s)" % (name, m["unit"]))
            panel.ax.set_ylim(0, 1.02)
            shown.append(res.finish_panel(panel, facet, "fraction of requests", title="%s: %s, CDF at %s = %s\n%s" % (
                name, m["label"], res.x_short, x, res.title(facet))))
        data["figures"].append(figure)
        stem = "%s_cdf_%s_%s" % (name, res.x_short, x)
        res.save(fig, out_dir, stem, written, shown)
    return data


def finite_or_null(value):
    """`value` with every NaN or infinity replaced by None: JSON has neither, and a point without a value (a
    missing run, a metric no request produced) is null in the data file, never `NaN` or `Infinity`."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite_or_null(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_or_null(v) for v in value]
    return value


def write_data(path, data):
    """The plotted series as valid JSON (allow_nan=False), written to a temporary name and renamed; never over a
    folder, FIFO or device (lynxsim checked the path before the plot; checked again here at rename time)."""
    text = json.dumps(finite_or_null(data), indent=1, sort_keys=True, allow_nan=False) + "\n"
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "x") as f:
        f.write(text)
    if os.path.lexists(path) and not stat.S_ISREG(os.lstat(path).st_mode):
        os.remove(tmp)
        raise PlotInputError("--data %s: exists and is not a regular file; lynxsim replaces only regular files" % path)
    os.replace(tmp, path)
