#!/bin/sh
# tests/killed_long.sh's stops beside CPU hogs (a busy loop per core): a stop
# must not depend on an idle machine. SIGTERM three times (the launcher's
# SIGKILL comes odls_base_sigkill_timeout after it: the race that load can
# lose), SIGINT once; each cuts the repetition of hours in hand, and the ranks
# write what was measured.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
. "$srcdir/tests/stop_lib.sh"

hog
for round in 1 2 3; do long TERM "CPU hogs, round $round"; done
long INT "CPU hogs"   # the hogs end with the test (stop_lib.sh's trap)
echo "stops beside CPU hogs ok"
