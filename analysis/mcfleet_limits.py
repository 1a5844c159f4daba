"""The bounds on what a results file may claim, for the Python readers
(mcfleet_results.Results), and the bounded reads that keep to them.

The numbers are the C report's (src/report/report_read.h, MCF_RD_MAX_*),
read from mcfleet_limits.txt beside this module, never copied here
(tests/limits_agree.sh checks that file against the header):

  MAX_RANKS   ranks a file may claim
  MAX_VALUES  values of one dataset; bytes of a dataset of fixed-length
              strings (its elements at their declared size plus one)
  MAX_COLS    repetitions of one metric (columns of a [ranks, reps] dataset)
  MAX_STRING  bytes of one string of a dataset (declared, or as read)
  MAX_TEXT    bytes of one string attribute

Each is checked on the declared type and shape before anything is read (a
tiny file may declare 2^20 strings of 60,000 bytes and store only a fill
value); strings and figures are then read a block of rows at a time
(BLOCK_BYTES, or VLEN_ROWS variable-length strings, each checked against
MAX_STRING as it comes: their bytes are stored whole in the file's heap).
"""
import os
import sys

LIMITS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mcfleet_limits.txt")
NAMES = ("MAX_RANKS", "MAX_VALUES", "MAX_COLS", "MAX_STRING", "MAX_TEXT")


def load_limits(path=LIMITS_FILE):
    """{NAME: number} of a limits file ("MAX_RANKS 1048576" lines, # comments)"""
    out = {}
    with open(path) as f:
        for line in f:
            w = line.split("#", 1)[0].split()
            if w:
                if len(w) != 2:
                    raise ValueError("%r is not NAME NUMBER" % line.strip())
                out[w[0]] = int(w[1])
    return out


try:
    MAX_RANKS, MAX_VALUES, MAX_COLS, MAX_STRING, MAX_TEXT = (load_limits()[k] for k in NAMES)
except (OSError, ValueError, KeyError) as e:   # a runtime error (docs/exit-codes.md), not the file's fault
    sys.stderr.write("mcfleet: %s: cannot read the bounds on a results file (%s): the install is broken\n"
                     % (LIMITS_FILE, e))
    sys.exit(3)
BLOCK_BYTES = 1 << 24   # read at a time (not a bound on the file)
VLEN_ROWS = 256         # variable-length strings read at a time


def declared_problem(shape, itemsize, fixed_string):
    """why a dataset of this declared shape (and, for fixed-length strings,
    element size) is beyond the bounds, or None; the report's words"""
    count = 1
    for n in shape:
        count *= int(n)
    if count > MAX_VALUES:
        return "has %d values, more than %d" % (count, MAX_VALUES)
    if len(shape) == 2 and shape[1] > MAX_COLS:
        return "has %d columns (repetitions), more than %d" % (shape[1], MAX_COLS)
    if fixed_string:
        if itemsize > MAX_STRING:
            return "holds strings of %d bytes (at most %d)" % (itemsize, MAX_STRING)
        if count > MAX_VALUES // (itemsize + 1):
            return "holds %d strings of %d bytes: too large (at most %d bytes)" % (count, itemsize, MAX_VALUES)
    return None


def row_blocks(d, row_bytes):
    """(first row, values) of dataset d, BLOCK_BYTES of rows at a time"""
    step = max(1, BLOCK_BYTES // max(1, row_bytes))
    for r0 in range(0, d.shape[0], step):
        yield r0, d[r0:r0 + step]


def strings(d, fixed, clean, bad):
    """the elements of a 1-D string dataset as clean(bytes), a block of rows at
    a time; bad(what) where one is longer than MAX_STRING"""
    out, last, last_text = [], None, ""
    blocks = row_blocks(d, d.dtype.itemsize) if fixed else (
        (r0, d[r0:r0 + VLEN_ROWS]) for r0 in range(0, d.shape[0], VLEN_ROWS))
    for r0, block in blocks:
        for i, x in enumerate(block, r0):
            if isinstance(x, str):
                x = x.encode("utf-8", "surrogateescape")
            if len(x) > MAX_STRING:
                bad("element %d is longer than %d bytes" % (i, MAX_STRING))
            if x != last:   # a run of one value (a fill value) is one string
                last, last_text = x, clean(x)
            out.append(last_text)
    return out


def world_rank_problem(w, size):
    """why /ranks/world_rank (w, one int per row) is not one world rank of its
    own per row, each in 0..size-1 (size: /meta world_size, else nranks), or
    None: the C report's rule (report.c read_world), its words; O(n)"""
    import numpy as np
    w = np.asarray(w, dtype=np.int64)
    rows = np.arange(len(w))
    bad = (w < 0) | (w >= size)
    if not bad.any():
        first = np.full(size, len(w), dtype=np.int64)
        np.minimum.at(first, w, rows)
        bad = first[w] != rows   # a row holding a rank an earlier row holds
    if not bad.any():
        return None
    r = int(np.argmax(bad))
    return "row %d: %d is not a world rank of its own (world_size %d)" % (r, w[r], size)
