#!/bin/sh
# Node names and host lists, as an attacker and an operator would try them
# (tests/export_hostile.py; docs/operations.md, "Node names"): every hostile
# name refused with exit 2 naming its file and line, nothing written or run,
# by export (--slurm-update, --slurm, --slurm-conf, --prom DIR,
# --drain-lines, --drain) and health --drain; lines for a shell that carry
# hostile data reach scontrol as the words meant; range files refused or
# answered in under 1 s and 50 MB; export's output paths under the output
# rule. Then through the binary: a study table's hostile host cell, said by
# the study (text, JSON, page) with its table line, and named with it by export.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
cd "$work"
MCFLEET_INJECT_FAULT='tiny-triad@1' SLURMD_NODENAME=n3 mpi 2 --backend host --deck "$srcdir/tests/decks/tiny.yaml" -o bad.h5
expect_rc 1
MCFLEET_BIN="$MCFLEET" "$PYTHON_H5" "$srcdir/tests/export_hostile.py" "$srcdir/analysis" "$work" "$work/bad.h5" \
    "$srcdir/tests/data/study-fixture.json" || fail "hostile names and host lists"

# a study table's host cell: the study says it (and where), export names the table's line too
printf 'gpu,test,value,host\nA,t,1,n1\nB,t,1.1,n1\nC,t,1.2,%s\nD,t,1,%s\n' 'n2;touch CANARY' 'n2;touch CANARY' >t.csv
"$MCFLEET" study t.csv --boot 20 >text 2>err || { cat err; fail "study of a table with a hostile host"; }
expect_in text "1 node name Slurm cannot take (mcfleet export refuses it): 'n2;touch CANARY' from t.csv:4: it holds ';'"
"$MCFLEET" study t.csv --boot 20 --format json -o t.json 2>err || { cat err; fail "study --format json"; }
if "$PYTHON_H5" -c 'import matplotlib' 2>/dev/null; then   # the page tells the same
    "$MCFLEET" study t.csv --boot 20 --html t.html >/dev/null 2>err || { cat err; fail "study --html"; }
    expect_in t.html "1 node name Slurm cannot take (mcfleet export refuses it): &#x27;n2;touch CANARY&#x27; from t.csv:4"
fi
rc=0; "$MCFLEET" export --study t.json --slurm-update >out 2>err || rc=$?
[ $rc = 2 ] && [ ! -s out ] || { cat out err; fail "export of the study: exit $rc, expected 2 and no output"; }
grep -q "^mcfleet export: t.json:[0-9]* (from t.csv:4): node name 'n2;touch CANARY' refused: it holds ';'" err ||
    { cat err; fail "export does not name the study's line and the table's"; }
[ ! -e CANARY ] || fail "a shell ran a node name"
echo "export hostile ok"
