# A private Slurm cluster on this machine, for tests/slurm_launch.sh. Sourced.
#   slurm_up DIR   starts munged, slurmctld and sixteen slurmd (n1..n16) on
#                  localhost, all configured and logging under DIR; sets
#                  SLURM_CONF; returns 77 where Slurm or munge is missing.
#   slurm_down     stops every daemon slurm_up started, by pid.
# The nodes share this host. Each has its own port, spool directory and TmpFS
# (where Slurm's PMIx plugin keeps its per-node server directory), so srun
# --mpi=pmix sees four nodes and Open MPI puts each in its own shared-memory
# domain: MPI_COMM_TYPE_SHARED splits the ranks by Slurm node. Sixteen nodes:
# a batch job (n5, n6) and a job step (n1..n4) run at once, and then one job
# spans all of them (issue 25: a launch across many nodes).

slurm_nodes=16

slurm_pids=()

slurm_have() {
    local b
    for b in munged munge slurmctld slurmd srun sbatch squeue scontrol; do
        command -v "$b" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin" command -v "$b" >/dev/null 2>&1 \
            || { echo "SKIP: $b not found (quickstart.sh installs slurm-wlm and munge)"; return 77; }
    done
    # the daemons find each other as localhost (an installed system's /etc/hosts has it)
    getent hosts localhost >/dev/null 2>&1 || { echo "SKIP: 'localhost' does not resolve (no /etc/hosts entry)"; return 77; }
    compgen -G "/usr/lib/*/slurm-wlm/mpi_pmix*.so" >/dev/null || compgen -G "/usr/lib*/slurm/mpi_pmix*.so" >/dev/null \
        || { echo "SKIP: Slurm's PMIx plugin (mpi_pmix.so) not found"; return 77; }
}

# a base port with base..base+slurm_nodes all free (a cluster from another test run may hold 17000)
slurm_free_base() {
    local base p busy
    for base in 17000 17100 17200 17300 17400 17500; do
        busy=0
        for p in $(seq 0 $slurm_nodes); do
            (exec 3<>"/dev/tcp/127.0.0.1/$((base + p))") 2>/dev/null && { busy=1; break; }
        done
        [ $busy = 0 ] && { echo $base; return 0; }
    done
    return 1
}

slurm_wait() {     # slurm_wait SECONDS CMD...: until CMD succeeds
    local n=$(($1 * 5)); shift
    while ! "$@" >/dev/null 2>&1; do
        n=$((n - 1)); [ $n -gt 0 ] || return 1
        sleep 0.2
    done
}

slurm_pid_of() {   # the pid in a pid file, once the daemon has written it
    slurm_wait 20 test -s "$1" && cat "$1"
}

slurm_up() {
    local d=$1 base user n pid
    PATH="$PATH:/usr/sbin"
    slurm_have || return 77
    # one cluster starts at a time (tests/slurm_launch.sh, tests/health_slurm.sh under make -j):
    # two picking a port range at once would pick the same one
    exec {slurm_lock}>"${TMPDIR:-/tmp}/mcfleet-slurm-start.lock"
    command -v flock >/dev/null 2>&1 && flock -w 600 "$slurm_lock"
    base=$(slurm_free_base) || { echo "no free port range for the test cluster" >&2; return 1; }
    user=$(id -un)
    mkdir -p "$d/munge" "$d/state" && chmod 700 "$d/munge"
    head -c 1024 /dev/urandom >"$d/munge/munge.key" && chmod 600 "$d/munge/munge.key"
    munged -f --socket="$d/munge/sock" --key-file="$d/munge/munge.key" --log-file="$d/munge/log" \
        --pid-file="$d/munge/pid" --seed-file="$d/munge/seed" || { cat "$d/munge/log" >&2; return 1; }
    pid=$(slurm_pid_of "$d/munge/pid") && slurm_pids+=("$pid")
    cat >"$d/slurm.conf" <<EOF
ClusterName=mcfci
SlurmctldHost=localhost
SlurmctldPort=$base
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$d/munge/sock
CredType=cred/munge
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool/%n
TmpFS=$d/tmpfs/%n
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd-%n.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
KillWait=10
MinJobAge=600
InactiveLimit=0
NodeName=n[1-$slurm_nodes] NodeHostname=localhost Port=$((base + 1))-$((base + slurm_nodes)) CPUs=2 Sockets=1 CoresPerSocket=2 ThreadsPerCore=1 RealMemory=1000 State=UNKNOWN
PartitionName=ci Nodes=n[1-$slurm_nodes] Default=YES MaxTime=INFINITE State=UP
EOF
    export SLURM_CONF="$d/slurm.conf"
    slurmctld -f "$SLURM_CONF" || { cat "$d/slurmctld.log" >&2; return 1; }
    pid=$(slurm_pid_of "$d/slurmctld.pid") && slurm_pids+=("$pid")
    for n in $(seq -f 'n%g' 1 $slurm_nodes); do
        mkdir -p "$d/spool/$n" "$d/tmpfs/$n"
        slurmd -f "$SLURM_CONF" -N $n || { cat "$d/slurmd-$n.log" >&2; return 1; }
        pid=$(slurm_pid_of "$d/slurmd-$n.pid") && slurm_pids+=("$pid")
    done
    slurm_wait 60 slurm_all_idle || { sinfo -N >&2; tail -20 "$d/slurmctld.log" >&2; return 1; }
    command -v flock >/dev/null 2>&1 && flock -u "$slurm_lock"   # (the daemons hold the fd: unlocked, not closed)
    return 0
}

slurm_all_idle() {
    [ "$(sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)" = "$slurm_nodes" ]
}

slurm_down() {
    local p
    # jobs first, so that no slurmstepd outlives its slurmd
    if [ ${#slurm_pids[@]} -gt 2 ]; then
        scancel --user="$(id -un)" 2>/dev/null
        slurm_wait 20 test -z "$(squeue -h 2>/dev/null)"
    fi
    for p in "${slurm_pids[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${slurm_pids[@]}"; do
        slurm_wait 10 eval "! kill -0 $p" || kill -9 "$p" 2>/dev/null
    done
    slurm_pids=()
}
