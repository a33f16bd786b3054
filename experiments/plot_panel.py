"""One panel of a lynxsim plot and the decisions a reader must be able to trust, taken in one place so that every
plot takes them alike and a test can read them back (`lynxsim plot --data`, the "drawn" list):
- the legend lists only what is drawn: the overload ring appears in it only when a point of the panel has one, the
  SLO line only when one is drawn;
- a line that lies on another one (every point within 2%, as int8's TTFT on Lynx's) is still visible: it gets a
  larger open marker above the other (a CDF line: wider and translucent), and its legend entry says which line it
  covers; one that meets another at some points only gets the larger open marker there (the rest of it shows
  where it is; naming every such meeting, as at high bandwidth where all lines converge, filled the legend);
- a legend of more than six entries, or with entries wider than 60 characters, sits below its panel, not over the
  lines nor over the panel beside it (rows of panels are spaced for it: plot_data.Results.facet_grid);
- the y axis is logarithmic only where the values drawn span at least a decade (max >= 10 x min, all positive),
  linear otherwise, so a narrow range does not exaggerate gaps;
- the overload mark is a black ring, a colour no series has (Lynx's lines are red).
Standard library and matplotlib only (Debian's python3-matplotlib)."""
import math

from matplotlib.lines import Line2D

from plot_style import log_axis

OVERLOAD_LABEL = "ring: overloaded (requests wait longer than they are served)"
OVERLOAD_COLOUR = "black"
# Two lines closer than this everywhere overlap at the plots' size (6.4 in wide, 120 dpi): 2% of a decade-wide log
# axis or of a linear one is under two pixels of a 4.4 in panel. Measured by eye on the example plots.
COINCIDENT_REL = 0.02
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "<", ">", "*"]


def spans_decade(values):
    """True when the values are positive and the largest is at least ten times the smallest."""
    finite = [v for v in values if isinstance(v, (int, float)) and math.isfinite(v)]
    if not finite or min(finite) <= 0:
        return False
    return max(finite) >= 10 * min(finite)


def coincident(a, b):
    """Two value lists drawn at the same x positions that lie within COINCIDENT_REL of each other at every point
    where both have a value (and at least one such point)."""
    pairs = [(x, y) for x, y in zip(a, b) if math.isfinite(x) and math.isfinite(y)]
    return bool(pairs) and all(abs(x - y) <= COINCIDENT_REL * max(abs(x), abs(y)) for x, y in pairs)


class Panel:
    """An axes and what has been drawn on it: the lines (label, values), the overload rings, the SLO lines."""

    def __init__(self, ax):
        self.ax = ax
        self.lines = []        # (label, x positions, values)
        self.covers = []       # [label, label of the line it lies on]
        self.overloaded = 0    # rings drawn
        self.slo = []          # {"metric", "value", "unit"} drawn
        self.y_scale = "linear"
        self.x_scale = "linear"

    def line(self, xs, values, label, marker=None, markersize=6, **style):
        """Plots `values` against `xs`. A line within 2% of one already drawn at every point gets a larger open
        marker on top and a legend entry naming the line it covers; one that meets an earlier line at some points
        gets the larger open marker at those points."""
        values = [float(v) for v in values]
        under, close = None, []
        for other, oxs, ov in self.lines:
            if marker is None and len(oxs) == len(xs) and list(ov) == values:
                # a CDF (the same fractions): it lies on the other where each request's value is within 2%
                meets = [i for i, (a, b) in enumerate(zip(oxs, xs)) if coincident([float(a)], [float(b)])]
            elif list(oxs) == list(xs):
                meets = [i for i, (a, b) in enumerate(zip(ov, values)) if coincident([a], [b])]
            else:
                continue
            if len(meets) > len(close):
                under, close = other, meets
        points = sum(1 for v in values if math.isfinite(v))
        base = label
        if under is not None and (len(close) == points or marker is not None):
            everywhere = len(close) == points
            if everywhere:  # the line would be invisible: the legend says where it is
                label = "%s (on top of %s)" % (label, under)
            self.covers.append({"label": label, "under": under, "points": len(close), "of": points})
            style.setdefault("zorder", 3 + len(self.covers))
            if marker is None:  # a CDF step line: wide and translucent, the other shows through it
                style["linewidth"] = 3.5
                style["alpha"] = 0.45
            elif everywhere:
                markersize = markersize * 1.6
                style["markerfacecolor"] = "none"
                style["markeredgewidth"] = 1.4
            else:  # the points it shares: a larger open marker above both lines
                self.ax.plot([xs[i] for i in close], [values[i] for i in close], linestyle="none", marker=marker,
                             markersize=markersize * 1.6, markerfacecolor="none", markeredgewidth=1.4,
                             color=style.get("color"), alpha=style.get("alpha", 1.0), zorder=style["zorder"])
        drawn, = self.ax.plot(xs, values, marker=marker, markersize=markersize, label=label, **style)
        self.lines.append((base, list(xs), values))
        return drawn

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
        values = [v for _, _, vs in self.lines for v in vs] + list(extra)
        if allow_log and spans_decade([v for v in values if math.isfinite(v)]):
            log_axis(self.ax.yaxis)
            self.y_scale = "log"

    def x_log(self, values, allow_log=True):
        """Log x for a CDF whose values span a decade."""
        if allow_log and spans_decade(values):
            log_axis(self.ax.xaxis)
            self.x_scale = "log"

    def legend(self, size=7, ncol=1):
        """The legend of what is drawn: the lines and SLO lines, then the overload ring if a point has one."""
        handles, labels = self.ax.get_legend_handles_labels()
        if self.overloaded:
            handles.append(Line2D([], [], ls="none", marker="o", markersize=9, markerfacecolor="none",
                                  markeredgecolor=OVERLOAD_COLOUR))
            labels.append(OVERLOAD_LABEL)
        if len(handles) > 6 or any(len(line) > 60 for label in labels for line in label.split("\n")):
            # a long or wide legend below the panel, never over the lines nor over the panel beside it
            self.ax.legend(handles, labels, fontsize=size, ncol=1, loc="upper center", bbox_to_anchor=(0.5, -0.14),
                           borderaxespad=0)
        elif handles:
            self.ax.legend(handles, labels, fontsize=size, ncol=ncol)
        return labels

    def describe(self, labels):
        """What a reader sees, for the --data file: title, axis labels and scales, legend entries, lines covered."""
        return {"title": self.ax.get_title(), "x_label": self.ax.get_xlabel(), "y_label": self.ax.get_ylabel(),
                "x_scale": self.x_scale, "y_scale": self.y_scale, "legend": labels, "covers": self.covers,
                "overloaded_points": self.overloaded, "overload_colour": OVERLOAD_COLOUR, "slo": self.slo}
