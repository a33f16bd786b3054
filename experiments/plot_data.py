"""A lynxsim results directory as the plotting scripts read it: the points' metrics (summary.csv), the panel layout
(a panel per facet), the figure helpers and the record of what each figure shows (`drawn`, written by --data), for
the plot request lynxsim hands over (experiments/plot_request.hpp:
the experiment's plot section and the options, already checked against the sweep, with the metric table and the
per-request values of each CDF, the axis labels from the schema and the SLO lines). Nothing of the request is checked again here; a results file that is missing or
incomplete raises PlotInputError with one line naming it, which the caller prints before exiting 2."""
import csv
import json
import math
import os

import matplotlib.pyplot as plt

from plot_panel import Panel, lay_out, spans_decade
from plot_style import OTHER_COLOURS, log_axis, save, series_colour

class PlotInputError(Exception):
    """A results folder the request cannot be drawn from: one line, exit 2."""


def number(text):
    try:
        return float(text)
    except ValueError:
        return text


class Results:
    """One results directory: rows of summary.csv indexed by (facet, series, x), and the figure helpers."""

    def __init__(self, request):
        self.request = request
        self.dir = request["results"]
        summary_path = os.path.join(self.dir, "summary.csv")
        if not os.path.exists(summary_path):
            raise PlotInputError("%s: not found" % summary_path)
        with open(summary_path) as f:
            self.rows = list(csv.DictReader(f))
        if not self.rows:
            raise PlotInputError("%s: no finished points" % summary_path)
        self.metrics = request["metrics"]
        self.x_key = request["x"]
        self.series_key = request["series"]
        # Paths that tell apart series sharing the series key's text (experiments/plot_request.cpp,
        # series_extra_paths): their values are part of the series' name.
        self.series_extra = request.get("series_extra_paths", [])
        # The plot section's other series paths (series given as an array): a baseline or a ratio side names a
        # value of the first path and is matched with the line of the same values of these (partner()).
        self.series_more = request.get("series_more", [])
        self.facet_keys = request["facets"]
        self.baseline = request["baseline"]
        self.facets = list(dict.fromkeys(self.facet_of(r) for r in self.rows))
        self.series_key_of = {}  # series name -> (first path's value, the other series paths' values)
        for r in self.rows:
            r["_series"] = self.series_of(r)
            self.series_key_of[r["_series"]] = (r[self.series_key], tuple(r[p] for p in self.series_more))
        self.series = list(dict.fromkeys(r["_series"] for r in self.rows))
        self.xs = self.ordered(r[self.x_key] for r in self.rows)
        self.index = {}
        for r in self.rows:
            key = (self.facet_of(r), r["_series"], r[self.x_key])
            if key in self.index:  # two points would be drawn as one: never silently
                raise PlotInputError("%s: points %s and %s are both series %s at %s = %s%s: they differ in an axis "
                                     "that is neither x, series nor facet" % (
                                         summary_path, self.index[key]["point"], r["point"], key[1], self.x_key,
                                         key[2], "" if key[0] is None else " (%s)" % key[0]))
            self.index[key] = r
        self.x_label = request["labels"].get(self.x_key, self.x_key)
        self.drawn = []  # {"file": stem, "panels": [Panel.describe()]} per figure written
        self.x_short = self.x_key.split(".")[-1]
        self.numeric_x = all(isinstance(number(x), float) for x in self.xs)
        self.px = [float(x) if self.numeric_x else x for x in self.xs]  # plotted x positions
        # What ran, per facet (a facet may change the model or the pools): from its first point's summary.json.
        self.cluster = {f: self.facet_cluster_text(f) for f in self.facets}

    def column(self, metric, stat):
        """The summary.csv column of a metric's statistic (the metric table of the request)."""
        return self.metrics[metric]["columns"][stat]

    def request_values(self, point, metric):
        """A point's per-request values of a metric (ms, ascending), as lynxsim read them from its requests.csv."""
        values = self.request["request_values"].get(point, {}).get(metric)
        if values is None:
            raise PlotInputError("%s: summary.csv lists a point with no finished run (no %s values)" % (
                os.path.join(self.dir, point), metric))
        return values

    @staticmethod
    def ordered(values):
        values = list(dict.fromkeys(values))
        try:
            return sorted(values, key=float)
        except ValueError:
            return values

    def series_of(self, r):
        """A row's series: the series key's value, and the values of the paths that tell it apart from another
        series with the same value (only those set for this row)."""
        extra = ["%s=%s" % (p.split(".")[-1], r[p]) for p in self.series_extra if r.get(p, "") != ""]
        return r[self.series_key] + (" (%s)" % ", ".join(extra) if extra else "")

    def partner(self, s, value):
        """The series whose first path has `value` and whose other series paths (series_more) have the values of
        series `s`: the baseline of `s`; None where the sweep has none."""
        want = (value, self.series_key_of[s][1])
        return next((t for t in self.series if self.series_key_of[t] == want), None)

    def with_value(self, value):
        """The series whose first path has `value`, one per combination of the other series paths."""
        return [t for t in self.series if self.series_key_of[t][0] == value]

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
        if s in self.request["series_values"] or not self.series_extra:
            return series_colour(s, self.request["series_values"])
        # A series named apart from a format it shares (the adaptive policy beside fixed int8): a colour no drawn
        # series has, so the two lines are not told apart by the marker alone.
        taken = {series_colour(x, self.request["series_values"]) for x in self.series
                 if x in self.request["series_values"]}
        free = [c for c in OTHER_COLOURS if c not in taken] or OTHER_COLOURS
        apart = [x for x in self.series if x not in self.request["series_values"]]
        return free[apart.index(s) % len(free)]

    def facet_cluster_text(self, facet):
        """What ran in a facet: its first point's cluster text, or, where series ran on different pools (co-located
        beside disaggregated), each series' pools on a line of its own."""
        texts = []
        for s in self.series:
            row = next((r for r in self.rows if self.facet_of(r) == facet and r["_series"] == s), None)
            if row is not None:
                t = self.cluster_text(row)
                if t not in texts:
                    texts.append(t)
        if len(texts) <= 1:
            return texts[0] if texts else ""
        firsts = [t.split("\n")[0] for t in texts]
        pools = [f.split(": ", 1)[1] if ": " in f else f for f in firsts]
        return firsts[0].split(": ", 1)[0] + ": " + "\nor ".join(pools) + "\n" + texts[0].split("\n", 1)[-1]

    def cluster_text(self, row):
        """What ran: model, network topology, pools and workload, from the point's summary.json (two lines, to fit a
        panel)."""
        try:
            with open(os.path.join(self.dir, row["point"], "summary.json")) as f:
                summary = json.load(f)
        except (OSError, ValueError, KeyError):
            return ""
        c = summary.get("config", {})
        p, d = c.get("prefill", {}), c.get("decode", {})
        topology = c.get("network", {}).get("topology", "?")
        workload = str(summary.get("sources", {}).get("workload", ""))
        workload = "a synthetic workload" if workload.startswith("synthetic") else os.path.basename(workload)
        if c.get("serving") == "colocated":
            pools = "co-located %s x %s GPU (%s)" % (c.get("colocated_instances", "?"), d.get("tp", "?"), d.get("gpu", "?"))
        else:
            pools = "prefill %s x %s GPU (%s), decode %s x %s GPU (%s)" % (
                p.get("instances", "?"), p.get("tp", "?"), p.get("gpu", "?"), d.get("instances", "?"), d.get("tp", "?"),
                d.get("gpu", "?"))
        return "%s on a %s network: %s\n%s, %s requests" % (
            c.get("model", "?"), topology, pools, workload, summary.get("metrics", {}).get("completed", "?"))

    def facet_grid(self, height):
        """One panel (plot_panel.Panel) per facet, at most three a row."""
        cols = min(3, len(self.facets))
        rows_n = (len(self.facets) + cols - 1) // cols
        fig, grid = plt.subplots(rows_n, cols, figsize=(6.4 * cols, height * rows_n), squeeze=False)
        panels = [ax for row in grid for ax in row]
        for ax in panels[len(self.facets):]:
            ax.set_visible(False)
        return fig, [Panel(ax) for ax in panels[:len(self.facets)]]

    def title(self, facet):
        head = str(facet) if facet else self.request["experiment"]
        cluster = self.cluster.get(facet, "")
        return "%s\n%s" % (head, cluster) if cluster else head

    def finish_panel(self, panel, facet, ylabel, title=None):
        """A facet's panel: its y label, the facet's title (what ran), a light grid and the legend; returns what
        the panel shows (Panel.describe)."""
        panel.ax.set_ylabel(ylabel)
        panel.ax.set_title(title if title is not None else self.title(facet), fontsize=8)
        panel.ax.grid(True, which="major", alpha=0.3)
        return panel.describe(panel.legend())

    def save(self, fig, out_dir, stem, written, descriptions):
        """Spaces the panels so that no legend or label covers another panel (plot_panel.lay_out), records what the
        figure shows (with any overlap left) and writes it."""
        overlaps = lay_out(fig)
        self.drawn.append({"file": stem, "panels": descriptions, "overlaps": overlaps})
        save(fig, out_dir, stem, written)

    def slos(self, metrics):
        """The --slo lines of any of `metrics`."""
        return [slo for slo in self.request["slo"] if slo["metric"] in metrics]

    def x_axis(self, panel):
        """The swept x, with a tick at every value written as a number when numeric: log scale where the values
        span a decade, linear otherwise; and its label."""
        ax = panel.ax
        if self.numeric_x and spans_decade(self.px):
            log_axis(ax.xaxis, self.px)
            panel.x_scale = "log"
        elif self.numeric_x:
            ax.set_xticks(self.px)
        ax.set_xlabel(self.x_label)

    def mark_overloaded(self, panel, facet, s, values):
        """Overloaded points (requests wait longer than they are served) get a large open ring."""
        panel.mark_overloaded([(xv, v) for x, xv, v in zip(self.xs, self.px, values)
                               if self.overloaded(facet, s, x) and not math.isnan(v)])
