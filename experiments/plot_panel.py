"""One panel of a lynxsim plot and the decisions a reader must be able to trust, taken in one place so that every
plot takes them alike and a test can read them back (`lynxsim plot --data`, the "drawn" list):
- the legend lists only what is drawn: the overload ring appears in it only when a point of the panel has one, the
  SLO line only when one is drawn;
- a line that lies on another one (every point within 1.5% of the axis's drawn span of the other's, as int8's TTFT
  on Lynx's on a log axis spanning decades) is still visible: it gets a larger open marker above the other (a CDF
  line: wider and translucent), and its legend entry says which line it covers; one that meets another at some
  points only gets the larger open marker there, in its own colour (the rest of it shows where it is). The
  distance is measured on the axis as drawn (log or linear, its limits), so two lines 1.6% apart on a +-3% plot
  are apart, and on a plot spanning decades they are not;
- every legend sits outside its panel, to its right, in 8 pt; lay_out then spaces the panels so that no legend
  covers a line, a label or another panel, and records any overlap left (none is expected: tests check it);
- the y axis is logarithmic only where the values drawn span at least a decade (max >= 10 x min, all positive),
  linear otherwise, so a narrow range does not exaggerate gaps;
- the overload mark is a black ring, a colour no series has (Lynx's lines are red).
Standard library and matplotlib only (Debian's python3-matplotlib)."""
import math

from matplotlib.lines import Line2D

from plot_style import log_axis

OVERLOAD_LABEL = "ring: overloaded (requests wait longer than they are served)"
OVERLOAD_COLOUR = "black"
# Two points closer than this share of the axis's drawn span overlap: on a panel about 3 in high at 120 dpi, 1.5% is
# 5 pixels, half a 6 pt marker.
COINCIDENT_SPAN = 0.015
LEGEND_SIZE = 8
LEGEND_LINE = 50  # characters: a longer entry saying what it lies on takes two lines
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "<", ">", "*"]


def spans_decade(values):
    """True when the values are positive and the largest is at least ten times the smallest."""
    finite = [v for v in values if isinstance(v, (int, float)) and math.isfinite(v)]
    if not finite or min(finite) <= 0:
        return False
    return max(finite) >= 10 * min(finite)


def axis_share(value, scale, limits):
    """Where `value` lies on an axis drawn from limits[0] to limits[1] (log or linear), as a share of its span."""
    low, high = limits
    if scale == "log":
        return (math.log(value) - math.log(low)) / (math.log(high) - math.log(low))
    return (value - low) / (high - low)


def near(a, b, scale, limits):
    """Two values drawn within COINCIDENT_SPAN of the axis's span of each other (both finite, positive on a log
    axis)."""
    if not (math.isfinite(a) and math.isfinite(b)) or (scale == "log" and (a <= 0 or b <= 0)):
        return False
    return abs(axis_share(a, scale, limits) - axis_share(b, scale, limits)) <= COINCIDENT_SPAN + 1e-12


def coincident(a, b, scale, limits):
    """Two value lists drawn at the same positions that lie near each other (near()) at every point where both have
    a value (and at least one such point)."""
    pairs = [(x, y) for x, y in zip(a, b) if math.isfinite(x) and math.isfinite(y)]
    return bool(pairs) and all(near(x, y, scale, limits) for x, y in pairs)


