#!/usr/bin/env python3
"""Plots a lynxsim results directory (what `lynxsim run` wrote) as `lynxsim plot` asks:
    plot_results.py RESULTS REQUEST.json
REQUEST.json is the plot request lynxsim wrote (experiments/plot_request.hpp): the experiment's plot section and the
command's options, checked against the sweep, the metric table and the per-request values of each CDF. Without a
metric: the experiment's standard plots, as its plot section asks: TTFT against the swept x axis (p50 and p99, a line
per series, Lynx's three first-token times), speculation rates, TTFT relative to a baseline series, per-request TTFT
CDFs at one x value, ratio tables (printed and plotted) and the anchor-width frontier. With a metric: its statistic
against x, or its per-request CDF at chosen x values (plot_metrics.py). PNG and SVG, written whole and
byte-identical for the same inputs (plot_style.py); what each panel shows (legend entries, axis scales, lines
covering others: plot_panel.py) is also written with --data. A results folder that cannot be drawn: one line on stderr, exit
status 2. Uses only the standard library and matplotlib (Debian's python3-matplotlib)."""
import json
import re
import sys

from plot_data import PlotInputError, Results
from plot_metrics import plot_cdf, plot_metric, write_data
from plot_panel import MARKERS, Panel
from plot_style import OTHER_COLOURS, PlotOutputError, plt

# Lynx's three first-token times: distinct line styles and markers, so a series on top of another stays visible.
FIRST_TOKEN_KINDS = [("ttft", "first verified token", "-", "o", 6),
                     ("ttft_correct", "first correct token", "--", "s", 8),
                     ("ttft_spec", "first (speculative) token", ":", "^", 10)]
# The other series' markers, one per series in the sweep's order: none of Lynx's three.
SERIES_MARKERS = ["D", "v", "P", "X", "<", ">", "*", "h"]


def is_lynx(s):
    return s.startswith("lynx")


def series_kind(k):
    """A series without speculation: its first-token time, with a marker of its own (not one of Lynx's three), so
    lines that meet stay apart by shape as well as colour."""
    return [("ttft", "first verified token", "-", SERIES_MARKERS[k % len(SERIES_MARKERS)], 6)]


def ratio_name(res, ns, nm, ds, dm):
    """A ratio's legend entry; one between two first-token definitions says which, in words."""
    name = "%s %s / %s %s" % (ns, nm, ds, dm)
    if nm == dm:
        return name
    return "%s\n(different definitions: %s's %s over %s's %s)" % (
        name, ns, res.metrics[nm]["label"], ds, res.metrics[dm]["label"])


def plot_ttft(res, out_dir, written):
    """TTFT p50 / p99 against x; Lynx series with their three first-token times."""
    fig, panels = res.facet_grid(4.8)
    shown = []
    for panel, facet in zip(panels, res.facets):
        for k, s in enumerate(res.series):
            color = res.colour(s)
            kinds = FIRST_TOKEN_KINDS if is_lynx(s) else series_kind(k)
            for metric_name, what, style, marker, size in kinds:
                suffix = (" " + what) if is_lynx(s) else ""
                p50 = [res.metric(facet, s, x, res.column(metric_name, "p50")) for x in res.xs]
                panel.line(res.px, p50, "%s%s p50" % (s, suffix), marker=marker, markersize=size, linestyle=style,
                           markerfacecolor="none", color=color)
                panel.line(res.px, [res.metric(facet, s, x, res.column(metric_name, "p99")) for x in res.xs],
                           "%s%s p99" % (s, suffix), marker=marker, markersize=size * 0.7, linestyle=style,
                           color=color, alpha=0.35)
                if metric_name == "ttft":
                    res.mark_overloaded(panel, facet, s, p50)
        for slo in res.slos([k[0] for k in FIRST_TOKEN_KINDS]):
            panel.slo_line(slo)
        res.x_axis(panel)
        panel.y_axis()
        shown.append(res.finish_panel(panel, facet, "TTFT (ms)"))
    res.save(fig, out_dir, "ttft_vs_%s" % res.x_short, written, shown)


