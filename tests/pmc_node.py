#!/usr/bin/env python3
"""Plays an HPE Cray node's /sys/cray/pm_counters in DIR for SECONDS: accel0
draws WATTS, its energy counter integrates that, and freshness changes with
every update (every 50 ms, like raw_scan_hz = 20). Values are written before
freshness, as the firmware does, so readers can see torn reads.
usage: pmc_node.py DIR SECONDS WATTS"""
import os
import sys
import time

d, seconds, watts = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
os.makedirs(d, exist_ok=True)


def put(name, text):
    tmp = os.path.join(d, "." + name)
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, os.path.join(d, name))


put("generation", "3\n")
put("startup", "1763000000\n")
put("raw_scan_hz", "20\n")
t0 = time.monotonic()
fresh = 0
while True:
    now = time.monotonic()
    us = int(now * 1e6)
    put("power", "%d W %d us\n" % (watts + 250, us))
    put("energy", "%d J %d us\n" % ((watts + 250) * (now - t0), us))
    put("accel0_power", "%d W %d us\n" % (watts, us))
    put("accel0_energy", "%d J %d us\n" % (watts * (now - t0), us))
    fresh += 1
    put("freshness", "%d\n" % fresh)
    if now - t0 > seconds:
        break
    time.sleep(0.05)
