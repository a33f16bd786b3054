#!/usr/bin/env python3
"""Draws a regime map (plot kind "regime-map", experiments/plot_regimes.hpp) from a lynxsim results directory:
    plot_regimes.py RESULTS REQUEST.json
REQUEST.json (written by lynxsim, checked there) names the sweep's axes, x, y, the series axis and the facets. For
each contender value of the series (a Lynx format, with the other paths of its axis, e.g. the acceptance source; or
the adaptive format policy, transfer.format_policy "adaptive") and each baseline (every other fixed format, and
co-located serving where the axis sets cluster.serving "colocated"; for the adaptive policy also each Lynx value of
the same acceptance source), the gain baseline median / contender median of
the same metric (ttft_spec, ttft_correct, ttft, e2el: one column each) is drawn as a heatmap over x and y. TPOT is
not drawn: a Lynx request's TPOT counts from its verified first token, when the drafts it kept are already out, so
it reads 5-9% shorter than int8's without any decode step being faster; e2el holds the decode.
How a figure reads:
- the colour is the gain on a log scale centred on 1 (blue: the contender is faster), stretched to the figure's
  largest gain or loss (at least 1.5x either way), so 2.1x and 5.2x differ; the colour bar marks 1.1x and 1.43x;
- each cell's number is white on a dark cell and black on a light one;
- the cells at or above 1.1x and at or above the paper's 1.43x are outlined along the cell edges (solid and
  dashed): x and y are the swept values one per cell, not a continuous scale, so nothing is interpolated between
  them;
- titles name the axes in the user's terms ("50% load" for time_scale 2, "10 ms apart", "50% cross traffic"), and
  the file names say load50 for the same load;
- y tick labels only on the first panel of a row, so no panel's labels overprint the one before.
One figure per facet value, baseline and contender; one row per combination of the other axes. Also writes
regimes.json: every cell's gain with its spread (each side's request count and quartiles of the metric, read from
the point's requests.csv, and the gain between the quartiles: baseline p25 / contender p75 to baseline p75 /
contender p25), the figure's colour range and the cell's text colour; and prints, per figure, the share of cells at
or above 1.1x and 1.43x. PNG and SVG, byte-identical for the same inputs (plot_style.py). Uses only the standard
library, numpy and matplotlib."""
import csv
import itertools
import json
import math
import multiprocessing
import os
import sys

import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.colors import LogNorm
from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from plot_style import PlotOutputError, output_path, plain_number, plt, save

METRICS = [("ttft_spec", "first token (speculative)"), ("ttft_correct", "first correct token"),
           ("ttft", "first verified token"), ("e2el", "end-to-end latency")]
# The thresholds outlined on the map and marked on the colour bar: (gain, legend text, line style, width).
THRESHOLDS = [(1.1, "1.1x", "-", 1.3), (1.43, "1.43x (the paper's)", (0, (3, 2)), 2.4)]
# The colour scale reaches at least this gain and its inverse, so a figure of gains within a few percent of 1 stays
# pale instead of being stretched to full colour.
MIN_COLOUR_RANGE = 1.5
COLOUR_TICKS = [0.1, 0.2, 0.3, 0.5, 0.7, 1, 1.1, 1.43, 2, 3, 5, 10, 20]
# Text on a cell whose colour is darker than this (relative luminance, 0 black to 1 white) is white.
DARK_LUMINANCE = 0.45


def fail(message):
    print("lynxsim: error: %s" % message, file=sys.stderr)
    sys.exit(2)


def number_or_text(text):
    try:
        return float(text)
    except ValueError:
        return text


# Axis names a reader knows; any other path is shown by its last component.
LABELS = {"cluster.network.nic_gbps": "per-node Gbps", "workload.synthetic.input_tokens.fixed": "prompt tokens",
          "workload.time_scale": "load", "cluster.network.site_links.0.latency_ms": "site link",
          "cluster.network.site_links.0.cross_traffic.fraction": "cross traffic", "lynx.acceptance_published":
          "acceptance", "workload.synthetic.count": "requests"}


