"""tests/killed_journal.sh: a killed run's file against what it had finished.

usage: journal_check.py FILE FINISHED COMPLETE_OK NTESTS
FINISHED: how many tests had finished when the run was killed (a lower bound:
the progress line of test FINISHED + 1 was printed). Checks that the file holds
at least those, in order, verified on every rank, and that it says how the run
ended: complete = 0 with the test in hand named, or (COMPLETE_OK = 1, the kill
came after the end) complete = 1 with every test of the deck's NTESTS.
"""
import sys

import h5py

path, finished, complete_ok, total = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", int(sys.argv[4])
with h5py.File(path, "r") as f:
    meta = f["/meta"].attrs
    names = list(f["/results"].keys())
    ntests = int(f["/results"].attrs["ntests"])
    order = sorted(names, key=lambda n: int(n.split("=")[1]))
    if len(names) != ntests:
        sys.exit(f"{path}: /results holds {len(names)} tests, ntests says {ntests}")
    if len(names) < finished:
        sys.exit(f"{path}: {len(names)} tests in the file, {finished} had finished before the kill")
    for i, name in enumerate(order):
        if name != f"chase:iterations={3000000 + i}":
            sys.exit(f"{path}: test {i + 1} is {name}: the finished tests are not the first ones")
        ok = f["/results"][name]["verified"][()]
        if i < finished and not ok.all():
            sys.exit(f"{path}: {name} finished before the kill, but verified = {list(ok)}")
        nranks = int(meta["nranks"])
        if len(ok) != nranks or f["/ranks/world_rank"].shape[0] != nranks:
            sys.exit(f"{path}: {name} has {len(ok)} rows, /meta nranks {nranks}")
    complete = int(meta["complete"])
    if complete == 1:
        if not complete_ok or len(names) != total:
            sys.exit(f"{path}: complete = 1 with {len(names)} tests")
    else:
        rebuilt = meta["rebuilt_from"].decode() if "rebuilt_from" in meta else ""
        cut = meta["cut_test"].decode()
        if not rebuilt.endswith(".journal"):
            sys.exit(f"{path}: complete = 0 but not rebuilt from the journal ({rebuilt!r})")
        if len(names) < total and cut != f"chase:iterations={3000000 + len(names)}":
            sys.exit(f"{path}: cut_test {cut!r} after {len(names)} tests")
        if len(f["/meta/tests_not_run_list"]) != total - len(names):
            sys.exit(f"{path}: tests_not_run_list has {len(f['/meta/tests_not_run_list'])} entries")
print(f"{path}: {len(names)} tests, {finished} finished before the kill, complete = {complete}")
