#!/usr/bin/env python3
"""Plots a lynxsim results directory (what `lynxsim run` wrote): TTFT against the swept x axis (p50 and p99, a line per
series, both TTFT definitions for Lynx), TTFT relative to a baseline series, per-request TTFT CDFs at one x value,
and optional ratio tables (printed and plotted). PNG and SVG, deterministic (no dates in the files).
Uses only the standard library and matplotlib (Debian's python3-matplotlib)."""
import csv
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

plt.rcParams["svg.hashsalt"] = "lynxsim"
plt.rcParams["font.size"] = 10

AXIS_LABELS = {
    "cluster.network.nic_gbps": "NIC bandwidth (Gbps)",
    "cluster.network.latency_us": "one-way latency (µs)",
    "workload.synthetic.rate_per_s": "arrival rate (requests/s)",
    "workload.target_rate_per_s": "arrival rate (requests/s)",
}


def fail(message):
    sys.stderr.write("lynxsim plot: error: %s\n" % message)
    sys.exit(1)


def number(text):
    try:
        return float(text)
    except ValueError:
        return text


def load(results_dir):
    path = os.path.join(results_dir, "experiment.json")
    if not os.path.exists(path):
        fail("%s: not found (is %s a results directory of `lynxsim run`?)" % (path, results_dir))
    with open(path) as f:
        experiment = json.load(f)["experiment"]
    summary_path = os.path.join(results_dir, "summary.csv")
    if not os.path.exists(summary_path):
        fail("%s: not found" % summary_path)
    with open(summary_path) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        fail("%s: no finished points" % summary_path)
    return experiment, rows


def save(fig, results_dir, stem, written):
    for ext in ("png", "svg"):
        out = os.path.join(results_dir, "%s.%s" % (stem, ext))
        fig.savefig(out, dpi=120, bbox_inches="tight", metadata={"Date": None} if ext == "svg" else {"Software": None})
        written.append(out)
    plt.close(fig)