def plot_speculation(res, out_dir, written):
    """Rollback rate and the share of first drafts kept, for the speculative series."""
    speculative = [s for s in res.series if is_lynx(s)]
    if not speculative:
        return
    fig, panels = res.facet_grid(3.6)
    shown = []
    for panel, facet in zip(panels, res.facets):
        for s in speculative:
            color = res.colour(s)
            panel.line(res.px, [res.metric(facet, s, x, "rollback_rate") for x in res.xs],
                       "%s rollback rate (drafts discarded)" % s, marker="x", linestyle="-", color=color)
            panel.line(res.px, [res.metric(facet, s, x, "first_draft_kept_rate") for x in res.xs],
                       "%s first draft kept" % s, marker="s", linestyle="--", markerfacecolor="none", color=color)
        res.x_axis(panel)
        panel.ax.set_ylim(-0.02, 1.02)
        shown.append(res.finish_panel(panel, facet, "share"))
    res.save(fig, out_dir, "speculation", written, shown)


def plot_relative(res, out_dir, written):
    """TTFT relative to the baseline series (with several series paths: the baseline of the same other values),
    each first-token definition against the baseline's."""
    baseline = res.baseline
    if not res.with_value(baseline):
        return
    fig, panels = res.facet_grid(4.2)
    shown = []
    for panel, facet in zip(panels, res.facets):
        for k, s in enumerate(res.series):
            base = res.partner(s, baseline)
            if base is None:
                continue
            # The same definition on both sides: the baseline has no speculation, so its three times are equal.
            for metric_name, what, style, marker, size in (FIRST_TOKEN_KINDS if is_lynx(s) else series_kind(k)):
                column = res.column(metric_name, "p50")
                panel.line(res.px, [res.metric(facet, s, x, column) / res.metric(facet, base, x, column)
                                    for x in res.xs], "%s: p50 %s / %s's" % (s, what, base), marker=marker,
                           markersize=size, linestyle=style, markerfacecolor="none", color=res.colour(s))
        res.x_axis(panel)
        panel.y_axis()  # overloaded baselines can put the others orders of magnitude below 1
        panel.ax.axhline(1.0, color="grey", lw=0.8)
        shown.append(res.finish_panel(panel, facet, "median first-token time / %s's" % baseline))
    res.save(fig, out_dir, "ttft_relative_to_%s" % baseline, written, shown)


def plot_ttft_cdf(res, out_dir, written):
    """Per-request TTFT CDFs (Lynx: its three first-token times) at the plot section's cdf_at."""
    at = res.request["ttft_cdf_at"]
    if at is None:
        return
    fig, panels = res.facet_grid(4.2)
    shown = []
    for panel, facet in zip(panels, res.facets):
        every = []
        for s in res.series:
            row = res.row(facet, s, at)
            if row is None:
                continue
            for metric_name, style, suffix in [("ttft", "-", "")] + ([("ttft_correct", "--", " first correct"),
                                                                      ("ttft_spec", ":", " first speculative")]
                                                                     if is_lynx(s) else []):
                values = res.request_values(row["point"], metric_name)
                every += values
                panel.line(values, [(k + 1) / len(values) for k in range(len(values))], s + suffix,
                           markersize=0, linestyle=style, color=res.colour(s))
        for slo in res.slos([k[0] for k in FIRST_TOKEN_KINDS]):
            panel.slo_line(slo, vertical=True)
        panel.x_log(every)
        panel.ax.set_xlabel("TTFT (ms)")
        panel.ax.set_ylim(0, 1.02)
        shown.append(res.finish_panel(panel, facet, "fraction of requests", title="TTFT CDF at %s = %s\n%s" % (
            res.x_short, at, res.title(facet))))
    res.save(fig, out_dir, "ttft_cdf_at_%s" % at, written, shown)


def plot_ratios(res, out_dir, written):
    """Ratio tables: printed, and plotted against x. With several series paths, one ratio per combination of the
    other paths' values, between the two series of that combination."""
    ratios = res.request["ratios"]
    if not ratios:
        return
    fig, panels = res.facet_grid(4.2)
    shown = []
    for panel, facet in zip(panels, res.facets):
        k = 0
        for ratio in ratios:
            (ns, nm), (ds, dm) = ratio["numerator"], ratio["denominator"]
            for numerator in res.with_value(ns):
                denominator = res.partner(numerator, ds)
                if denominator is None:
                    continue
                name = ratio_name(res, numerator, nm, denominator, dm)
                values = [res.metric(facet, numerator, x, res.column(nm, "p50")) /
                          res.metric(facet, denominator, x, res.column(dm, "p50")) for x in res.xs]
                print("%s%s" % (("[%s] " % facet) if facet else "", name.replace("\n", " ")))
                for x, v in zip(res.xs, values):
                    print("  %s = %-8s  %.3f" % (res.x_short, x, v))
                panel.line(res.px, values, name, marker=MARKERS[k % len(MARKERS)], linestyle="-",
                           color=OTHER_COLOURS[k % len(OTHER_COLOURS)])
                k += 1
        res.x_axis(panel)
        panel.y_axis(extra=(1.0,))  # ratios spanning decades
        panel.ax.axhline(1.0, color="grey", lw=0.8)
        shown.append(res.finish_panel(panel, facet, "ratio of median first-token times"))
    res.save(fig, out_dir, "ratios", written, shown)


