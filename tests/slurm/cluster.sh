#!/bin/sh
# `make test-slurm`: a one-node Slurm cluster on this machine, and the tests of
# tests/slurm run against it.
#
#   sh tests/slurm/cluster.sh [R_CMD [RSCRIPT [SCRIPT]]]
#
# With SCRIPT (an R script, relative to the checkout, e.g. bench/slurm.R)
# the cluster runs it instead of the tests.
#
# 1. installs this checkout into a temporary library (the jobs load it from
#    there: R_LIBS travels with each job, sbatch exports the environment);
# 2. writes a cluster configuration for this machine into a temporary folder:
#    its CPUs and memory, a GPU as a generic resource (gres) for each one
#    nvidia-smi lists, its own munge key, socket, ports, spool and logs, so
#    nothing of a system-wide Slurm or munge is read or changed;
# 3. starts munged, slurmctld and slurmd in the foreground as children of
#    this script (each in a session of its own, out of reach of a Ctrl-C
#    meant for the tests), waits until the node is idle, runs
#    tests/slurm/run-tests.R;
# 4. prints the jobs the scheduler completed (its job completion log) as
#    "jobs completed by Slurm: N", stops the daemons by their process ids
#    (also when a test or this script fails: trap), and prints
#    "N passed, N failed, N skipped" last.  Exit status 1 when a test failed.
#
# Needs root (slurmd runs jobs as their submitter; munged, slurmctld and
# slurmd as root need no users or folders of their own) and the Debian
# packages slurm-wlm, munge and r-cran-future.batchtools (`make test-slurm`
# installs them).  STATPHYSGPU_SLURM_KEEP=1 keeps the temporary folder (its
# path is printed) for a look at the logs.

R_CMD=${1:-R}
RSCRIPT=${2:-Rscript}
SCRIPT=${3:-}
PATH="$PATH:/usr/sbin:/sbin"
export PATH

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
start_time=$(date +%s)

say() { echo "test-slurm: $*"; }
totals() { echo "$1 passed, $2 failed, $3 skipped"; }
die() { say "$*"; finish 1; }

# --- daemons, stopped by pid ---------------------------------------------
pids=""
work=""
stop_daemons() {
  # jobs still on this cluster (a test stopped early): cancel them, so that
  # slurmd leaves no job step behind
  if [ -n "$pids" ] && [ -n "${SLURM_CONF:-}" ]; then
    left=$(squeue -h -o %i 2>/dev/null)
    if [ -n "$left" ]; then
      say "cancelling the jobs left: $(echo "$left" | tr '\n' ' ')"
      # shellcheck disable=SC2086
      scancel $left 2>/dev/null
      i=0
      while [ -n "$(squeue -h -o %i 2>/dev/null)" ] && [ $i -lt 60 ]; do sleep 0.5; i=$((i + 1)); done
    fi
  fi
  # the reverse order of their start: slurmd, slurmctld, munged
  rev=""
  for p in $pids; do rev="$p $rev"; done
  for p in $rev; do
    kill -TERM "$p" 2>/dev/null
    i=0
    while kill -0 "$p" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    if kill -0 "$p" 2>/dev/null; then
      say "process $p did not stop within 10 s of SIGTERM: SIGKILL"
      kill -KILL "$p" 2>/dev/null
    fi
    wait "$p" 2>/dev/null
  done
  pids=""
}
finished=0
finish() {
  [ $finished = 1 ] && return
  finished=1
  stop_daemons
  if [ -n "$work" ] && [ -d "$work" ]; then
    if [ "${STATPHYSGPU_SLURM_KEEP:-0}" = 1 ]; then
      say "kept $work"
    else
      rm -rf "$work"
    fi
  fi
  say "took $(( $(date +%s) - start_time )) s"
  rc=$1
  if [ -z "${totals_line:-}" ]; then totals_line=$(totals 0 1 0); rc=1; fi
  echo "$totals_line"
  exit "$rc"
}
trap 'finish 1' INT TERM HUP
trap 'finish $?' EXIT

[ "$(id -u)" = 0 ] || die "needs root: slurmd runs the test jobs as their submitter and munged, slurmctld and slurmd run as root here"
for cmd in munged slurmctld slurmd sbatch squeue sinfo scontrol scancel; do
  command -v "$cmd" >/dev/null 2>&1 || die "$cmd not found: install the Debian packages slurm-wlm and munge (make test-slurm does)"
