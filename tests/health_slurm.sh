#!/bin/bash
# The operations exports and the health mode under a real Slurm (sixteen
# slurmd on this machine, tests/slurm_cluster.sh; docs/operations.md):
# (a) the study fixture's classes: `mcfleet export --slurm-update` commands
#     take effect at once and are gone after `scontrol reconfigure` (Slurm
#     22.05 keeps scontrol's weights only until then); the site's slurm.conf
#     merged by `--slurm-conf` (n[1-16] split around n1..n4, the per-node
#     Port list with it) is accepted by `scontrol reconfigure`, every node
#     still answers, and n1..n4 show the Weight and Features of their class
#     while n5..n16 keep theirs; a second export of the merged file changes
#     nothing.
# (b) mcfleet health on node n3 (SLURMD_NODENAME, as Slurm sets it; host
#     backend, 2 ranks, the default mpirun launcher): the baseline builds over
#     3 runs (exit 0, said), then with rank 1's matrix-fp64 made 64 times
#     slower it exits 1, the first line naming that GPU and test, and --drain
#     leaves n3 DRAINED with that reason ("mcfleet: GPU ...#local1
#     matrix-fp64 ...% below its baseline"), the run kept in failed/ and not in
#     the baseline; n4, with a baseline of its own and no slowness, is not
#     drained (exit 0), through --launcher.
# (c) check_mcfleet (jobscripts/check_mcfleet.nhc) in a minimal stand-in of
#     NHC (its die and log) calls die with mcfleet's reason for the slow GPU,
#     and not at all for a healthy check.
# (d) jobscripts/mcfleet-health.sh as the cluster's Prolog: a job on n5 with
#     the slow GPU fails its prolog and n5 is drained with mcfleet's reason
#     (not Slurm's bare "Prolog error").
# (e) `mcfleet export RUN.h5 --drain` of a run whose rank 1 on n6 computed a
#     wrong result drains n6 with "mcfleet: GPU ...#local1 tiny-triad FAIL
#     wrong results" and says so (exit 1).
# A generous threshold (--threshold 0.9 against a 64-fold slowdown, -98 %; the
# host deck has rates only): the host backend's repetitions spread 12-24 % on
# a loaded machine and its ranks share the cores with whatever else runs
# (another test's 16 ranks), so only a slowdown no load makes is judged.
# Skips (77) where Slurm or munge is missing; stops its daemons by pid.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
. "$srcdir/tests/slurm_cluster.sh"
trap 'slurm_down; rm -rf "$work"' EXIT
slurm_up "$work/slurm" || { st=$?; [ $st = 77 ] && exit 77; fail "the test cluster did not start"; }
cd "$work"
study="$srcdir/tests/data/study-fixture.json"
node_line() { scontrol show node "$1" -o; }
has() {   # has NODE TEXT: scontrol's line for NODE holds TEXT
    node_line "$1" | grep -qF -- "$2" || { node_line "$1"; fail "$1: '$2' not in scontrol show node"; }
}

# ---- (a) Slurm lines
"$MCFLEET" export --study "$study" --slurm-update >update.sh 2>err || { cat err; fail "--slurm-update"; }
grep -q "^scontrol update NodeName=n3 Weight=33 AvailableFeatures=mcf_matrix_B,mcf_memory_A " update.sh ||
    { cat update.sh; fail "the update command of n3"; }
