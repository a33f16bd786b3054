#!/usr/bin/env python3
"""Draws a regime map (plot kind "regime-map", experiments/plot_regimes.hpp) from a lynxsim results directory:
    plot_regimes.py RESULTS REQUEST.json
REQUEST.json (written by lynxsim, checked there) names the sweep's axes, x, y, the series axis and the facets. For
each contender value of the series (a Lynx format, with the other paths of its axis, e.g. the acceptance source; or
the adaptive format policy, transfer.format_policy "adaptive") and each baseline (every other fixed format; for the
adaptive policy also each Lynx value of the same acceptance source), the gain baseline median / contender median of
the same metric (ttft_spec, ttft_correct, ttft, e2el, tpot: one column each) is drawn as a heatmap over x and y,
with contour lines at 1.1x and at the paper's 1.43x. One figure per facet value, baseline and contender; one row per
combination of the other axes. Also writes
regimes.json (every gain) and prints, per figure, the share of cells at or above 1.1x and 1.43x. PNG and SVG,
byte-identical for the same inputs (plot_style.py). Uses only the standard library, numpy and matplotlib."""
import csv
import itertools
import json
import math
import multiprocessing
import os
import sys

import numpy as np

from plot_style import PlotOutputError, output_path, plt, save

METRICS = [("ttft_spec", "first token (speculative)"), ("ttft_correct", "first correct token"),
           ("ttft", "first verified token"), ("e2el", "end-to-end latency"), ("tpot", "time per output token")]
CONTOURS = [(1.1, "1.1x", "-"), (1.43, "1.43x (paper)", "--")]


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
          "workload.time_scale": "time_scale (load 1/x)", "cluster.network.site_links.0.latency_ms": "site link ms",
          "cluster.network.site_links.0.cross_traffic.fraction": "cross traffic", "lynx.acceptance_published":
          "acceptance"}


def short(path):
    return LABELS.get(path, path.rsplit(".", 1)[-1])


def label(value):
    if isinstance(value, float):
        return ("%d" % value) if value == int(value) else ("%g" % value)
    return value if value != "" else "default (stand-in)"


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

    # What a series value is called in titles and file names: the adaptive policy by "adaptive" and its
    # acceptance source (its candidates are in the title), a fixed format by its paths' values.
    def name_parts(v):
        if not adaptive(v):
            return [label(s) for p, s in zip(series_paths, v) if not p.startswith("transfer.")]
        return ["adaptive"] + [label(acceptance(v))] if "lynx.acceptance_published" in series_paths else ["adaptive"]

    def title_of(v):
        if not adaptive(v):
            return ", ".join("%s %s" % (short(p), label(s)) for p, s in zip(series_paths, v)
                             if not p.startswith("transfer."))
        text = "adaptive (%s)" % " or ".join(candidates_of(v))
        return text + (", acceptance %s" % label(acceptance(v)) if "lynx.acceptance_published" in series_paths else "")

    def gain(facet, row_value, base, lynx, metric, xv, yv):
        b = table.get((facet, row_value, base, xv, yv))
        l = table.get((facet, row_value, lynx, xv, yv))
        column = "median_%s_ms" % metric
        if b is None or l is None or b.get(column, "") == "" or l.get(column, "") == "":
            return math.nan
        lv = float(l[column])
        return float(b[column]) / lv if lv > 0 else math.nan

    def draw(job):
        facet, (base, lynx) = job
        written, data = [], []
        fig, grid = plt.subplots(len(row_values), len(METRICS), squeeze=False,
                                 figsize=(3.2 * len(METRICS), 2.6 * len(row_values)))
        counts = {m: [0, 0, 0] for m, _ in METRICS}  # cells, >= 1.1, >= 1.43
        for ri, row_value in enumerate(row_values):
            for ci, (metric, title) in enumerate(METRICS):
                g = np.array([[gain(facet, row_value, base, lynx, metric, xv, yv) for xv in xs] for yv in ys])
                ax = grid[ri][ci]
                mesh = ax.pcolormesh(np.arange(len(xs) + 1), np.arange(len(ys) + 1), np.log2(g), cmap="RdBu",
                                     vmin=-1, vmax=1, shading="flat")
                for (yi, xi), v in np.ndenumerate(g):
                    if not math.isnan(v):
                        ax.text(xi + 0.5, yi + 0.5, "%.2f" % v, ha="center", va="center", fontsize=6)
                        counts[metric][0] += 1
                        counts[metric][1] += v >= 1.1
                        counts[metric][2] += v >= 1.43
                if np.isfinite(g).sum() >= 4 and len(xs) > 1 and len(ys) > 1:
                    cx, cy = np.meshgrid(np.arange(len(xs)) + 0.5, np.arange(len(ys)) + 0.5)
                    for level, _, style in CONTOURS:
                        if np.nanmin(g) < level < np.nanmax(g):
                            ax.contour(cx, cy, np.nan_to_num(g, nan=1.0), levels=[level], colors="k",
                                       linestyles=style, linewidths=1)
                ax.set_xticks(np.arange(len(xs)) + 0.5, [label(v) for v in xs], fontsize=7)
                ax.set_yticks(np.arange(len(ys)) + 0.5, [label(v) for v in ys], fontsize=7)
                if ri == 0:
                    ax.set_title(title, fontsize=9)
                if ri == len(row_values) - 1:
                    ax.set_xlabel(short(x), fontsize=8)
                if ci == 0:
                    ax.set_ylabel("%s\n%s" % (", ".join("%s %s" % (short(p), label(v))
                                                         for p, v in zip(row_paths, row_value)), short(y)), fontsize=7)
                for xi, xv in enumerate(xs):
                    for yi, yv in enumerate(ys):
                        data.append({"facet": list(facet), "row": list(row_value), "baseline": list(base),
                                     "lynx": list(lynx), "metric": metric, "x": xv, "y": yv,
                                     "gain": None if math.isnan(g[yi][xi]) else g[yi][xi]})
        names = lambda v, paths: ", ".join("%s %s" % (short(p), label(s)) for p, s in zip(paths, v))
        fig.suptitle("gain of %s over %s (baseline median / contender median; contours at %s)%s" % (
            title_of(lynx), label(base[0]) if not str(base[0]).startswith("lynx") else title_of(base),
            " and ".join(c[1] for c in CONTOURS),
            ("\n" + names(facet, facets)) if facets else ""), fontsize=10)
        fig.colorbar(mesh, ax=grid, shrink=0.6, label="log2 gain (blue: contender faster)")
        parts = [label(v) for v in facet] + (name_parts(base) if str(base[0]).startswith("lynx") else [label(base[0])])
        stem = "regimes_" + "_".join(str(v).split(" ")[0].replace("/", "-") for v in parts + name_parts(lynx))
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