done
"$RSCRIPT" --vanilla -e 'quit(status = !all(c("batchtools", "future.batchtools", "future.apply", "testthat") %in% rownames(installed.packages())))' \
  || die "the R packages batchtools, future.batchtools, future.apply and testthat are needed (Debian: r-cran-future.batchtools)"

work=$(mktemp -d "${TMPDIR:-/tmp}/statphysgpu-slurm.XXXXXX") || die "mktemp failed"
chmod 0755 "$work"
mkdir -p "$work/lib" "$work/etc" "$work/munge" "$work/state" "$work/spool" "$work/log" \
  "$work/run"

# --- the package under test ------------------------------------------------
say "installing $(sed -n 's/^Package: *//p' "$root/DESCRIPTION") from $root into $work/lib"
MAKEFLAGS="${MAKEFLAGS:--j$(nproc 2>/dev/null || echo 2)}" \
  "$R_CMD" CMD INSTALL --preclean --no-test-load --library="$work/lib" "$root" > "$work/log/install.log" 2>&1 \
  || { tail -n 30 "$work/log/install.log"; die "the package failed to install"; }

# --- configuration ----------------------------------------------------------
host=$(hostname -s 2>/dev/null || uname -n | cut -d. -f1)
cpus=$(nproc 2>/dev/null || echo 1)
# the memory slurmd finds (MB); the node is declared with it, so it never drains
mem=$(slurmd -C 2>/dev/null | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' | head -n 1)
[ -n "$mem" ] || mem=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)
[ -n "$mem" ] || die "cannot tell this machine's memory"

# a port no process listens on (from /proc/net/tcp*, hexadecimal)
port_free() {
  hex=$(printf ':%04X ' "$1")
  ! cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | grep -q "$hex"
}
port=${STATPHYSGPU_SLURM_PORT:-6817}
while ! { port_free "$port" && port_free $((port + 1)); }; do port=$((port + 2)); done

gres_node=""
gres_types=""
ngpu=0
if command -v nvidia-smi >/dev/null 2>&1; then
  # device files /dev/nvidia<minor number> of the GPUs nvidia-smi lists
  for minor in $(nvidia-smi --query-gpu=minor_number --format=csv,noheader 2>/dev/null); do
    if [ -e "/dev/nvidia$minor" ]; then
      echo "NodeName=$host Name=gpu File=/dev/nvidia$minor" >> "$work/etc/gres.conf"
      ngpu=$((ngpu + 1))
    fi
  done
fi
if [ $ngpu -gt 0 ]; then
  gres_node=" Gres=gpu:$ngpu"
  gres_types="GresTypes=gpu"
fi

cat > "$work/etc/slurm.conf" <<EOF
# written by tests/slurm/cluster.sh for one test run
ClusterName=statphysgpu
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.socket.2
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/run/slurmctld.pid
SlurmdPidFile=$work/run/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# no systemd and no cgroups here
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$work/log/jobcomp.log
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
# start a job as soon as it is submitted or a CPU frees
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0,bf_interval=1
# kill a job at its limit (no grace beyond KillWait)
KillWait=5
OverTimeLimit=0
InactiveLimit=0
# keep finished jobs in scontrol for the tests to read their state and reason
MinJobAge=600
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
MessageTimeout=10
# the node as declared here, whatever slurmd counts (no drain for "low memory")
SlurmdParameters=config_overrides
$gres_types
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem$gres_node State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
[ $ngpu -gt 0 ] || : > "$work/etc/gres.conf"
# slurmd reads cgroup.conf only with cgroup plugins; an empty one silences a warning
: > "$work/etc/cgroup.conf"
SLURM_CONF="$work/etc/slurm.conf"
export SLURM_CONF
say "node $host: $cpus CPUs, $mem MB, $ngpu GPUs; ports $port, $((port + 1)); config $SLURM_CONF"

# --- daemons ------------------------------------------------------------------
# a fresh munge key for this cluster only
if command -v mungekey >/dev/null 2>&1; then
  mungekey --create --keyfile="$work/munge/munge.key" > /dev/null 2>&1 || die "mungekey failed"
else
  dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 2>/dev/null || die "cannot write a munge key"
fi
chmod 0400 "$work/munge/munge.key"
chmod 0700 "$work/munge"

