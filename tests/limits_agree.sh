#!/bin/sh
# The bounds on a results file live in one place: src/report/report_read.h
# (MCF_RD_MAX_*, the C report's). The Python readers (mcfleet compare,
# baseline, the page and the plots, through analysis/mcfleet_limits.py) read
# them from analysis/mcfleet_limits.txt, installed beside the scripts. Checks:
#   every MCF_RD_MAX_* of the header is in the file with the same number, and
#   the file names nothing the header lacks;
#   no Python module of analysis/ assigns a MAX_RANKS ... MAX_TEXT of its own;
#   the module takes the file's numbers (a changed file changes them), and a
#   missing or garbled file is exit 3 naming it (a broken install), no traceback.
. "$srcdir/tests/lib.sh"
need_h5py
"$PYTHON_H5" - "$srcdir/src/report/report_read.h" "$srcdir/analysis/mcfleet_limits.txt" <<'PY' || fail "the limits disagree"
import re, sys
header, limits = sys.argv[1:3]
c = {}
for line in open(header):
    m = re.match(r"\s*#\s*define\s+MCF_RD_(MAX_\w+)\s+(.*?)\s*(/\*.*)?$", line)
    if m:
        expr = re.sub(r"\(\s*(size_t|unsigned|int|long|uint64_t|unsigned long long)\s*\)", "", m.group(2))
        expr = re.sub(r"(?<=\d)[uUlL]+\b", "", expr)
        assert re.fullmatch(r"[0-9()<>*+ ]+", expr), "%s: cannot evaluate %r" % (m.group(1), m.group(2))
        c[m.group(1)] = eval(expr)
py = {}
for line in open(limits):
    w = line.split("#", 1)[0].split()
    if w:
        assert len(w) == 2 and w[0] not in py, "mcfleet_limits.txt: %r" % line
        py[w[0]] = int(w[1])
assert len(c) >= 5, "only %d MCF_RD_MAX_* in %s" % (len(c), header)
bad = ["%s: header %s, mcfleet_limits.txt %s" % (k, c.get(k), py.get(k)) for k in sorted(set(c) | set(py))
       if c.get(k) != py.get(k)]
assert not bad, "\n".join(bad)
print("limits agree: " + ", ".join("%s %d" % kv for kv in sorted(c.items())))
PY
if grep -nE '^[^#]*\bMAX_(RANKS|VALUES|COLS|STRING|TEXT)\s*=\s*\(*\s*[0-9]' "$srcdir"/analysis/*.py; then
    fail "a Python copy of the C bounds (above): take them from mcfleet_limits.txt"
fi
# the module reads the file: a copy of analysis/ with another number
cp -r "$srcdir/analysis" "$work/a"
sed 's/^MAX_STRING .*/MAX_STRING 77/' "$srcdir/analysis/mcfleet_limits.txt" >"$work/a/mcfleet_limits.txt"
got=$("$PYTHON_H5" -c "import sys; sys.path.insert(0, sys.argv[1]); import mcfleet_results as m, mcfleet_limits as l; print(l.MAX_STRING, m.MAX_RANKS)" "$work/a") ||
    fail "importing the readers"
[ "$got" = "77 1048576" ] || fail "the readers' bounds ($got) are not the file's"
# a broken install: named, exit 3 (docs/exit-codes.md), no traceback
for broken in missing garbled; do
    if [ $broken = missing ]; then rm "$work/a/mcfleet_limits.txt"; else echo "MAX_RANKS many" >"$work/a/mcfleet_limits.txt"; fi
    rc=0; "$PYTHON_H5" "$work/a/mcfleet_compare.py" x.h5 y.h5 >"$work/o" 2>"$work/e" || rc=$?
    [ $rc = 3 ] && grep -qF "$work/a/mcfleet_limits.txt" "$work/e" && ! grep -q Traceback "$work/e" ||
        { cat "$work/e"; fail "compare with the limits file $broken: exit $rc, expected 3 naming it"; }
done
# the MAD scale (a normal sample's sd per unit of MAD) is src/stats.h's
# MCF_MAD_SCALE; Python's one definition (mcfleet_study_stats, which every
# reader imports) is the same number, and no other module or C file spells it
c=$(sed -n 's/^#define MCF_MAD_SCALE \([0-9.]*\).*/\1/p' "$srcdir/src/stats.h")
p=$("$PYTHON_H5" -c "import sys; sys.path.insert(0, sys.argv[1]); import mcfleet_results as m; print(m.MAD_SCALE)" \
    "$srcdir/analysis") || fail "importing MAD_SCALE"
[ -n "$c" ] && [ "$c" = "$p" ] || fail "MAD scale: src/stats.h $c, Python $p"
if grep -nE '1\.4826 *\*|\* *1\.4826|= *1\.4826' "$srcdir"/src/*.c "$srcdir"/src/*/*.c "$srcdir"/analysis/*.py |
        grep -v 'mcfleet_study_stats.py:[0-9]*:MAD_SCALE = 1.4826'; then
    fail "the MAD scale spelt again (above): use MCF_MAD_SCALE / MAD_SCALE"
fi
echo "limits ok"
