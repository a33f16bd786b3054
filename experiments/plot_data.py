"""A lynxsim results directory as the plotting scripts read it: the experiment (experiment.json, its plot section
checked), the points' metrics (summary.csv), the sweep axes they vary and the panel layout (a panel per facet).
Bad input raises PlotInputError with one line naming the file and JSON path; the caller prints it and exits 2."""
import csv
import json
import math
import os

import matplotlib.pyplot as plt

from plot_style import log_axis, series_colour

AXIS_LABELS = {
    "cluster.network.nic_gbps": "NIC bandwidth (Gbps)",
    "cluster.network.latency_us": "one-way latency (µs)",
    "workload.synthetic.rate_per_s": "arrival rate (requests/s)",
    "workload.target_rate_per_s": "arrival rate (requests/s)",
}
# The plot section of an experiment: key -> what it holds (the message of an unknown key lists them).
PLOT_KEYS = {
    "x": "the swept path on the x axis (default cluster.network.nic_gbps)",
    "series": "the swept path drawn as one line per value (default format)",
    "facet": "a swept path or list of them, one panel per value",
    "baseline": "the series the relative plot divides by (default bf16)",
    "cdf_at": "an x value: per-request TTFT CDFs there",
    "ratios": "[{numerator: [series, metric], denominator: [series, metric]}, ...]: printed and plotted",
    "frontier": "metric names: their medians against the Lynx anchor bits",
}


class PlotInputError(Exception):
    """Bad input (an option, a plot section, a results folder): one line, exit 2."""


def number(text):
    try:
        return float(text)
    except ValueError:
        return text