bash -e update.sh || fail "scontrol update refused the commands"
has n3 "AvailableFeatures=mcf_matrix_B,mcf_memory_A" && has n3 "Weight=33 "
scontrol reconfigure || fail "scontrol reconfigure of the original slurm.conf"
slurm_wait 20 eval 'node_line n3 | grep -q "Weight=1 "' || { node_line n3; fail "scontrol's weight outlived reconfigure"; }
cp "$SLURM_CONF" site.conf
"$MCFLEET" export --study "$study" --slurm-conf site.conf --slurm merged.conf 2>err || { cat err; fail "--slurm"; }
grep '^NodeName' merged.conf
[ "$(grep -c '^NodeName=' merged.conf)" = 5 ] || fail "expected n1, n2, n3, n4 and n[5-16] on their own lines"
grep -q '^NodeName=n\[5-16\] .*Port=[0-9]*-[0-9]*$' merged.conf || fail "n[5-16] and its port range"
cp merged.conf "$SLURM_CONF"
scontrol reconfigure || { tail -5 "$work/slurm/slurmctld.log"; fail "scontrol reconfigure refused the merged slurm.conf"; }
for spec in "n1 1 mcf_matrix_A,mcf_memory_A" "n2 44 mcf_matrix_A,mcf_memory_B" "n3 33 mcf_matrix_B,mcf_memory_A" \
            "n4 68 mcf_matrix_C,mcf_memory_A"; do
    set -- $spec
    slurm_wait 20 eval "node_line $1 | grep -q 'Weight=$2 '" || { node_line "$1"; fail "$1: Weight=$2 not seen"; }
    has "$1" "AvailableFeatures=$3 " && has "$1" "ActiveFeatures=$3 "
done
has n9 "Weight=1 " && has n9 "AvailableFeatures=(null)"
slurm_wait 30 slurm_all_idle || { sinfo -N; fail "not every node idle after the reconfigure"; }
"$MCFLEET" export --study "$study" --slurm-conf merged.conf --slurm again.conf 2>err || { cat err; fail "again"; }
cmp -s merged.conf again.conf || { diff merged.conf again.conf; fail "a second export changed the merged file"; }

# ---- (b) health on n3, then n4
H="$work/hist"
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_hwloc_base_binding_policy=none OMPI_MCA_mpi_yield_when_idle=1
health() {   # health ARGS...: mcfleet health on 2 host ranks; output in health.out, exit code in $rc
    rc=0
    "$MCFLEET" health --history "$H" --np 2 --deck health-host.yaml --threshold 0.9 "$@" -- --backend host \
        >health.out 2>&1 || rc=$?
}
for i in 1 2 3; do
    SLURMD_NODENAME=n3 health
    [ $rc = 0 ] || { cat health.out; fail "baseline run $i: exit $rc"; }
done
expect_in health.out "baseline building: 2 of 3 runs"
[ "$(ls "$H"/n3/baseline/*.h5 | wc -l)" = 3 ] || fail "3 runs expected in the baseline"
export MCFLEET_INJECT_SLOW='matrix-fp64@1' MCFLEET_INJECT_SLOW_FACTOR=64
SLURMD_NODENAME=n3 health --drain
[ $rc = 1 ] || { cat health.out; fail "health with a slow GPU: exit $rc, expected 1"; }
head -1 health.out | grep -qE '^mcfleet: GPU machine-id:[0-9a-f]+#local1 matrix-fp64 9[0-9]% below its baseline$' ||
    { cat health.out; fail "the summary line"; }
slurm_wait 20 eval 'node_line n3 | grep -q "State=[A-Z]*+DRAIN"' || { node_line n3; fail "n3 not drained"; }
node_line n3 | grep -qE 'Reason=mcfleet: GPU machine-id:[0-9a-f]+#local1 matrix-fp64 [0-9]+% below its baseline' ||
    { node_line n3; fail "n3's reason"; }
[ "$(ls "$H"/n3/baseline/*.h5 | wc -l)" = 3 ] && [ "$(ls "$H"/n3/failed/*.h5 | wc -l)" = 1 ] ||
    fail "the unhealthy run must be kept aside in failed/, not in the baseline"
unset MCFLEET_INJECT_SLOW MCFLEET_INJECT_SLOW_FACTOR
for n in n4 n5; do   # each node's own baseline (a copy of n3's runs would be another node's: moved aside)
    for i in 1 2 3; do
        SLURMD_NODENAME=$n health
        [ $rc = 0 ] || { cat health.out; fail "$n's baseline run $i: exit $rc"; }
    done
done
rc=0
"$MCFLEET" health --history "$H" --node n4 --np 2 --deck health-host.yaml --threshold 0.9 --drain \
    --launcher 'mpirun -np {np} --oversubscribe' -- --backend host >health.out 2>&1 || rc=$?