def plot_frontier(res, out_dir, written):
    """Each metric's median against the Lynx anchor's bits, a line per x value and split; printed: the format with
    the lowest median at each x."""
    frontier = res.request["frontier"]
    if not frontier:
        return
    pattern = re.compile(r"^lynx-a(\d+)r(\d+)-g(\d+)(-rq)?$")
    lynx = [s for s in res.series if pattern.match(s)]
    if not lynx:
        raise PlotInputError("experiment plot: frontier needs lynx-a<A>r<R>-g<G> series")
    fig, axes = plt.subplots(1, len(frontier), figsize=(6.4 * len(frontier), 4.4), squeeze=False)
    shown = []
    for ax, name in zip(axes[0], frontier):
        panel = Panel(ax)
        for i, x in enumerate(res.xs):
            for split, style in (("", "-"), ("-rq", "--")):
                chosen = sorted((int(pattern.match(s).group(1)), s) for s in lynx
                                if (pattern.match(s).group(4) or "") == split)
                if not chosen:
                    continue
                panel.line([a for a, _ in chosen], [res.metric(None, s, x, res.column(name, "p50")) for _, s in chosen],
                           "%s %s, %s split" % (x, res.x_label, "residual-quant" if split else "bit-slice"),
                           marker="o", linestyle=style, markerfacecolor="none" if split else None,
                           color=OTHER_COLOURS[i % len(OTHER_COLOURS)])
        for slo in res.slos([name]):
            panel.slo_line(slo)
        ax.set_xlabel("anchor bits (of 8)")
        panel.y_axis()
        shown.append(res.finish_panel(panel, None, "median %s (ms)" % name))
    res.save(fig, out_dir, "anchor_width_frontier", written, shown)
    others = [s for s in res.series if s not in lynx]
    for name in frontier:
        print("lowest median %s per %s among the Lynx splits (others for reference):" % (name, res.x_short))
        for x in res.xs:
            median = res.column(name, "p50")
            best = min(lynx, key=lambda s: res.metric(None, s, x, median))
            reference = "".join("  %s %.1f" % (o, res.metric(None, o, x, median)) for o in others)
            print("  %s = %-6s %-18s %.1f ms%s" % (res.x_short, x, best, res.metric(None, best, x, median), reference))


def main(request_path):
    with open(request_path) as f:
        request = json.load(f)
    res = Results(request)
    out_dir = request["out"]
    written = []
    metric = request["metric"]
    data = {}
    if metric is None:
        for plot in (plot_ttft, plot_speculation, plot_relative, plot_ttft_cdf, plot_ratios, plot_frontier):
            plot(res, out_dir, written)
    else:
        data = (plot_cdf(res, metric["name"], metric["at"], out_dir, written) if metric["cdf"] else
                plot_metric(res, metric["name"], metric["stat"], metric["column"], out_dir, written))
    if request["data"]:
        data["drawn"] = res.drawn  # each figure's title, axis labels and scales, legend entries
        write_data(request["data"], data)
        written.append(request["data"])
    for path in written:
        print("wrote %s" % path)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.stderr.write("usage: plot_results.py RESULTS REQUEST.json (written by `lynxsim plot`)\n")
        sys.exit(2)
    try:
        main(sys.argv[2])
    except (PlotInputError, PlotOutputError) as e:
        sys.stderr.write("lynxsim: error: %s\n" % e)
        sys.exit(2)
    except (KeyError, ValueError, IndexError, TypeError, OSError) as e:
        # A results folder whose files were edited or cut: one line naming it, never a traceback.
        sys.stderr.write("lynxsim: error: %s: not a complete results directory of `lynxsim run` (%s: %s)\n" % (
            sys.argv[1], type(e).__name__, e))
        sys.exit(2)
