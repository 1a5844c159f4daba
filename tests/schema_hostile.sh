#!/bin/sh
# A results file whose schema (/meta/families) is broken: too many keys, a
# key repeated, a list that is no string, an amount that is no key, a
# group that is a dataset, a test of a family the schema lacks, too many
# families. mcfleet report is exit 2 naming the object; compare and baseline,
# which read a file's tests through the report, are exit 2 naming the file
# and the object, never a traceback and never a comparison by a schema they
# could not read. An implied value naming no key is only a value.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
mpi 2 --backend host --quick --deck "$srcdir/tests/data/history/deck.yaml" -o "$work/run.h5"
expect_rc 0
"$PYTHON_H5" - "$work" <<'PY' || fail "making the broken files"
import shutil, sys, h5py, numpy as np
w = sys.argv[1]
cases = {
    "toolong": ("/meta/families/matrix attribute keys", lambda f: f["meta/families/matrix"].attrs.__setitem__(
        "keys", np.bytes_(",".join("k%d" % i for i in range(40))))),
    "repeat": ("/meta/families/valu attribute keys", lambda f: f["meta/families/valu"].attrs.__setitem__(
        "keys", np.bytes_("dtype,dtype"))),
    "intkeys": ("/meta/families/valu attribute keys", lambda f: f["meta/families/valu"].attrs.__setitem__(
        "keys", np.int64(5))),
    "amount": ("/meta/families/valu attribute amounts", lambda f: f["meta/families/valu"].attrs.__setitem__(
        "amounts", np.bytes_("nothere"))),
    "dataset": ("/meta/families: is a dataset", lambda f: (f["meta"].__delitem__("families"),
                                                           f["meta"].create_dataset("families", data=[1, 2]))),
    "nofamily": ("/results/valu-fp64 attribute kernel", lambda f: f["meta/families"].__delitem__("valu")),
    "many": ("/meta/families: holds more than 32 families", lambda f: [f["meta/families"].create_group("f%d" % i)
                                                                       for i in range(40)]),
}
with open(w + "/cases", "w") as out:
    for name, (obj, fn) in cases.items():
        shutil.copy(w + "/run.h5", "%s/%s.h5" % (w, name))
        with h5py.File("%s/%s.h5" % (w, name), "r+") as f:
            fn(f)
        out.write("%s|%s\n" % (name, obj))
PY
while IFS='|' read -r name obj; do
    f="$work/$name.h5"
    rc=0; "$MCFLEET" report "$f" >"$work/r" 2>&1 || rc=$?
    [ $rc = 2 ] && grep -qF "$obj" "$work/r" || { cat "$work/r"; fail "$name: report exit $rc, expected 2 naming $obj"; }
    for cmd in compare baseline; do
        rc=0
        if [ $cmd = compare ]; then "$MCFLEET" compare "$work/run.h5" "$f" >"$work/c" 2>&1 || rc=$?
        else "$MCFLEET" baseline "$work/run.h5" "$f" --allow-quick -o "$work/b-$name.yaml" >"$work/c" 2>&1 || rc=$?; fi
        [ $rc = 2 ] && grep -qF "$f: what its tests measured cannot be read: $obj" "$work/c" && ! grep -q Traceback "$work/c" ||
            { cat "$work/c"; fail "$name: $cmd exit $rc, expected 2 naming the file and $obj"; }
    done
done <"$work/cases"
echo "a broken schema: named, exit 2, by report, compare and baseline"
