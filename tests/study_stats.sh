#!/bin/sh
# The study's statistics (analysis/mcfleet_study_stats.py) against planted
# truths: nested components recovered within their intervals (balanced and
# unbalanced designs), a zero component, merged and dropped levels, the time
# for 100,000 observations; classes (3 clusters give 3, noise gives 1, close
# clusters merge, a broken GPU is its own class); Spearman, Theil-Sen, the
# groups that stand out, trends and the ICC (tests/study_stats.py).
. "$srcdir/tests/lib.sh"
"${PYTHON_H5:-/usr/bin/python3}" -c 'import numpy' 2>/dev/null || { echo "SKIP: no numpy"; exit $SKIP; }
"${PYTHON_H5:-/usr/bin/python3}" "$srcdir/tests/study_stats.py" "$srcdir/analysis" || fail "study statistics"