def short(path):
    return LABELS.get(path, path.rsplit(".", 1)[-1])


def label(value):
    if isinstance(value, float):
        return ("%d" % value) if value == int(value) else ("%g" % value)
    return value if value != "" else "default (stand-in)"


def value_text(path, value):
    """A swept value as a reader says it: "50% load" for time_scale 2 (the load is 1 / time_scale of the rate at
    time_scale 1), "10 ms apart", "50% cross traffic", "acceptance quantspec"; other paths as "name value"."""
    if path == "workload.time_scale" and isinstance(value, float) and value > 0:
        return "%s%% load" % plain_number(100 / value)
    if path.endswith("latency_ms") and isinstance(value, float):
        return "%s ms apart" % label(value) if value else "same site (0 ms)"
    if path.endswith("cross_traffic.fraction") and isinstance(value, float):
        return "%s%% cross traffic" % label(100 * value) if value else "no cross traffic"
    if path == "model":
        return label(value)
    if path == "lynx.acceptance_published":
        return "acceptance %s" % (value if value != "" else "stand-in (stories260K)")
    return "%s %s" % (short(path), label(value))


def file_token(path, value):
    """A swept value in a file name: load50 for time_scale 2; else its label up to the first space."""
    if path == "workload.time_scale" and isinstance(value, float) and value > 0:
        return "load%s" % plain_number(100 / value)
    return str(label(value)).split(" ")[0].replace("/", "-")


def tick_text(path, value):
    """A tick label: prompt tokens in K (130944 is 128K), other numbers plain."""
    if path.endswith("input_tokens.fixed") and isinstance(value, float) and value >= 1024:
        return "%dK" % round(value / 1024)
    return label(value)


def quartiles(values):
    """p25 and p75 (linear interpolation between the closest ranks, numpy's default)."""
    return [float(np.percentile(values, 25)), float(np.percentile(values, 75))] if values else [None, None]


def edges(inside):
    """The cell edges between a cell inside a region and one outside it (a boolean grid [y][x], cell (i, j) spans
    x j..j+1, y i..i+1): [((x0, y0), (x1, y1))]. The grid's outer frame is the axes' own."""
    out = []
    rows, cols = inside.shape
    for i in range(rows):
        for j in range(cols):
            if j + 1 < cols and inside[i][j] != inside[i][j + 1]:
                out.append(((j + 1, i), (j + 1, i + 1)))
            if i + 1 < rows and inside[i][j] != inside[i + 1][j]:
                out.append(((j, i + 1), (j + 1, i + 1)))
    return out


