#!/bin/bash
# mcfleet health as a Slurm Prolog or Epilog (docs/operations.md):
#     slurm.conf:  Epilog=/etc/slurm/mcfleet-health.sh   (a copy of this file on each node)
#             or:  Prolog=/etc/slurm/mcfleet-health.sh   (the job waits for it)
# Runs `mcfleet health --drain` on this node (SLURMD_NODENAME): every GPU
# against its own baseline, under a minute. Where a GPU is worse than its
# baseline it drains the node itself with mcfleet's reason ("mcfleet: GPU
# 0000:3b:00.0 matrix-fp64 47% below its baseline") and exits 1: Slurm then
# drains the node anyway (a failed prolog or epilog does), keeping that reason
# where a bare failure would say "Prolog error" (seen on Slurm 22.05), and puts
# a job whose prolog failed back in the queue (held, unless SchedulerParameters
# has nohold_on_prolog_fail).
#
# Exit codes: 0 healthy, or the baseline still building; 1 unhealthy (the node
# drained); 0 as well where mcfleet could not check (exit 2: a bad option or
# deck; 3: no GPU found, the launcher failed, a timeout): said in slurmd's log
# and syslog, the node left in service, so that a broken install does not
# drain the whole cluster; MCFLEET_HEALTH_STRICT=1 makes those exit 1 too.
#
# Settings, from the environment or /etc/mcfleet/health.conf (MCFLEET_HEALTH_CONF):
#   MCFLEET              the mcfleet binary (default: mcfleet on PATH)
#   MCFLEET_HEALTH_ARGS  options for mcfleet health, e.g. "--interval 3600 --history /var/lib/mcfleet/health"
#   MCFLEET_HEALTH_STRICT=1  could not check (2, 3) fails the prolog too
# Run it only on nodes a job holds whole: it measures every GPU of the node.
conf=${MCFLEET_HEALTH_CONF:-/etc/mcfleet/health.conf}
[ -r "$conf" ] && . "$conf"
mcfleet=${MCFLEET:-mcfleet}
PATH=$PATH:/usr/local/bin:/usr/bin:/bin
if [ "$(id -u)" = 0 ]; then   # Slurm runs prologs as root; Open MPI's mpirun refuses root without these
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
say() {   # to slurmd's log (stderr) and syslog
    echo "mcfleet-health: $*" >&2
    command -v logger >/dev/null 2>&1 && logger -t mcfleet-health -- "$*"
    return 0
}
# shellcheck disable=SC2086  # the options are words on purpose
out=$("$mcfleet" health --drain ${MCFLEET_HEALTH_ARGS:-} 2>&1 </dev/null)
rc=$?
first=${out%%$'\n'*}
case $rc in
    0) exit 0 ;;
    1) say "${SLURMD_NODENAME:-this node} unhealthy, drained: $first"
       printf '%s\n' "$out" >&2
       exit 1 ;;
    *) say "${SLURMD_NODENAME:-this node}: mcfleet health exit $rc: $first"
       printf '%s\n' "$out" >&2
       [ "${MCFLEET_HEALTH_STRICT:-0}" = 1 ] && exit 1
       exit 0 ;;
esac