class Panel:
    """An axes and what has been drawn on it: the lines (label, values), the overload rings, the SLO lines."""

    def __init__(self, ax):
        self.ax = ax
        self.lines = []        # {"label", "xs", "values", "handle", "marker", "markersize", "alpha"}
        self.covers = []       # [label, label of the line it lies on]
        self.overloaded = 0    # rings drawn
        self.slo = []          # {"metric", "value", "unit"} drawn
        self.y_scale = "linear"
        self.x_scale = "linear"

    def line(self, xs, values, label, marker=None, markersize=6, **style):
        """Plots `values` against `xs`; whether it lies on a line drawn before is decided when the axes are final
        (mark_covers, called by legend())."""
        values = [float(v) for v in values]
        drawn, = self.ax.plot(xs, values, marker=marker, markersize=markersize, label=label, **style)
        self.lines.append({"label": label, "xs": list(xs), "values": values, "handle": drawn, "marker": marker,
                           "markersize": markersize, "alpha": style.get("alpha", 1.0)})
        return drawn

    def mark_covers(self):
        """Each line within COINCIDENT_SPAN of an earlier one at every point gets a larger open marker on top and a
        legend entry naming the line it covers; one that meets an earlier line at some points gets the larger open
        marker, in its own colour, at those points. A CDF (the same fractions) is compared along x."""
        xlim, ylim = self.ax.get_xlim(), self.ax.get_ylim()
        for k, line in enumerate(self.lines):
            under, close = None, []
            for other in self.lines[:k]:
                if line["marker"] is None and len(other["xs"]) == len(line["xs"]) and other["values"] == line["values"]:
                    meets = [i for i, (a, b) in enumerate(zip(other["xs"], line["xs"]))
                             if near(float(a), float(b), self.x_scale, xlim)]
                elif other["xs"] == line["xs"]:
                    meets = [i for i, (a, b) in enumerate(zip(other["values"], line["values"]))
                             if near(a, b, self.y_scale, ylim)]
                else:
                    continue
                if len(meets) > len(close):
                    under, close = other["label"], meets
            points = sum(1 for v in line["values"] if math.isfinite(v))
            if under is None or not (len(close) == points or line["marker"] is not None):
                continue
            everywhere = len(close) == points
            handle = line["handle"]
            label = line["label"]
            if everywhere:  # the line would be invisible: the legend says where it is
                label = "%s (on top of %s)" % (label, under)
                handle.set_label(label)
            self.covers.append({"label": label, "under": under, "points": len(close), "of": points})
            zorder = 3 + len(self.covers)
            handle.set_zorder(zorder)
            size = line["markersize"] * 1.6
            if line["marker"] is None:  # a CDF step line: wide and translucent, the other shows through it
                handle.set_linewidth(3.5)
                handle.set_alpha(0.45)
            elif everywhere:
                handle.set_markersize(size)
                handle.set_markerfacecolor("none")
                handle.set_markeredgewidth(1.4)
            else:  # the points it shares: a larger open marker above both lines, in the line's own colour
                self.ax.plot([line["xs"][i] for i in close], [line["values"][i] for i in close], linestyle="none",
                             marker=line["marker"], markersize=size, markerfacecolor="none", markeredgewidth=1.4,
                             color=handle.get_color(), alpha=line["alpha"], zorder=zorder)
        self.ax.set_xlim(xlim)
        self.ax.set_ylim(ylim)

    def mark_overloaded(self, points):
        """Open black rings around the (x, value) points whose requests wait longer than they are served."""
        points = [(x, v) for x, v in points if math.isfinite(v)]
        if points:
            self.ax.scatter([p[0] for p in points], [p[1] for p in points], s=150, facecolors="none",
                            edgecolors=OVERLOAD_COLOUR, linewidths=1.2, zorder=10)
            self.overloaded += len(points)

    def slo_line(self, slo, vertical=False):
        """The target of an SLO ({"metric", "value", "unit"}) as a dashed grey line across the panel."""
        label = "SLO: %s %g %s" % (slo["metric"], slo["value"], slo["unit"])
        (self.ax.axvline if vertical else self.ax.axhline)(slo["value"], color="dimgrey", ls=(0, (6, 3)), lw=1.1,
                                                         label=label, zorder=1)
        self.slo.append(dict(slo))

    def y_axis(self, allow_log=True, extra=()):
        """Log y where the lines' values (and `extra`, e.g. a reference line at 1) span a decade, else linear."""
        values = [v for line in self.lines for v in line["values"]] + list(extra)
        if allow_log and spans_decade([v for v in values if math.isfinite(v)]):
            log_axis(self.ax.yaxis)
            self.y_scale = "log"

    def x_log(self, values, allow_log=True):
        """Log x for a CDF whose values span a decade."""
        if allow_log and spans_decade(values):
            log_axis(self.ax.xaxis)
            self.x_scale = "log"

    def legend(self):
        """Marks the lines lying on others (mark_covers), then the legend of what is drawn, outside the panel to
        its right: the lines and SLO lines, then the overload ring if a point has one."""
        self.mark_covers()
        handles, labels = self.ax.get_legend_handles_labels()
        if self.overloaded:
            handles.append(Line2D([], [], ls="none", marker="o", markersize=9, markerfacecolor="none",
                                  markeredgecolor=OVERLOAD_COLOUR))
            labels.append(OVERLOAD_LABEL)
        if handles:
            # A long entry breaks before what it lies on, so that the legend stays narrow.
            shown = [label.replace(" (on top of ", "\n(on top of ") if len(label) > LEGEND_LINE else label
                     for label in labels]
            self.ax.legend(handles, shown, fontsize=LEGEND_SIZE, loc="upper left", bbox_to_anchor=(1.03, 1.0),
                           borderaxespad=0)
        return labels

    def describe(self, labels):
        """What a reader sees, for the --data file: title, axis labels, scales and limits, legend entries and where
        the legend is, lines covered."""
        return {"title": self.ax.get_title(), "x_label": self.ax.get_xlabel(), "y_label": self.ax.get_ylabel(),
                "x_scale": self.x_scale, "y_scale": self.y_scale, "x_limits": list(self.ax.get_xlim()),
                "y_limits": list(self.ax.get_ylim()), "legend": labels,
                "legend_place": "outside, right" if labels else None, "legend_size": LEGEND_SIZE,
                "covers": self.covers, "overloaded_points": self.overloaded, "overload_colour": OVERLOAD_COLOUR,
                "slo": self.slo}


