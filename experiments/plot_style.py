"""The look every lynxsim plot shares: one fixed colour per KV format (the same in every plot, whichever formats it
has), log axes whose ticks are plain numbers (10, 25, 400, not 10^2), and files written whole (a temporary name,
then a rename) and byte-identical for the same inputs (no dates, a fixed SVG hash salt).
Standard library and matplotlib only (Debian's python3-matplotlib)."""
import math
import os
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter  # noqa: E402

plt.rcParams["svg.hashsalt"] = "lynxsim"
plt.rcParams["font.size"] = 10

# The catalog's named formats (kernels/kv_format.cpp), each its own colour.
FORMAT_COLOURS = {
    "fp32": "#7f7f7f",
    "bf16": "#1f77b4",
    "fp8-e4m3": "#17becf",
    "int8-g64": "#ff7f0e",
    "int4-g64": "#2ca02c",
    "kivi2-g32": "#8c564b",
    "lynx-a4r4-g64": "#d62728",
    "lynx-a4r4-g64-rq": "#9467bd",
}
# Other members of a family take the family's colour by bit width (group sizes of one width share it).
INT_COLOURS = {8: "#ff7f0e", 4: "#2ca02c", 2: "#bcbd22", 3: "#98df8a", 5: "#ffbb78", 6: "#c49c94", 7: "#dbdb8d"}
KIVI_COLOURS = {2: "#8c564b", 3: "#c5b0d5", 4: "#e377c2"}
# Lynx by anchor bits: reds for the bit-slice split, purples for the residual-quant split (-rq).
LYNX_COLOURS = {1: "#fcbba1", 2: "#fb6a4a", 3: "#ef3b2c", 4: "#d62728", 5: "#a50f15", 6: "#67000d", 7: "#3f0008"}
LYNX_RQ_COLOURS = {1: "#dadaeb", 2: "#bcbddc", 3: "#9e9ac8", 4: "#9467bd", 5: "#6a51a3", 6: "#54278f", 7: "#3f007d"}
# Series that are not formats: by their place in the sweep axis's list of values.
OTHER_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                 "#bcbd22", "#17becf"]


def format_colour(name):
    """The fixed colour of a KV format name, or None when `name` is not one."""
    if name in FORMAT_COLOURS:
        return FORMAT_COLOURS[name]
    m = re.match(r"^int(\d)-g\d+$", name)
    if m:
        return INT_COLOURS.get(int(m.group(1)))
    m = re.match(r"^kivi(\d)-g\d+$", name)
    if m:
        return KIVI_COLOURS.get(int(m.group(1)))
    m = re.match(r"^lynx-a(\d)r\d-g\d+(-rq)?$", name)
    if m:
        return (LYNX_RQ_COLOURS if m.group(2) else LYNX_COLOURS).get(int(m.group(1)))
    return None


def series_colour(name, axis_values):
    """A series' colour: its format's, else by its index in `axis_values` (the sweep axis's values, in order)."""
    colour = format_colour(name)
    if colour is not None:
        return colour
    index = axis_values.index(name) if name in axis_values else 0
    return OTHER_COLOURS[index % len(OTHER_COLOURS)]


def plain_number(value, _position=None):
    """A tick label as a plain number: 10, 25, 400, 2.5, 0.05 (never 10^2 or 1e+03)."""
    if value <= 0 or not math.isfinite(value):
        return ""
    if value >= 1 and abs(value - round(value)) < 1e-9 * value:
        return "{:d}".format(int(round(value)))
    return ("%.3g" % value) if value >= 1e-4 else ("%.1e" % value)


def log_axis(axis, ticks=None):
    """Log scale on `axis` (ax.xaxis or ax.yaxis) with plain-number labels. `ticks`: exactly these (the swept
    values); otherwise 1-2-5 steps where the range spans at most three decades, decades beyond."""
    ax = axis.axes
    is_x = axis is ax.xaxis
    (ax.set_xscale if is_x else ax.set_yscale)("log")
    if ticks:
        axis.set_major_locator(FixedLocator(sorted(ticks)))
    else:
        low, high = sorted(ax.get_xlim() if is_x else ax.get_ylim())
        decades = math.log10(high / low) if low > 0 and high > 0 else 99
        axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0) if decades <= 3 else (1.0,)))
    axis.set_major_formatter(FuncFormatter(plain_number))
    axis.set_minor_formatter(NullFormatter())


class PlotOutputError(Exception):
    """A figure's path held by something that is not a regular file: one line, exit 2 (the output rule of
    common/output_paths.hpp, applied here because only the script knows which figures a results folder gives)."""


def output_path(out_dir, name):
    """out_dir/name, refused when something other than a regular file (a folder, a FIFO, a device, a socket, a
    dangling link) already holds that name: renaming into place would destroy what the tool did not create."""
    out = os.path.join(out_dir, name)
    if os.path.lexists(out) and not os.path.isfile(out):
        kind = ("a folder" if os.path.isdir(out) else "a link to nothing" if os.path.islink(out) else
                "not a regular file")
        raise PlotOutputError("%s: is %s; the plot would replace it (remove it or plot into another --out)" %
                              (out, kind))
    return out


def save(fig, out_dir, stem, written):
    """PNG and SVG of `fig` as out_dir/stem.{png,svg}, each written to a temporary name and renamed into place."""
    outs = [output_path(out_dir, "%s.%s" % (stem, ext)) for ext in ("png", "svg")]  # both checked before either
    for ext, out in zip(("png", "svg"), outs):
        tmp = "%s.tmp.%d" % (out, os.getpid())
        try:
            fig.savefig(tmp, format=ext, dpi=120, bbox_inches="tight",
                        metadata={"Date": None} if ext == "svg" else {"Software": None})
            os.replace(tmp, out)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)
        written.append(out)
    plt.close(fig)