def luminance(rgba):
    """Relative luminance of an sRGB colour (WCAG's formula)."""
    def linear(c):
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(c) for c in rgba[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


DRAW = None


def draw_job(job):
    return DRAW(job)


def main():
    results, request_path = sys.argv[1], sys.argv[2]
    with open(request_path) as f:
        req = json.load(f)
    out = output_path(req["out_dir"], "regimes.json")  # checked before any figure is written
    with open(os.path.join(results, "summary.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        fail("%s/summary.csv: no finished points" % results)
    axes = req["axes"]
    axis_of = {p: i for i, paths in enumerate(axes) for p in paths}
    x, y, series = req["x"], req["y"], req["series"]
    series_paths = axes[axis_of[series]]
    facets = req["facets"]
    used = {axis_of[x], axis_of[y], axis_of[series]} | {axis_of[f] for f in facets}
    # Rows of a figure: every other axis (by its first path; linked paths move with it).
    row_paths = [paths[0] for i, paths in enumerate(axes) if i not in used]

    def key(row, paths):
        return tuple(number_or_text(row[p]) for p in paths)

    table = {}
    for r in rows:
        table[(key(r, facets), key(r, row_paths), key(r, series_paths), number_or_text(r[x]),
               number_or_text(r[y]))] = r
    xs = sorted({number_or_text(r[x]) for r in rows})
    ys = sorted({number_or_text(r[y]) for r in rows})
    facet_values = sorted({key(r, facets) for r in rows})
    row_values = sorted({key(r, row_paths) for r in rows})
    series_values = sorted({key(r, series_paths) for r in rows})
    named = lambda v: dict(zip(series_paths, v))
    adaptive = lambda v: named(v).get("transfer.format_policy") == "adaptive"
    lynx_values = [s for s in series_values if str(s[0]).startswith("lynx") and not adaptive(s)]
    adaptive_values = [s for s in series_values if adaptive(s)]
    baselines = [s for s in series_values if not str(s[0]).startswith("lynx") and not adaptive(s)]
    acceptance = lambda v: named(v).get("lynx.acceptance_published", "")
    pairs = [(base, lynx) for base in baselines for lynx in lynx_values]
    candidates_of = lambda v: [v[0]] + json.loads(named(v).get("transfer.adaptive_formats") or "[]")
    # The adaptive policy against the fixed formats it chooses between (a Lynx one with its acceptance source).
    pairs += [(base, a) for a in adaptive_values for base in baselines + lynx_values
              if base[0] in candidates_of(a) and (base in baselines or acceptance(base) == acceptance(a))]

    # Each point's request count and per-metric quartiles (ms), from its requests.csv.
    spread = {}
    for r in rows:
        path = os.path.join(results, r["point"], "requests.csv")
        try:
            with open(path, newline="") as f:
                requests = list(csv.DictReader(f))
        except OSError as e:
            fail("%s: cannot be read (%s); the regime map reads each point's requests for its spread" % (
                path, e.strerror))
        spread[r["point"]] = {"requests": len(requests)}
        for metric, _ in METRICS:
            values = sorted(1000 * float(q[metric + "_s"]) for q in requests if q.get(metric + "_s", "") != "")
            spread[r["point"]][metric] = quartiles(values)

    # What a series value is called in titles and file names: the adaptive policy by "adaptive" and its
    # acceptance source (its candidates are in the title), a fixed format by its paths' values.
    serving = lambda v: named(v).get("cluster.serving", "disaggregated")
    # The paths that name a series value: not the adaptive policy's settings, not the serving mode (co-located is
    # named as a whole, below).
    naming = lambda p: not p.startswith("transfer.") and p != "cluster.serving"

    def name_parts(v):
        if serving(v) == "colocated":
            return ["colocated"]
        if not adaptive(v):
            return [label(s) for p, s in zip(series_paths, v) if naming(p)]
        return ["adaptive"] + [label(acceptance(v))] if "lynx.acceptance_published" in series_paths else ["adaptive"]

    # A baseline named by all its paths (a Lynx value, co-located serving), else by its format alone.
    named_whole = lambda v: str(v[0]).startswith("lynx") or serving(v) == "colocated"
    baseline_parts = lambda v: name_parts(v) if named_whole(v) else [label(v[0])]
    baseline_title = lambda v: title_of(v) if named_whole(v) else label(v[0])

    def title_of(v):
        if serving(v) == "colocated":
            return "co-located on the same GPUs (no KV transfer)"
        if not adaptive(v):
            named_values = [(p, s) for p, s in zip(series_paths, v) if naming(p)]
            rest = [value_text(p, s) for p, s in named_values if p != series]
            return label(v[series_paths.index(series)]) + (" (%s)" % ", ".join(rest) if rest else "")
        text = "adaptive (%s)" % " or ".join(candidates_of(v))
        return text + (", acceptance %s" % label(acceptance(v)) if "lynx.acceptance_published" in series_paths else "")

    def cell(facet, row_value, base, lynx, metric, xv, yv):
        """(gain, baseline row, contender row); the gain NaN where a side is missing."""
        b = table.get((facet, row_value, base, xv, yv))
        l = table.get((facet, row_value, lynx, xv, yv))
        column = "median_%s_ms" % metric
        if b is None or l is None or b.get(column, "") == "" or l.get(column, "") == "":
            return math.nan, b, l
        lv = float(l[column])
        return (float(b[column]) / lv if lv > 0 else math.nan), b, l

    def draw(job):
        facet, (base, lynx) = job
        written, data = [], []
        cells = [[[[cell(facet, row_value, base, lynx, metric, xv, yv) for xv in xs] for yv in ys]
                  for metric, _ in METRICS] for row_value in row_values]
        finite = [c[0] for r in cells for m in r for line in m for c in line if math.isfinite(c[0]) and c[0] > 0]
        reach = max([MIN_COLOUR_RANGE] + [max(v, 1 / v) for v in finite])
        norm = LogNorm(vmin=1 / reach, vmax=reach)
        cmap = plt.get_cmap("RdBu")
        fig, grid = plt.subplots(len(row_values), len(METRICS), squeeze=False, sharex=True, sharey=True,
                                 figsize=(3.0 * len(METRICS) + 1.4, 2.3 * len(row_values) + 1.0))
        counts = {m: [0, 0, 0] for m, _ in METRICS}  # cells, >= 1.1, >= 1.43
        for ri, row_value in enumerate(row_values):
            for ci, (metric, title) in enumerate(METRICS):
                g = np.array([[c[0] for c in line] for line in cells[ri][ci]])
                ax = grid[ri][ci]
                mesh = ax.pcolormesh(np.arange(len(xs) + 1), np.arange(len(ys) + 1),
                                     np.ma.masked_invalid(np.where(g > 0, g, math.nan)), cmap=cmap, norm=norm,
                                     shading="flat")
                for (yi, xi), v in np.ndenumerate(g):
                    text_colour = None
                    if not math.isnan(v):
                        text_colour = "white" if luminance(cmap(norm(v))) < DARK_LUMINANCE else "black"
                        ax.text(xi + 0.5, yi + 0.5, "%.2f" % v, ha="center", va="center", fontsize=7,
                                color=text_colour)
                        counts[metric][0] += 1
                        counts[metric][1] += v >= 1.1
                        counts[metric][2] += v >= 1.43
                    _, b, l = cells[ri][ci][yi][xi]
                    bs = spread.get(b["point"]) if b else None
                    ls = spread.get(l["point"]) if l else None
                    bq = bs[metric] if bs else [None, None]
                    lq = ls[metric] if ls else [None, None]
                    within = None
                    if None not in bq and None not in lq and lq[0] > 0 and lq[1] > 0:
                        within = [bq[0] / lq[1], bq[1] / lq[0]]
                    data.append({"facet": list(facet), "row": list(row_value), "baseline": list(base),
                                 "lynx": list(lynx), "metric": metric, "x": xs[xi], "y": ys[yi],
                                 "gain": None if math.isnan(v) else v,
                                 "baseline_requests": bs["requests"] if bs else None,
                                 "contender_requests": ls["requests"] if ls else None,
                                 "baseline_quartiles_ms": bq, "contender_quartiles_ms": lq,
                                 "gain_between_quartiles": within, "text_colour": text_colour,
                                 "colour_range": [1 / reach, reach]})
                for level, _, style, width in THRESHOLDS:
                    segments = edges(np.nan_to_num(g, nan=0.0) >= level)
                    if segments:
                        ax.add_collection(LineCollection(segments, colors="black", linestyles=[style],
                                                         linewidths=width, capstyle="butt", zorder=3))
                ax.set_xlim(0, len(xs))
                ax.set_ylim(0, len(ys))
                ax.set_xticks(np.arange(len(xs)) + 0.5, [tick_text(x, v) for v in xs], fontsize=7)
                ax.set_yticks(np.arange(len(ys)) + 0.5, [tick_text(y, v) for v in ys], fontsize=7)
                ax.tick_params(length=2)
                if ri == 0:
                    ax.set_title(title, fontsize=9)
                if ri == len(row_values) - 1:
                    ax.set_xlabel(short(x), fontsize=8)
                if ci == 0:
                    ax.set_ylabel("%s\n%s" % (", ".join(value_text(p, v) for p, v in zip(row_paths, row_value)),
                                              short(y)), fontsize=8)
        height = fig.get_figheight()
        fig.subplots_adjust(wspace=0.08, hspace=0.12, top=1 - 0.85 / height, bottom=0.8 / height)
        requests = sorted({d[k] for d in data for k in ("baseline_requests", "contender_requests")
                           if d[k] is not None})
        how_many = ("%d requests" % requests[0] if len(requests) == 1 else
                    "%d-%d requests" % (requests[0], requests[-1]) if requests else "no requests")
        fig.suptitle("gain of %s over %s%s\neach cell: baseline median / contender median, %s a side (blue: the "
                     "contender is faster; regimes.json has each cell's quartiles)" % (
                         title_of(lynx), baseline_title(base),
                         (": " + ", ".join(value_text(p, v) for p, v in zip(facets, facet))) if facets else "",
                         how_many), fontsize=10, y=1 - 0.08 / height, va="top")
        bar = fig.colorbar(mesh, ax=grid, shrink=0.6, fraction=0.04, pad=0.02)
        bar.set_label("gain (log scale)", fontsize=8)
        ticks = [t for t in COLOUR_TICKS if 1 / reach <= t <= reach]
        if math.log(1.1) / (2 * math.log(reach)) < 0.02:  # 1x and 1.1x would print over each other
            ticks.remove(1)
        bar.ax.yaxis.set_major_locator(FixedLocator(ticks))
        bar.ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: plain_number(v) + "x"))
        bar.ax.yaxis.set_minor_locator(NullLocator())
        bar.ax.tick_params(labelsize=7)
        for level, _, style, width in THRESHOLDS:
            bar.ax.axhline(level, color="black", linestyle=style, linewidth=width)
        fig.legend([Line2D([], [], color="black", linestyle=style, linewidth=width)
                    for _, _, style, width in THRESHOLDS],
                   ["outline: cells at or above %s" % text for _, text, _, _ in THRESHOLDS],
                   loc="lower center", ncol=len(THRESHOLDS), fontsize=8, frameon=False,
                   bbox_to_anchor=(0.5, 0.02 / height))
        parts = [file_token(p, v) for p, v in zip(facets, facet)] + baseline_parts(base)
        stem = "regimes_" + "_".join(str(v).split(" ")[0].replace("/", "-") for v in parts + name_parts(lynx))
        for d in data:
            d["file"] = stem
        save(fig, req["out_dir"], stem, written)
        summary = "; ".join("%s %d/%d >= 1.1x, %d >= 1.43x" % (m, c[1], c[0], c[2]) for m, c in counts.items())
        return "%s: %s" % (stem, summary), written, data

    # One figure per process: each is independent and written under its own name, so the files are the same
    # whatever the order; the lines are printed and regimes.json is written in the jobs' order.
    global DRAW
    DRAW = draw
    jobs = list(itertools.product(facet_values, pairs))
    processes = max(1, min(len(jobs), os.cpu_count() or 1, 8))
    if processes > 1:
        with multiprocessing.get_context("fork").Pool(processes) as pool:
            results = pool.map(draw_job, jobs, chunksize=1)
    else:
        results = [draw(job) for job in jobs]
    written, data = [], []
    for line, files, cells in results:
        print(line)
        written += files
        data += cells
    tmp = "%s.tmp.%d" % (out, os.getpid())
    with open(tmp, "w") as f:
        json.dump(data, f, indent=0, sort_keys=True)
    os.replace(tmp, out)
    for path in written + [out]:
        print("wrote %s" % path)


if __name__ == "__main__":
    try:
        main()
    except PlotOutputError as e:
        fail(str(e))
