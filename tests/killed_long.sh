#!/bin/sh
# Stopping a run through mpirun in a repetition that would last for hours:
# each stop signal (SIGTERM, SIGINT, SIGUSR1, SIGUSR2) cuts the repetition in
# hand, and the ranks write what was measured (complete = 0, the test cut not
# run). tests/killed_hogs.sh stops it again beside CPU hogs, killed_run.sh
# elsewhere (one test until 2026-11-27, split so that each stays under 90 s).
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
. "$srcdir/tests/stop_lib.sh"

for sig in TERM INT USR1 USR2; do long $sig idle; done
echo "long stops ok"
