"""What every plot of analysis/mcfleet_plot.py shares: matplotlib set up to
draw text from files as text, labels that fit, CSV cells a spreadsheet will
not run, and figures written under the output rule (mcfleet_outpath).
Import it after mcfleet_python.require(), which finds a python3 that has
matplotlib."""
import os

import matplotlib
matplotlib.use("Agg")

import mcfleet_outpath as outpath  # noqa: E402
from matplotlib.backend_bases import FigureCanvasBase  # noqa: E402
from mcfleet_results import show  # noqa: E402

# Text from the file (test names, units, hosts) is drawn as it is, never read
# as matplotlib's maths: "$\undefinedmacro$" in a name raised ValueError at
# drawing time. text.parse_math is matplotlib 3.5's; before it, short()
# escapes the dollar signs of what it is given.
PARSE_MATH_KEY = "text.parse_math" in matplotlib.rcParams
if PARSE_MATH_KEY:
    matplotlib.rcParams["text.parse_math"] = False


class Unwritable(Exception):
    """an output that cannot be written"""


_SUPERSCRIPT = str.maketrans("-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")


def log_axes(ax, base=10, axes="xy"):
    """log scales whose tick labels are plain text (10\u2075, 2\u2078):
    matplotlib's own ($\\mathdefault{10^{5}}$) are maths, shown raw with
    text.parse_math off"""
    import math
    from matplotlib.ticker import FuncFormatter, NullFormatter

    def label(v, pos):
        if v <= 0:
            return ""
        e = math.log(v, base)
        return "%d%s" % (base, str(int(round(e))).translate(_SUPERSCRIPT)) if abs(e - round(e)) < 1e-9 else ""
    for a in axes:
        axis = ax.xaxis if a == "x" else ax.yaxis
        (ax.set_xscale if a == "x" else ax.set_yscale)("log", base=base)
        axis.set_major_formatter(FuncFormatter(label))
        axis.set_minor_formatter(NullFormatter())


def short(text, n=60):
    """a label that matplotlib can draw: a huge one overflows its rasterizer;
    with no text.parse_math to turn off (matplotlib < 3.5), "$" escaped"""
    text = text if len(text) <= n else text[:n - 3] + "..."
    return text if PARSE_MATH_KEY else text.replace("$", "\\$")


def csv_text(text):
    """a CSV cell of text from the file: quoted where RFC 4180 asks, and by
    OWASP's CSV injection rule a leading ' where it begins with = + - @ TAB
    CR, which a spreadsheet would run (the C report's rule)"""
    formula = text[:1] in ("=", "+", "-", "@", "\t", "\r")
    if not formula and not any(c in text for c in ',"\n\r'):
        return text
    return '"%s%s"' % ("'" if formula else "", text.replace('"', '""'))


def check_format(option, path):
    """refused (exit 2, before the work) where matplotlib writes no format of
    the path's extension (none: PNG); else savefig raised ValueError at the end"""
    fmt = os.path.splitext(path)[1][1:].lower() or "png"
    known = FigureCanvasBase.get_supported_filetypes()
    if fmt not in known:
        raise outpath.Refused("%s '%s' is not a figure matplotlib writes (.%s; it writes %s)"
                              % (option, show(path), show(fmt), ", ".join("." + k for k in sorted(known))))


def save(fig, output, what, rect=None):
    """lays out and writes the figure (rect: the part the axes may use), and says what it holds"""
    fig.tight_layout(rect=rect)
    try:
        if isinstance(output, outpath.Path):   # a file under the output rule; else a buffer (the page's)
            fmt = os.path.splitext(output)[1][1:].lower() or "png"
            outpath.write(output.option, output, output.force, lambda f: fig.savefig(f, format=fmt, dpi=110), True)
        else:
            fig.savefig(output, dpi=110)
    except OSError as e:
        raise Unwritable("cannot write %s: %s" % (output, e.strerror or e))
    print("wrote %s (%s)" % (show(str(output)), what))
