"""Plots of any one metric (`lynxsim plot --metric M --stat S`): its statistic against the swept x, a line per
series, from summary.csv; or (`--cdf`) its per-request CDF at chosen x values, from the points' requests.csv.
Metric names are vLLM's benchmark names (ttft, tpot, itl, e2el, goodput) and lynxsim's own (ttft_spec,
ttft_correct, kv_transfer, exposed_transfer); the summary columns are those of sim/metrics.cpp. What is plotted
can also be written as JSON (`--data FILE`) so tests can compare it with the points' summary.json."""
import csv
import json
import math
import os

from plot_data import PlotInputError, number
from plot_style import log_axis, save

STATS = ["p50", "p90", "p99", "mean"]
STAT_PREFIX = {"p50": "median", "p90": "p90", "p99": "p99", "mean": "mean"}


def time_column(column):
    """A per-request time of requests.csv (seconds) in ms; None where empty."""
    return lambda r: float(r[column]) * 1e3 if r[column] != "" else None


def tpot_ms(r):
    # As sim/metrics.cpp: only requests of more than one output token have a time per output token.
    return float(r["tpot_s"]) * 1e3 if int(r["output_tokens"]) > 1 else None


def kv_transfer_ms(r):
    # RequestRecord::kv_transfer_s: first chunk sent to the last chunk (anchor or residual) arrived.
    last = float(r["anchor_arrival_s"])
    if r["residual_arrival_s"] != "":
        last = max(last, float(r["residual_arrival_s"]))
    return (last - float(r["transfer_start_s"])) * 1e3


def exposed_transfer_ms(r):
    # RequestRecord::exposed_transfer_s: the part of the transfer after the prefill ended.
    return (float(r["anchor_arrival_s"]) - float(r["prefill_end_s"])) * 1e3


class Metric:
    """columns: stat -> summary column (one entry under None for a metric with one value per point);
    per_request: the value of one requests.csv row (None where it has none), or None if there is no such value."""

    def __init__(self, label, unit, columns, per_request=None, log=True):
        self.label, self.unit, self.columns, self.per_request, self.log = label, unit, columns, per_request, log


def distribution(name, label, per_request):
    return Metric(label, "ms", {s: "%s_%s_ms" % (STAT_PREFIX[s], name) for s in STATS}, per_request)


METRICS = {
    "ttft": distribution("ttft", "TTFT (first verified token)", time_column("ttft_s")),
    "ttft_spec": distribution("ttft_spec", "TTFT (first, speculative, token)", time_column("ttft_spec_s")),
    "ttft_correct": distribution("ttft_correct", "TTFT (first correct token)", time_column("ttft_correct_s")),
    "tpot": distribution("tpot", "TPOT (time per output token after the first)", tpot_ms),
    "itl": Metric("ITL (mean gap between tokens, over all tokens)", "ms", {"mean": "mean_itl_ms"}),
    "e2el": distribution("e2el", "E2EL (end-to-end latency)", time_column("e2el_s")),
    "kv_transfer": distribution("kv_transfer", "KV transfer (first chunk sent to last arrived)", kv_transfer_ms),
    "exposed_transfer": distribution("exposed_transfer", "exposed KV transfer (prefill end to KV arrival)",
                                     exposed_transfer_ms),
    "goodput": Metric("goodput (requests meeting both SLOs)", "requests/s", {None: "request_goodput"}, log=False),
    "slo_attainment": Metric("SLO attainment (share meeting both SLOs)", "fraction", {None: "slo_attainment"},
                             log=False),
    "request_throughput": Metric("request throughput", "requests/s", {None: "request_throughput"}, log=False),
    "output_throughput": Metric("output throughput", "tokens/s", {None: "output_throughput"}, log=False),
}


def resolve(name, stat):
    """(Metric, stat, summary column) for --metric name --stat stat (None: the metric's default); bad pairs raise."""
    if name not in METRICS:
        raise PlotInputError("--metric %s: unknown metric (valid: %s)" % (name, ", ".join(METRICS)))
    m = METRICS[name]
    if stat is not None and stat not in STATS:
        raise PlotInputError("--stat %s: unknown statistic (valid: %s)" % (stat, ", ".join(STATS)))
    if None in m.columns:
        if stat is not None:
            raise PlotInputError("--stat %s: %s is one value per point (%s in summary.json); leave --stat out" % (
                stat, name, m.columns[None]))
        return m, None, m.columns[None]
    if stat is None:
        stat = "p50" if "p50" in m.columns else STATS[-1]
    if stat not in m.columns:
        raise PlotInputError("--stat %s: summary.json holds only the %s of %s (%s); valid --stat for %s: %s" % (
            stat, "/".join(m.columns), name, ", ".join(m.columns.values()), name, ", ".join(m.columns)))
    return m, stat, m.columns[stat]