def csv_text(value):
    """An axis value as summary.csv writes it (experiments/results.cpp)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, float):
        return "%.10g" % value
    if isinstance(value, int):
        return str(value)
    return json.dumps(value, separators=(",", ":"))


def check_plot_section(spec, origin):
    """Rejects a plot section with unknown keys or wrongly typed values, naming origin and the JSON path."""
    where = "%s: $.experiment.plot" % origin
    if not isinstance(spec, dict):
        raise PlotInputError("%s: expected an object" % where)
    for key, value in spec.items():
        if key not in PLOT_KEYS:
            raise PlotInputError("%s.%s: unknown plot option (valid: %s)" % (where, key, ", ".join(PLOT_KEYS)))
        ok = {"x": isinstance(value, str), "series": isinstance(value, str), "baseline": isinstance(value, str),
              "facet": isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value)),
              "cdf_at": isinstance(value, (int, float)) and not isinstance(value, bool),
              "ratios": isinstance(value, list),
              "frontier": isinstance(value, list) and all(isinstance(v, str) for v in value)}[key]
        if not ok:
            raise PlotInputError("%s.%s: expected %s" % (where, key, PLOT_KEYS[key]))


class Results:
    """One results directory: rows of summary.csv indexed by (facet, series, x), and the figure helpers."""

    def __init__(self, results_dir):
        self.dir = results_dir
        path = os.path.join(results_dir, "experiment.json")
        if not os.path.exists(path):
            raise PlotInputError("%s: not found (is %s a results directory of `lynxsim run`?)" % (path, results_dir))
        with open(path) as f:
            self.experiment = json.load(f)["experiment"]
        summary_path = os.path.join(results_dir, "summary.csv")
        if not os.path.exists(summary_path):
            raise PlotInputError("%s: not found" % summary_path)
        with open(summary_path) as f:
            self.rows = list(csv.DictReader(f))
        if not self.rows:
            raise PlotInputError("%s: no finished points" % summary_path)
        self.spec = self.experiment.get("plot", {})
        check_plot_section(self.spec, path)
        sweep_axes = self.experiment.get("sweep", {}).get("axes", [])
        axes, self.axis_values, linked = [], {}, {}
        for a in sweep_axes:
            paths = a["paths"] if "paths" in a else [a["path"]]
            axes += paths
            for k, p in enumerate(paths):
                self.axis_values[p] = [csv_text(v[k] if "paths" in a else v) for v in a["values"]]
                linked[p] = paths
        self.x_key = self.spec.get("x", "cluster.network.nic_gbps")
        self.series_key = self.spec.get("series", "format")
        facet = self.spec.get("facet")
        self.facet_keys = facet if isinstance(facet, list) else ([facet] if facet else [])
        self.baseline = self.spec.get("baseline", "bf16")
        for key in [self.x_key, self.series_key] + self.facet_keys:
            if key not in axes:
                raise PlotInputError("%s: $.experiment.plot: \"%s\" is not a sweep axis (axes: %s)" % (
                    path, key, ", ".join(axes)))
        named = set()
        for key in [self.x_key, self.series_key] + self.facet_keys:
            named.update(linked.get(key, [key]))
        for key in axes:
            if key not in named and len({r[key] for r in self.rows}) > 1:
                raise PlotInputError("%s: $.experiment.plot: axis \"%s\" has several values; name it as \"facet\"" % (
                    path, key))
        self.check_metric_names(path)
        self.facets = list(dict.fromkeys(self.facet_of(r) for r in self.rows))
        self.series = list(dict.fromkeys(r[self.series_key] for r in self.rows))
        self.xs = self.ordered(r[self.x_key] for r in self.rows)
        self.index = {(self.facet_of(r), r[self.series_key], r[self.x_key]): r for r in self.rows}
        self.x_label = AXIS_LABELS.get(self.x_key, self.x_key)
        self.x_short = self.x_key.split(".")[-1]
        self.numeric_x = all(isinstance(number(x), float) for x in self.xs)
        self.px = [float(x) if self.numeric_x else x for x in self.xs]  # plotted x positions
        # What ran, per facet (a facet may change the model or the pools): from its first point's summary.json.
        self.cluster = {f: self.cluster_text(next(r for r in self.rows if self.facet_of(r) == f)) for f in self.facets}

    def check_metric_names(self, path):
        """The metrics named by ratios and frontier have medians in summary.csv."""
        named = []
        for i, ratio in enumerate(self.spec.get("ratios", [])):
            for side in ("numerator", "denominator"):
                where = "ratios[%d].%s" % (i, side)
                pair = ratio.get(side) if isinstance(ratio, dict) else None
                if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(v, str) for v in pair)):
                    raise PlotInputError("%s: $.experiment.plot.%s: expected [series, metric]" % (path, where))
                named.append((where, pair[1]))
        named += [("frontier[%d]" % i, name) for i, name in enumerate(self.spec.get("frontier", []))]
        for where, name in named:
            if "median_%s_ms" % name not in self.rows[0]:
                valid = [c[len("median_"):-len("_ms")] for c in self.rows[0] if c.startswith("median_")]
                raise PlotInputError("%s: $.experiment.plot.%s: \"%s\" is not a metric with a median (valid: %s)" % (
                    path, where, name, ", ".join(valid)))

    @staticmethod
    def ordered(values):
        values = list(dict.fromkeys(values))
        try:
            return sorted(values, key=float)
        except ValueError:
            return values

    def facet_of(self, r):
        if not self.facet_keys:
            return None
        return ", ".join("%s = %s" % (k.split(".")[-1], r[k] if r[k] != "" else "default") for k in self.facet_keys)

    def row(self, facet, s, x):
        return self.index.get((facet, s, x))

    def metric(self, facet, s, x, column):
        """A summary.csv value, NaN where the point is missing or the value empty."""
        row = self.index.get((facet, s, x))
        if row is None or row.get(column, "") == "":
            return math.nan
        return float(row[column])

    def overloaded(self, facet, s, x):
        row = self.index.get((facet, s, x))
        return row is not None and row.get("overloaded", "").lower() in ("true", "1")

    def colour(self, s):
        return series_colour(s, self.axis_values.get(self.series_key, []))

    def cluster_text(self, row):
        """What ran: model, pools and workload, from the point's summary.json (two lines, to fit a panel)."""
        try:
            with open(os.path.join(self.dir, row["point"], "summary.json")) as f:
                summary = json.load(f)
        except (OSError, ValueError, KeyError):
            return ""
        c = summary.get("config", {})
        p, d = c.get("prefill", {}), c.get("decode", {})
        workload = str(summary.get("sources", {}).get("workload", ""))
        workload = "a synthetic workload" if workload.startswith("synthetic") else os.path.basename(workload)
        return "%s; %s x %s GPU prefill + %s x %s GPU decode (%s)\n%s, %s requests" % (
            c.get("model", "?"), p.get("instances", "?"), p.get("tp", "?"), d.get("instances", "?"), d.get("tp", "?"),
            d.get("gpu", "?"), workload, summary.get("metrics", {}).get("completed", "?"))

    def facet_grid(self, height):
        """One panel per facet, at most three a row."""
        cols = min(3, len(self.facets))
        rows_n = (len(self.facets) + cols - 1) // cols
        fig, grid = plt.subplots(rows_n, cols, figsize=(6.4 * cols, height * rows_n), squeeze=False)
        panels = [ax for row in grid for ax in row]
        for ax in panels[len(self.facets):]:
            ax.set_visible(False)
        return fig, panels[:len(self.facets)]

    def title(self, facet):
        head = str(facet) if facet else self.experiment.get("name", "")
        cluster = self.cluster.get(facet, "")
        return "%s\n%s" % (head, cluster) if cluster else head

    def finish_panel(self, ax, facet, ylabel, legend_size=7):
        """A facet's panel: its y label, the facet's title (what ran), a light grid and the legend."""
        ax.set_ylabel(ylabel)
        ax.set_title(self.title(facet), fontsize=8)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=legend_size)

    def x_axis(self, ax):
        """The swept x: log scale with a tick at every value, written as numbers, when numeric; and its label."""
        if self.numeric_x:
            log_axis(ax.xaxis, self.px)
        ax.set_xlabel(self.x_label)

    def mark_overloaded(self, ax, facet, s, values):
        """Overloaded points (requests wait longer than they are served) get a large open red ring."""
        pts = [(xv, v) for x, xv, v in zip(self.xs, self.px, values)
               if self.overloaded(facet, s, x) and not math.isnan(v)]
        if pts:
            ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=140, facecolors="none", edgecolors="red",
                       linewidths=1.2, zorder=5)