[ $rc = 0 ] || { cat health.out; fail "healthy n4: exit $rc"; }
head -1 health.out | grep -q "^mcfleet: healthy: 2 GPUs" || { cat health.out; fail "n4's summary"; }
node_line n4 | grep -q "DRAIN" && { node_line n4; fail "healthy n4 was drained"; }

# ---- (c) check_mcfleet in a stand-in NHC
nhc() {   # nhc: runs check_mcfleet as NHC would; what die got in died (empty: it passed)
    : >died
    (
        die() { shift; printf '%s\n' "$*" >>died; return 1; }
        log() { :; }
        MCFLEET_NHC_BIN=$MCFLEET
        . "$srcdir/jobscripts/check_mcfleet.nhc"
        check_mcfleet -a "--history $H --np 2 --deck health-host.yaml --threshold 0.9" -- -- --backend host
    ) && rc=0 || rc=$?
}
SLURMD_NODENAME=n4 nhc
[ $rc = 0 ] && [ ! -s died ] || { cat died; fail "check_mcfleet on healthy n4: rc $rc"; }
MCFLEET_INJECT_SLOW='matrix-fp64@1' MCFLEET_INJECT_SLOW_FACTOR=64 SLURMD_NODENAME=n4 nhc
[ $rc = 1 ] || fail "check_mcfleet with a slow GPU returned $rc"
grep -qE '^mcfleet: GPU machine-id:[0-9a-f]+#local1 matrix-fp64 [0-9]+% below its baseline$' died ||
    { cat died; fail "die's message"; }

# ---- (d) the prolog
cat >prolog.sh <<SH
#!/bin/bash
export PATH="$PATH" MCFLEET="$MCFLEET" OMPI_MCA_btl=self,vader,tcp OMPI_MCA_hwloc_base_binding_policy=none
export OMPI_MCA_rmaps_base_oversubscribe=1 MCFLEET_HEALTH_CONF=/nonexistent
export MCFLEET_INJECT_SLOW='matrix-fp64@1' MCFLEET_INJECT_SLOW_FACTOR=64
export MCFLEET_HEALTH_ARGS="--history $H --np 2 --deck health-host.yaml --threshold 0.9 -- --backend host"
exec bash "$srcdir/jobscripts/mcfleet-health.sh" 2>>"$work/prolog.err"
SH
chmod +x prolog.sh
echo "Prolog=$work/prolog.sh" >>"$SLURM_CONF"
scontrol reconfigure || fail "reconfigure with the prolog"
sleep 1
rc=0; timeout 120 srun -w n5 -t 2 true >srun.out 2>&1 || rc=$?
[ $rc != 0 ] || { cat srun.out; fail "the job ran on n5: its prolog did not fail"; }
slurm_wait 30 eval 'node_line n5 | grep -q "State=[A-Z]*+DRAIN"' || { node_line n5; cat prolog.err; fail "n5 not drained"; }
node_line n5 | grep -qE 'Reason=mcfleet: GPU machine-id:[0-9a-f]+#local1 matrix-fp64 [0-9]+% below its baseline' ||
    { node_line n5; cat prolog.err; fail "n5's reason"; }

# ---- (e) mcfleet export --drain of a run with a wrong result on n6
MCFLEET_INJECT_FAULT='tiny-triad@1' SLURMD_NODENAME=n6 mpi 2 --backend host --deck "$srcdir/tests/decks/tiny.yaml" -o bad.h5
expect_rc 1
rc=0; "$MCFLEET" export bad.h5 --drain >drain.out 2>&1 || rc=$?
[ $rc = 1 ] || { cat drain.out; fail "export --drain of a FAIL: exit $rc, expected 1"; }
expect_in drain.out "drained n6: scontrol update NodeName=n6 State=DRAIN"
slurm_wait 20 eval 'node_line n6 | grep -q "State=[A-Z]*+DRAIN"' || { node_line n6; fail "n6 not drained"; }
node_line n6 | grep -qE 'Reason=mcfleet: GPU machine-id:[0-9a-f]+#local1 tiny-triad FAIL wrong results' ||
    { node_line n6; fail "n6's reason"; }
echo "health slurm ok"