def check_cdf(name):
    m = METRICS[name]
    if m.per_request is None:
        with_values = [k for k, v in METRICS.items() if v.per_request is not None]
        raise PlotInputError("--cdf: %s has no per-request value in requests.csv (CDFs of: %s)" % (
            name, ", ".join(with_values)))


def cdf_at_values(res, at):
    """The x values of --at (default: the plot section's cdf_at, else the smallest x), as summary.csv has them."""
    wanted = at if at else [str(res.spec["cdf_at"])] if "cdf_at" in res.spec else [res.xs[0]]
    where = "--at" if at else "%s/experiment.json: $.experiment.plot.cdf_at" % res.dir
    chosen = []
    for a in wanted:
        match = [x for x in res.xs if number(x) == number(a)]
        if not match:
            raise PlotInputError("%s %s: not a value of %s (%s)" % (where, a, res.x_key, ", ".join(res.xs)))
        chosen.append(match[0])
    return list(dict.fromkeys(chosen))


def y_axis(ax, m, ylabel):
    finite = [v for line in ax.get_lines() for v in line.get_ydata() if v == v and v > 0]
    if m.log and finite:
        log_axis(ax.yaxis)
    ax.set_ylabel(ylabel)


def plot_metric(res, name, stat, out_dir, written):
    """The metric's statistic against x: a panel per facet, a line per series. Returns what was plotted."""
    m, stat, column = resolve(name, stat)
    what = "%s %s" % (stat, name) if stat else name
    fig, panels = res.facet_grid(4.4)
    data = {"metric": name, "stat": stat, "column": column, "unit": m.unit, "x": res.x_key, "panels": []}
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
        y_axis(ax, m, "%s (%s)" % (what, m.unit))
        ax.set_title("%s: %s\n%s" % (what, m.label, res.title(facet)), fontsize=8)
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=7, title="red ring: overloaded (waits > service)", title_fontsize=6)
    save(fig, out_dir, "%s_vs_%s" % (name + ("_" + stat if stat else ""), res.x_short), written)
    return data


def request_values(res, point, m):
    path = os.path.join(res.dir, point, "requests.csv")
    if not os.path.exists(path):
        raise PlotInputError("%s: not found (needed for --cdf)" % path)
    with open(path) as f:
        values = [m.per_request(r) for r in csv.DictReader(f)]
    return sorted(v for v in values if v is not None and not math.isnan(v))


def plot_cdf(res, name, at, out_dir, written):
    """Per-request CDFs of the metric at each chosen x: a panel per facet, a line per series."""
    check_cdf(name)
    m = METRICS[name]
    chosen = cdf_at_values(res, at)
    data = {"metric": name, "unit": m.unit, "x": res.x_key, "figures": []}
    for x in chosen:
        fig, panels = res.facet_grid(4.2)
        figure = {"at": number(x), "panels": []}
        for ax, facet in zip(panels, res.facets):
            panel = {"facet": facet, "series": []}
            for s in res.series:
                row = res.row(facet, s, x)
                if row is None:
                    continue
                values = request_values(res, row["point"], m)
                line, = ax.plot(values, [(k + 1) / len(values) for k in range(len(values))], "-",
                                drawstyle="steps-post", color=res.colour(s), label=s)
                panel["series"].append({"name": s, "colour": line.get_color(), "point": row["point"],
                                        "values": values})
            figure["panels"].append(panel)
            if m.log and any(v > 0 for line in ax.get_lines() for v in line.get_xdata()):
                log_axis(ax.xaxis)
            ax.set_xlabel("%s (%s)" % (name, m.unit))
            ax.set_ylabel("fraction of requests")
            ax.set_ylim(0, 1.02)
            ax.set_title("%s: %s\n%s%s = %s" % (name, m.label, ("%s, " % facet) if facet else "", res.x_label, x),
                         fontsize=8)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=7)
        data["figures"].append(figure)
        save(fig, out_dir, "%s_cdf_%s_%s" % (name, res.x_short, x), written)
    return data


def write_data(path, data):
    """The plotted series as JSON, written to a temporary name and renamed."""
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)