def lay_out(fig, gap=0.3):
    """Places the figure's visible panels in their grid so that nothing of one panel (its tick labels, axis labels,
    title, and the legend to its right) reaches another: each column is as wide as its widest panel with its
    labels and legend, each row as high as its highest, `gap` inches apart; the panels keep their size and the
    figure grows to fit. Returns the overlaps left, as text (a legend over any panel's axes, labels or title, or
    over another legend): none is expected."""
    axes = [ax for ax in fig.axes if ax.get_visible() and ax.get_subplotspec() is not None]
    if not axes:
        return []
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    dpi = fig.dpi
    place = {}
    for ax in axes:
        spec = ax.get_subplotspec()
        box, tight = ax.get_window_extent(renderer), ax.get_tightbbox(renderer)
        place[ax] = (spec.rowspan.start, spec.colspan.start, box.width / dpi, box.height / dpi,
                     (box.x0 - tight.x0) / dpi, (tight.x1 - box.x1) / dpi, (tight.y1 - box.y1) / dpi,
                     (box.y0 - tight.y0) / dpi)
    rows = 1 + max(p[0] for p in place.values())
    cols = 1 + max(p[1] for p in place.values())
    def widest(index, col):
        return max([p[index] for p in place.values() if p[1] == col] or [0.0])
    def highest(index, row):
        return max([p[index] for p in place.values() if p[0] == row] or [0.0])
    left = [widest(4, c) for c in range(cols)]
    width = [widest(2, c) for c in range(cols)]
    right = [widest(5, c) for c in range(cols)]
    top = [highest(6, r) for r in range(rows)]
    height = [highest(3, r) for r in range(rows)]
    bottom = [highest(7, r) for r in range(rows)]
    fig_w = gap + sum(left[c] + width[c] + right[c] + gap for c in range(cols))
    fig_h = gap + sum(top[r] + height[r] + bottom[r] + gap for r in range(rows))
    fig.set_size_inches(fig_w, fig_h)
    x0s, x = [], gap
    for c in range(cols):
        x0s.append(x + left[c])
        x += left[c] + width[c] + right[c] + gap
    y0s, y = [], fig_h - gap
    for r in range(rows):
        y0s.append(y - top[r] - height[r])
        y = y0s[-1] - bottom[r] - gap
    for ax, (r, c, w, h, _, _, _, _) in place.items():
        ax.set_position([x0s[c] / fig_w, y0s[r] / fig_h, w / fig_w, h / fig_h])
    fig.canvas.draw()
    overlaps = []
    legends = [(ax, ax.get_legend().get_window_extent(renderer)) for ax in axes if ax.get_legend() is not None]
    def parts(ax):  # what a panel shows besides its legend: its plotting area, title and both axes' labels
        boxes = [ax.get_window_extent(renderer), ax.xaxis.get_tightbbox(renderer), ax.yaxis.get_tightbbox(renderer)]
        if ax.get_title():
            boxes.append(ax.title.get_window_extent(renderer))
        return [b for b in boxes if b is not None]
    for i, (ax, box) in enumerate(legends):
        for other in axes:
            if any(box.overlaps(part) for part in parts(other)):
                overlaps.append("the legend of %r over panel %r" % (ax.get_title().split("\n")[0],
                                                                    other.get_title().split("\n")[0]))
        for other, other_box in legends[:i]:
            if box.overlaps(other_box):
                overlaps.append("the legends of %r and %r" % (ax.get_title().split("\n")[0],
                                                              other.get_title().split("\n")[0]))
    return overlaps
