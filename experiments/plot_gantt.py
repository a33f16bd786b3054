#!/usr/bin/env python3
"""Draws a per-request Gantt figure (`lynxsim plot RUN --gantt ID,...`, experiments/plot_gantt.hpp):
    plot_gantt.py RUN REQUEST.json
REQUEST.json (written by lynxsim, checked there) holds each request's spans and marks (sim/output/request_spans.hpp)
in seconds from the start of the workload. One panel per request, one row per lane it used (its prefill instance,
its KV or anchor stream, Lynx's residual stream, its decode instance), a bar per phase in a fixed colour, over the
milliseconds since the request arrived; the first draft and the first token are marked on the decode lane. One
key for the whole figure, outside the panels, listing only what is drawn. Spans of no length (a phase the request
did not wait in) are not drawn. PNG and SVG (gantt_<ids>), byte-identical for the same inputs (plot_style.py);
with --data, the bars and marks as drawn (JSON). A bad output path: one line on stderr, exit 2. Uses only the
standard library and matplotlib."""
import json
import sys

from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from plot_metrics import write_data
from plot_style import PlotOutputError, plt, save

# A colour per phase: waits in greys, compute in blues, the KV on the wire in oranges (the anchor darker than the
# residual), Lynx's speculation in reds and purples, decoding in green.
SPAN_COLOURS = {
    "queue wait": "#bdbdbd",
    "prefill": "#1f77b4",
    "KV transfer": "#ff7f0e",
    "anchor transfer": "#d95f02",
    "residual transfer": "#fdae6b",
    "decode memory wait": "#969696",
    "batch wait": "#d9d9d9",
    "drafting": "#d62728",
    "verification": "#9467bd",
    "decode": "#2ca02c",
}
MARKS = {"first draft": ("v", "#d62728"), "first token": ("D", "black")}


def lane_name(request, track, spans):
    """The row of a track: its instance, or which stream."""
    if track == "prefill":
        return "prefill instance %d" % request["prefill_instance"]
    if track == "decode":
        return "decode instance %d" % request["decode_instance"]
    if track == "residual":
        return "residual stream"
    lynx = any(s["name"] == "anchor transfer" for s in spans)
    return "anchor stream" if lynx else "KV stream"


def main(request_path):
    with open(request_path) as f:
        req = json.load(f)
    requests = req["requests"]
    fig, axes = plt.subplots(len(requests), 1, squeeze=False, figsize=(9.0, 0.25 + 1.35 * len(requests)))
    drawn, names_drawn, marks_drawn = [], [], []
    for ax, r in zip([row[0] for row in axes], requests):
        t0 = r["arrival_s"]
        ms = lambda s: (s - t0) * 1000.0
        tracks = []
        for s in r["spans"]:
            if s["track"] not in tracks:
                tracks.append(s["track"])
        lanes = [lane_name(r, t, r["spans"]) for t in tracks]
        rows = {t: len(tracks) - 1 - k for k, t in enumerate(tracks)}  # the first track on top
        bars = []
        for s in r["spans"]:
            if s["start_s"] is None or s["end_s"] is None or not s["end_s"] > s["start_s"]:
                continue
            start, end = ms(s["start_s"]), ms(s["end_s"])
            ax.barh(rows[s["track"]], end - start, left=start, height=0.6, color=SPAN_COLOURS[s["name"]],
                    edgecolor="black", linewidth=0.4)
            bars.append({"lane": lanes[tracks.index(s["track"])], "name": s["name"], "start_ms": start, "end_ms": end})
            if s["name"] not in names_drawn:
                names_drawn.append(s["name"])
        marks = []
        for m in r["marks"]:
            if m["at_s"] is None:
                continue
            marker, colour = MARKS[m["name"]]
            ax.plot([ms(m["at_s"])], [rows["decode"] + 0.42], linestyle="none", marker=marker, markersize=7,
                    color=colour, markeredgecolor="black", markeredgewidth=0.5, zorder=5)
            marks.append({"name": m["name"], "at_ms": ms(m["at_s"])})
            if m["name"] not in marks_drawn:
                marks_drawn.append(m["name"])
        ax.set_yticks(range(len(tracks)), list(reversed(lanes)), fontsize=9)
        ax.set_ylim(-0.6, len(tracks) - 0.1)
        ax.set_xlim(left=0)
        ax.grid(True, axis="x", alpha=0.3)
        ax.set_axisbelow(True)
        title = "request %d: %d prompt tokens, %d output tokens" % (r["id"], r["input_tokens"], r["output_tokens"])
        if r["spec_tokens"] > 0:
            title += ", %d drafts on the anchor, %d kept" % (r["spec_tokens"], r["accepted_tokens"])
        ax.set_title(title, fontsize=9, loc="left")
        ax.set_xlabel("ms since the request arrived", fontsize=9)
        ax.tick_params(axis="x", labelsize=8)
        drawn.append({"id": r["id"], "title": title, "lanes": lanes, "bars": bars, "marks": marks,
                      "x_limits": list(ax.get_xlim())})
    order = [n for n in SPAN_COLOURS if n in names_drawn]
    handles = [Patch(facecolor=SPAN_COLOURS[n], edgecolor="black", linewidth=0.4) for n in order]
    handles += [Line2D([], [], linestyle="none", marker=MARKS[m][0], color=MARKS[m][1], markeredgecolor="black",
                       markeredgewidth=0.5, markersize=7) for m in marks_drawn]
    key = order + marks_drawn
    fig.tight_layout(rect=(0, 0, 0.78, 1))
    fig.legend(handles, key, loc="upper left", bbox_to_anchor=(0.79, 0.98), fontsize=9, frameon=False,
               title="phase (ui.perfetto.dev shows the\nsame spans from --timeline)", title_fontsize=8)
    written = []
    save(fig, req["out_dir"], req["stem"], written)
    if req["data"]:
        write_data(req["data"], {"source": req["source"], "file": req["stem"], "key": key, "requests": drawn})
        written.append(req["data"])
    for path in written:
        print("wrote %s" % path)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.stderr.write("usage: plot_gantt.py RUN REQUEST.json (written by `lynxsim plot --gantt`)\n")
        sys.exit(2)
    try:
        main(sys.argv[2])
    except PlotOutputError as e:
        sys.stderr.write("lynxsim: error: %s\n" % e)
        sys.exit(2)