# Each daemon runs in the foreground, as a child of this script, in a session
# of its own (setsid execs it: no fork, so $! is the daemon's pid), so that a
# Ctrl-C at the terminal reaches the tests but not the daemons: the trap
# then cancels the jobs left while slurmctld still answers, and stops the
# daemons by their pids.
detach=""
command -v setsid >/dev/null 2>&1 && detach=setsid
$detach munged --foreground --force --socket="$work/munge/munge.socket.2" \
  --key-file="$work/munge/munge.key" --pid-file="$work/run/munged.pid" \
  --log-file="$work/log/munged.log" --seed-file="$work/munge/munged.seed" \
  > "$work/log/munged.out" 2>&1 &
pids="$pids $!"
i=0
while [ ! -S "$work/munge/munge.socket.2" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -S "$work/munge/munge.socket.2" ] || { cat "$work/log/munged.out" "$work/log/munged.log" 2>/dev/null; die "munged did not start"; }

$detach slurmctld -D -i -f "$SLURM_CONF" > "$work/log/slurmctld.out" 2>&1 &
pids="$pids $!"
$detach slurmd -D -f "$SLURM_CONF" -N "$host" > "$work/log/slurmd.out" 2>&1 &
pids="$pids $!"

# wait until the node is idle (at most 60 s)
i=0
state=""
while [ $i -lt 120 ]; do
  state=$(sinfo -h -N -n "$host" -o %T 2>/dev/null | head -n 1)
  [ "$state" = idle ] && break
  sleep 0.5
  i=$((i + 1))
done
if [ "$state" != idle ]; then
  for f in slurmctld.out slurmctld.log slurmd.out slurmd.log; do
    echo "--- $f"; tail -n 20 "$work/log/$f" 2>/dev/null
  done
  die "the node did not become idle within 60 s (state: ${state:-none})"
fi
# the daemons' own pid files name the processes started above; a daemon
# that forked anyway is stopped by the pid it wrote too
for d in munged slurmctld slurmd; do
  p=$(cat "$work/run/$d.pid" 2>/dev/null)
  case " $pids " in
    *" $p "*) ;;
    *) [ -n "$p" ] && { say "$d runs as pid $p, not a child of this script: stopped by that pid"; pids="$pids $p"; } ;;
  esac
done
say "cluster up after $(( $(date +%s) - start_time )) s: $(sinfo -h -o '%P %a %D %T %C')"

# --- the tests -------------------------------------------------------------
# batchtools lists a user's jobs with squeue --user=$USER: with USER empty
# (as in CI) every job would look expired
USER=${USER:-$(id -un)}
LOGNAME=${LOGNAME:-$USER}
export USER LOGNAME
if [ -n "$SCRIPT" ]; then
  say "running $SCRIPT"
  if (cd "$root" && R_LIBS="$work/lib" STATPHYSGPU_SLURM_WORK="$work" STATPHYSGPU_SLURM_GPUS="$ngpu" \
        "$RSCRIPT" --vanilla "$SCRIPT"); then
    totals 0 0 0 > "$work/totals"
  fi
else
  (cd "$here" && R_LIBS="$work/lib" STATPHYSGPU_SLURM_WORK="$work" STATPHYSGPU_SLURM_GPUS="$ngpu" \
     "$RSCRIPT" --vanilla run-tests.R "$work/totals") 2>&1 | tee "$work/log/tests.log"
fi
if [ -s "$work/totals" ]; then
  totals_line=$(tail -n 1 "$work/totals")
else
  totals_line=$(totals 0 1 0)
  say "the tests left no totals (R failed before the end)"
fi

completed=$(grep -c "JobState=COMPLETED" "$work/log/jobcomp.log" 2>/dev/null)
others=$(grep -v "JobState=COMPLETED" "$work/log/jobcomp.log" 2>/dev/null | \
  sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | sort | uniq -c | awk '{ printf "%s%s %s", sep, $1, $2; sep = ", " }')
[ -n "$others" ] && say "jobs that ended otherwise: $others"
echo "jobs completed by Slurm: ${completed:-0}"
failed=$(echo "$totals_line" | sed -n 's/^[0-9]* passed, \([0-9]*\) failed.*/\1/p')
if [ "${failed:-1}" = 0 ]; then finish 0; else finish 1; fi
