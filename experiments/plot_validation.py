#!/usr/bin/env python3
"""Plots what `lynxsim validate` wrote (<dir>/validation.csv): predicted against measured time, log-log, one colour
per group, the y = x line, excluded rows hollow. Writes <dir>/validation.png and .svg, byte-reproducible (no dates,
fixed SVG hash salt). Uses only the standard library and matplotlib (Debian's python3-matplotlib)."""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

plt.rcParams["svg.hashsalt"] = "lynxsim"
plt.rcParams["font.size"] = 9


def main(out_dir):
    path = os.path.join(out_dir, "validation.csv")
    try:
        rows = list(csv.DictReader(open(path, newline="")))
    except OSError as e:
        sys.stderr.write("lynxsim validate: error: %s: %s\n" % (path, e.strerror))
        sys.exit(1)
    groups = []
    for r in rows:
        if r["group"] not in groups:
            groups.append(r["group"])
    fig, ax = plt.subplots(figsize=(7, 6))
    lo, hi = float("inf"), 0.0
    for i, g in enumerate(groups):
        pts = [r for r in rows if r["group"] == g]
        colour = "C%d" % i
        for included, face in ((1, colour), (0, "none")):
            sel = [r for r in pts if int(r["included"]) == included]
            if not sel:
                continue
            xs = [float(r["measured_ms"]) for r in sel]
            ys = [float(r["predicted_ms"]) for r in sel]
            lo, hi = min(lo, *xs, *ys), max(hi, *xs, *ys)
            ax.scatter(xs, ys, s=14, facecolors=face, edgecolors=colour, linewidths=0.8,
                       label=g if included else g + " (excluded)")
    ax.plot([lo * 0.8, hi * 1.25], [lo * 0.8, hi * 1.25], color="black", linewidth=0.8, label="y = x")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("measured (ms)")
    ax.set_ylabel("predicted by the profiled cost model (ms)")
    ax.set_title("lynxsim validate: end-to-end measurements the model was not fitted on")
    ax.grid(True, which="both", linewidth=0.3)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    for ext, meta in (("png", {"Software": None}), ("svg", {"Date": None, "Creator": None})):
        out = os.path.join(out_dir, "validation." + ext)
        fig.savefig(out, dpi=120, metadata=meta)
        print("wrote %s" % out)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.stderr.write("usage: plot_validation.py RESULTS_DIR\n")
        sys.exit(2)
    main(sys.argv[1])
