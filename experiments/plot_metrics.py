"""Plots of any one metric (`lynxsim plot --metric M --stat S`): its statistic against the swept x, a line per
series, from summary.csv; or (`--cdf`) its per-request CDF at chosen x values. The metric, its statistic and
summary column, the CDFs' x values and their per-request values come checked in the plot request
(experiments/plot_request.hpp); the metric table (labels, units, columns) is lynxsim's (experiments/plot_metrics.hpp).
What is plotted can also be written as JSON (`--data FILE`) so tests can compare it with the points' summary.json."""
import json
import math
import os
import stat

from plot_data import PlotInputError, number
from plot_style import log_axis, save


def y_axis(ax, m, ylabel):
    finite = [v for line in ax.get_lines() for v in line.get_ydata() if v == v and v > 0]
    if m["log"] and finite:
        log_axis(ax.yaxis)
    ax.set_ylabel(ylabel)


def plot_metric(res, name, stat, column, out_dir, written):
    """The metric's statistic (None: its one value) from summary.csv's `column` against x: a panel per facet, a line
    per series. Returns what was plotted."""
    m = res.metrics[name]
    what = "%s %s" % (stat, name) if stat else name
    fig, panels = res.facet_grid(4.4)
    data = {"metric": name, "stat": stat, "column": column, "unit": m["unit"], "x": res.x_key, "panels": []}
    for ax, facet in zip(panels, res.facets):
        panel = {"facet": facet, "series": []}
        for s in res.series:
            values = [res.metric(facet, s, x, column) for x in res.xs]
            line, = ax.plot(res.px, values, "-", marker="o", markersize=5, color=res.colour(s), label=s)
            res.mark_overloaded(ax, facet, s, values)
            panel["series"].append({"name": s, "colour": line.get_color(), "points": [
                {"x": number(x), "point": res.row(facet, s, x)["point"], "value": None if math.isnan(v) else v}
                for x, v in zip(res.xs, values) if res.row(facet, s, x) is not None]})
        data["panels"].append(panel)
        res.x_axis(ax)
        y_axis(ax, m, "%s (%s)" % (what, m["unit"]))
        ax.set_title("%s: %s\n%s" % (what, m["label"], res.title(facet)), fontsize=8)
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=7, title="red ring: overloaded (waits > service)", title_fontsize=6)
    save(fig, out_dir, "%s_vs_%s" % (name + ("_" + stat if stat else ""), res.x_short), written)
    return data


def plot_cdf(res, name, at, out_dir, written):
    """Per-request CDFs of the metric at each x value of `at`: a panel per facet, a line per series."""
    m = res.metrics[name]
    data = {"metric": name, "unit": m["unit"], "x": res.x_key, "figures": []}
    for x in at:
        fig, panels = res.facet_grid(4.2)
        figure = {"at": number(x), "panels": []}
        for ax, facet in zip(panels, res.facets):
            panel = {"facet": facet, "series": []}
            for s in res.series:
                row = res.row(facet, s, x)
                if row is None:
                    continue
                values = res.request_values(row["point"], name)
                line, = ax.plot(values, [(k + 1) / len(values) for k in range(len(values))], "-",
                                drawstyle="steps-post", color=res.colour(s), label=s)
                panel["series"].append({"name": s, "colour": line.get_color(), "point": row["point"],
                                        "values": values})
            figure["panels"].append(panel)
            if m["log"] and any(v > 0 for line in ax.get_lines() for v in line.get_xdata()):
                log_axis(ax.xaxis)
            ax.set_xlabel("%s (%s)" % (name, m["unit"]))
            ax.set_ylabel("fraction of requests")
            ax.set_ylim(0, 1.02)
            ax.set_title("%s: %s\n%s%s = %s" % (name, m["label"], ("%s, " % facet) if facet else "", res.x_label, x),
                         fontsize=8)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=7)
        data["figures"].append(figure)
        save(fig, out_dir, "%s_cdf_%s_%s" % (name, res.x_short, x), written)
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