def main():
    if len(sys.argv) != 2:
        fail("usage: plot_results.py RESULTS_DIR")
    results_dir = sys.argv[1]
    experiment, rows = load(results_dir)
    spec = experiment.get("plot", {})
    axes = []
    for a in experiment.get("sweep", {}).get("axes", []):
        axes += a["paths"] if "paths" in a else [a["path"]]
    x_key = spec.get("x", "cluster.network.nic_gbps")
    series_key = spec.get("series", "format")
    facet_spec = spec.get("facet")
    facet_keys = facet_spec if isinstance(facet_spec, list) else ([facet_spec] if facet_spec else [])
    baseline = spec.get("baseline", "bf16")
    for key in [x_key, series_key] + facet_keys:
        if key not in axes:
            fail("experiment plot: \"%s\" is not a sweep axis (axes: %s)" % (key, ", ".join(axes)))
    linked = {}
    for a in experiment.get("sweep", {}).get("axes", []):
        for p in a.get("paths", []):
            linked[p] = a["paths"]
    named = set()
    for key in [x_key, series_key] + facet_keys:
        named.update(linked.get(key, [key]))
    for key in axes:
        if key not in named and len({r[key] for r in rows}) > 1:
            fail("experiment plot: axis \"%s\" has several values; name it as \"facet\"" % key)

    def ordered(values):
        values = list(dict.fromkeys(values))
        try:
            return sorted(values, key=float)
        except ValueError:
            return values

    def facet_of(r):
        if not facet_keys:
            return None
        return ", ".join("%s = %s" % (k.split(".")[-1], r[k] if r[k] != "" else "default") for k in facet_keys)

    facets = list(dict.fromkeys(facet_of(r) for r in rows))
    series = list(dict.fromkeys(r[series_key] for r in rows))
    xs = ordered(r[x_key] for r in rows)
    index = {(facet_of(r), r[series_key], r[x_key]): r for r in rows}
    x_label = AXIS_LABELS.get(x_key, x_key)
    numeric_x = all(isinstance(number(x), float) for x in xs)
    written = []

    def metric(facet, s, x, name):
        row = index.get((facet, s, x))
        if row is None or row.get(name, "") == "":
            return math.nan
        return float(row[name])

    def is_lynx(s):
        return s.startswith("lynx")

    def cluster_text():
        """What ran: model, pools and workload, from the first point's summary.json."""
        try:
            with open(os.path.join(results_dir, rows[0]["point"], "summary.json")) as f:
                summary = json.load(f)
        except (OSError, ValueError, KeyError):
            return ""
        c = summary.get("config", {})
        p, d = c.get("prefill", {}), c.get("decode", {})
        workload = str(summary.get("sources", {}).get("workload", ""))
        workload = "a synthetic workload" if workload.startswith("synthetic") else os.path.basename(workload)
        return "%s; %s x %s GPU prefill + %s x %s GPU decode (%s); %s, %s requests" % (
            c.get("model", "?"), p.get("instances", "?"), p.get("tp", "?"), d.get("instances", "?"), d.get("tp", "?"),
            d.get("gpu", "?"), workload, summary.get("metrics", {}).get("completed", "?"))

    cluster = cluster_text()

    def facet_grid(height):
        """One panel per facet, at most three a row."""
        cols = min(3, len(facets))
        rows_n = (len(facets) + cols - 1) // cols
        fig, grid = plt.subplots(rows_n, cols, figsize=(6.4 * cols, height * rows_n), squeeze=False)
        panels = [ax for row in grid for ax in row]
        for ax in panels[len(facets):]:
            ax.set_visible(False)
        return fig, panels[:len(facets)]

    def title(facet):
        head = str(facet) if facet else experiment.get("name", "")
        return "%s\n%s" % (head, cluster) if cluster else head

    def overloaded(facet, s, x):
        row = index.get((facet, s, x))
        return row is not None and row.get("overloaded", "").lower() in ("true", "1")

    def mark_overloaded(ax, facet, s, px, values, color):
        """Overloaded points (requests wait longer than they are served) get a large open red ring."""
        pts = [(xv, v) for x, xv, v in zip(xs, px, values) if overloaded(facet, s, x) and not math.isnan(v)]
        if pts:
            ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=140, facecolors="none", edgecolors="red",
                       linewidths=1.2, zorder=5)

    # Lynx's three first-token times: distinct line styles and markers, so a series on top of another stays visible.
    FIRST_TOKEN_KINDS = [("ttft", "first verified token", "-", "o", 6),
                         ("ttft_correct", "first correct token", "--", "s", 8),
                         ("ttft_spec", "first (speculative) token", ":", "^", 10)]

    def x_axis(ax):
        """The swept x: log scale with a tick at every value when numeric, and its label."""
        if numeric_x:
            ax.set_xscale("log")
            ax.set_xticks([float(x) for x in xs])
            ax.set_xticklabels([str(int(float(x))) if float(x).is_integer() else x for x in xs])
        ax.set_xlabel(x_label)

    # 1. TTFT p50 / p99 against x.
    fig, panels = facet_grid(4.8)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, facet in zip(panels, facets):
        for i, s in enumerate(series):
            color = colors[i % len(colors)]
            px = [float(x) if numeric_x else x for x in xs]
            kinds = FIRST_TOKEN_KINDS if is_lynx(s) else FIRST_TOKEN_KINDS[:1]
            for metric_name, what, style, marker, size in kinds:
                suffix = (" " + what) if is_lynx(s) else ""
                p50 = [metric(facet, s, x, "median_%s_ms" % metric_name) for x in xs]
                ax.plot(px, p50, style, marker=marker, markersize=size, markerfacecolor="none", color=color,
                        label="%s%s p50" % (s, suffix))
                ax.plot(px, [metric(facet, s, x, "p99_%s_ms" % metric_name) for x in xs], style, marker=marker,
                        markersize=size * 0.7, color=color, alpha=0.35, label="%s%s p99" % (s, suffix))
                if metric_name == "ttft":
                    mark_overloaded(ax, facet, s, px, p50, color)
        x_axis(ax)
        ax.set_yscale("log")
        ax.set_ylabel("TTFT (ms)")
        ax.set_title(title(facet), fontsize=8)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6, ncol=2, title="red ring: overloaded (waits > service)", title_fontsize=6)
    save(fig, results_dir, "ttft_vs_%s" % x_key.split(".")[-1], written)

    # 1b. Speculation: rollback rate and the share of first drafts kept, for the speculative series.
    speculative = [s for s in series if is_lynx(s)]
    if speculative:
        fig, panels = facet_grid(3.6)
        for ax, facet in zip(panels, facets):
            for i, s in enumerate(series):
                if s not in speculative:
                    continue
                px = [float(x) if numeric_x else x for x in xs]
                color = colors[i % len(colors)]
                ax.plot(px, [metric(facet, s, x, "rollback_rate") for x in xs], "-", marker="x", color=color,
                        label="%s rollback rate (drafts discarded)" % s)
                ax.plot(px, [metric(facet, s, x, "first_draft_kept_rate") for x in xs], "--", marker="s",
                        markerfacecolor="none", color=color, label="%s first draft kept" % s)
            x_axis(ax)
            ax.set_ylim(-0.02, 1.02)
            ax.set_ylabel("share")
            ax.set_title(title(facet), fontsize=8)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=7)
        save(fig, results_dir, "speculation", written)

    # 2. TTFT relative to the baseline series.
    if baseline in series:
        fig, panels = facet_grid(4.2)
        for ax, facet in zip(panels, facets):
            for i, s in enumerate(series):
                color = colors[i % len(colors)]
                px = [float(x) if numeric_x else x for x in xs]
                # The same definition on both sides: the baseline has no speculation, so its three times are equal.
                for metric_name, what, style, marker, size in (FIRST_TOKEN_KINDS if is_lynx(s) else
                                                               FIRST_TOKEN_KINDS[:1]):
                    ax.plot(px, [metric(facet, s, x, "median_%s_ms" % metric_name) /
                                 metric(facet, baseline, x, "median_%s_ms" % metric_name) for x in xs], style,
                            marker=marker, markersize=size, markerfacecolor="none", color=color,
                            label="%s: p50 %s / %s's" % (s, what, baseline))
            x_axis(ax)
            ax.set_yscale("log")  # overloaded baselines put the others orders of magnitude below 1
            ax.axhline(1.0, color="grey", lw=0.8)
            ax.set_ylabel("median first-token time / %s's" % baseline)
            ax.set_title(title(facet), fontsize=8)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=7)
        save(fig, results_dir, "ttft_relative_to_%s" % baseline, written)

    # 3. TTFT CDFs at one x value.
    cdf_at = spec.get("cdf_at")
    if cdf_at is not None:
        at = [x for x in xs if number(x) == number(str(cdf_at))]
        if not at:
            fail("experiment plot: cdf_at %s is not a value of %s (%s)" % (cdf_at, x_key, ", ".join(xs)))
        fig, panels = facet_grid(4.2)
        for ax, facet in zip(panels, facets):
            for i, s in enumerate(series):
                row = index.get((facet, s, at[0]))
                if row is None:
                    continue
                with open(os.path.join(results_dir, row["point"], "requests.csv")) as f:
                    reqs = list(csv.DictReader(f))
                for column, style, suffix in [("ttft_s", "-", "")] + ([("ttft_correct_s", "--", " first correct"),
                                                                       ("ttft_spec_s", ":", " first speculative")]
                                                                      if is_lynx(s) else []):
                    values = sorted(float(r[column]) * 1e3 for r in reqs)
                    ax.plot(values, [(k + 1) / len(values) for k in range(len(values))], style,
                            color=colors[i % len(colors)], label=s + suffix)
            ax.set_xscale("log")
            ax.set_xlabel("TTFT (ms)")
            ax.set_ylabel("fraction of requests")
            ax.set_title("%s%s = %s" % (("%s, " % facet) if facet else "", x_label, at[0]))
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=7)
        save(fig, results_dir, "ttft_cdf_at_%s" % at[0], written)

    # 4. Ratio tables.
    ratios = spec.get("ratios", [])
    if ratios:
        fig, panels = facet_grid(4.2)
        for ax, facet in zip(panels, facets):
            for ratio in ratios:
                (ns, nm), (ds, dm) = ratio["numerator"], ratio["denominator"]
                name = "%s %s / %s %s" % (ns, nm, ds, dm) + ("" if nm == dm else "  [different definitions]")
                values = [metric(facet, ns, x, "median_%s_ms" % nm) / metric(facet, ds, x, "median_%s_ms" % dm)
                          for x in xs]
                print("%s%s" % (("[%s] " % facet) if facet else "", name))
                for x, v in zip(xs, values):
                    print("  %s = %-8s  %.3f" % (x_key.split(".")[-1], x, v))
                ax.plot([float(x) if numeric_x else x for x in xs], values, marker="o", label=name)
            x_axis(ax)
            finite = [v for line in ax.get_lines() for v in line.get_ydata() if v == v and v > 0]
            if finite and max(finite) / min(finite) > 10:
                ax.set_yscale("log")  # ratios spanning decades
            ax.axhline(1.0, color="grey", lw=0.8)
            ax.set_ylabel("ratio of median first-token times")
            ax.set_title(title(facet), fontsize=8)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=8)
        save(fig, results_dir, "ratios", written)

    # 5. The anchor-width frontier: each metric's median against the Lynx anchor's bits, a line per x value and split;
    # printed: the format with the lowest median at each x.
    frontier = spec.get("frontier", [])
    if frontier:
        import re
        pattern = re.compile(r"^lynx-a(\d+)r(\d+)-g(\d+)(-rq)?$")
        lynx = [s for s in series if pattern.match(s)]
        if not lynx:
            fail("experiment plot: frontier needs lynx-a<A>r<R>-g<G> series")
        fig, panels = plt.subplots(1, len(frontier), figsize=(6.4 * len(frontier), 4.4), squeeze=False)
        for ax, name in zip(panels[0], frontier):
            for i, x in enumerate(xs):
                for split, style in (("", "-"), ("-rq", "--")):
                    chosen = sorted((int(pattern.match(s).group(1)), s) for s in lynx
                                    if (pattern.match(s).group(4) or "") == split)
                    if not chosen:
                        continue
                    ax.plot([a for a, _ in chosen], [metric(None, s, x, "median_%s_ms" % name) for _, s in chosen],
                            style, marker="o", markerfacecolor="none" if split else None,
                            color=colors[i % len(colors)],
                            label="%s %s, %s split" % (x, x_label, "residual-quant" if split else "bit-slice"))
            ax.set_xlabel("anchor bits (of 8)")
            ax.set_yscale("log")
            ax.set_ylabel("median %s (ms)" % name)
            ax.set_title(title(None), fontsize=8)
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=6)
        save(fig, results_dir, "anchor_width_frontier", written)
        others = [s for s in series if s not in lynx]
        for name in frontier:
            print("lowest median %s per %s among the Lynx splits (others for reference):" % (name, x_key.split(".")[-1]))
            for x in xs:
                best = min(lynx, key=lambda s: metric(None, s, x, "median_%s_ms" % name))
                reference = "".join("  %s %.1f" % (o, metric(None, o, x, "median_%s_ms" % name)) for o in others)
                print("  %s = %-6s %-18s %.1f ms%s" % (x_key.split(".")[-1], x, best,
                                                       metric(None, best, x, "median_%s_ms" % name), reference))

    for path in written:
        print("wrote %s" % path)


if __name__ == "__main__":
    try:
        main()
    except (KeyError, ValueError, IndexError, TypeError, OSError) as e:
        # A results folder whose files were edited or cut: one line naming it, never a traceback.
        fail("%s: not a complete results directory of `lynxsim run` (%s: %s)" % (
            sys.argv[1] if len(sys.argv) > 1 else "?", type(e).__name__, e))
