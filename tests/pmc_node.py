#!/usr/bin/env python3
"""Plays an HPE Cray node's /sys/cray/pm_counters in DIR for SECONDS: accel0
draws WATTS, its energy counter integrates that, and freshness changes with
every update (every 50 ms, like raw_scan_hz = 20). Values are written before
freshness, as the firmware does, so readers can see torn reads.

The updates are due on a fixed 50 ms schedule, but this is a process like any
other: on a loaded machine an update comes late (a scheduled slot missed is
skipped, as a scan would be), so the real cadence may be longer. Each update's
stamp is what was written, and with LOG every update is appended there as
"freshness stamp_us accel0_energy_j", so a test can compare what mcfleet
measured with what the node did rather than with what it was asked to do.
usage: pmc_node.py DIR SECONDS WATTS [LOG]"""
import os
import sys
import time

d, seconds, watts = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
log = open(sys.argv[4], "w", buffering=1) if len(sys.argv) > 4 else None
os.makedirs(d, exist_ok=True)
PERIOD = 0.05


def put(name, text):
    tmp = os.path.join(d, "." + name)
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, os.path.join(d, name))


put("generation", "3\n")
put("startup", "1763000000\n")
put("raw_scan_hz", "20\n")
t0 = time.monotonic()
due = t0
fresh = 0
while True:
    now = time.monotonic()
    us = int(now * 1e6)
    accel_j = int(watts * (now - t0))
    fresh += 1
    if log:   # before the files: a reading never shows an update the log lacks
        log.write("%d %d %d\n" % (fresh, us, accel_j))
    put("power", "%d W %d us\n" % (watts + 250, us))
    put("energy", "%d J %d us\n" % ((watts + 250) * (now - t0), us))
    put("accel0_power", "%d W %d us\n" % (watts, us))
    put("accel0_energy", "%d J %d us\n" % (accel_j, us))
    put("freshness", "%d\n" % fresh)
    if now - t0 > seconds:
        break
    due += PERIOD
    late = time.monotonic() - due
    if late > 0:   # missed slots are skipped, not caught up in a burst
        due += PERIOD * (int(late / PERIOD) + 1)
    time.sleep(max(0.0, due - time.monotonic()))
