#!/usr/bin/env bash
# A real Slurm run of an example sweep: starts munged, slurmctld and slurmd as a one-node cluster of its own (its
# own configuration, ports, spool and state under a temporary folder; nothing system-wide is touched), submits the
# sweep as an array job through experiments/slurm/sweep.sbatch, merges the shards with `lynxsim merge`, and checks
# the result equals, file for file, the same sweep run locally. Exit 77 (skipped) with the reason when Slurm is not
# installed or cannot start here (no root, daemons refused); any other failure is a test failure.
#   slurm_sweep.sh LYNXSIM EXPERIMENT [SHARDS]
set -euo pipefail
lynxsim=$(realpath "$1")
experiment=$(realpath "$2")
shards=${3:-2}
repo=$(cd "$(dirname "$0")/../.." && pwd)
skip() { echo "SKIPPED: $*"; exit 77; }

for tool in munged slurmctld slurmd sbatch squeue sinfo scontrol; do
  command -v "$tool" >/dev/null 2>&1 || skip "Slurm is not installed ($tool missing; scripts/install-deps.sh installs slurmctld, slurmd, slurm-client and munge)"
done
[ "$(id -u)" -eq 0 ] || skip "starting slurmctld/slurmd/munged for a test needs root here (running as uid $(id -u))"

tmp=$(mktemp -d /tmp/lynx_slurm.XXXXXX)
chmod 755 "$tmp"
pids=()
cleanup() {
  local code=$?
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ "$code" -ne 0 ] && [ "$code" -ne 77 ]; then
    for log in "$tmp"/*.log; do [ -f "$log" ] && { echo "== $log"; tail -20 "$log"; }; done
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# munge: a key and a socket of our own.
mkdir -p "$tmp/munge"
chmod 700 "$tmp/munge"
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge/munge.key"
munged --force --foreground --key-file="$tmp/munge/munge.key" --socket="$tmp/munge/munge.socket" \
  --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/munged.log" --seed-file="$tmp/munge/munge.seed" \
  >/dev/null 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do [ -S "$tmp/munge/munge.socket" ] && break; sleep 0.1; done
[ -S "$tmp/munge/munge.socket" ] || skip "munged did not start (see its log)"

# Two free TCP ports for slurmctld and slurmd.
read -r ctld_port slurmd_port < <(python3 - <<'EOF'
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])
EOF
)
node=$(hostname -s)
cpus=$(nproc)
mkdir -p "$tmp/state" "$tmp/spool"
cat > "$tmp/slurm.conf" <<EOF
ClusterName=lynxtest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/munge.socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool/%n
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
MinJobAge=300
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=2000 State=UNKNOWN
PartitionName=lynx Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$tmp/slurm.conf"
slurmctld -D -c -f "$SLURM_CONF" >"$tmp/slurmctld.out.log" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$node" >"$tmp/slurmd.out.log" 2>&1 &
pids+=($!)
ready=0
for _ in $(seq 1 100); do
  state=$(sinfo -h -n "$node" -o %t 2>/dev/null || true)
  case "$state" in idle*|mix*|alloc*) ready=1; break ;; esac
  sleep 0.2
done
[ "$ready" -eq 1 ] || skip "the one-node Slurm cluster did not come up (node state '${state:-none}'; logs in the failure output are removed)"

# The sweep under Slurm: the work folder holds the build (as the sbatch script expects, run from the repository
# root) and receives the shards.
work="$tmp/work"
mkdir -p "$work/build/app"
ln -s "$lynxsim" "$work/build/app/lynxsim"
name=$(basename "$experiment" .json)
start=$(date +%s.%N)
# The node's CPUs and a small memory request override the script's defaults for a sweep on a real cluster.
job=$(sbatch --parsable --wait --array=1-"$shards" --cpus-per-task=1 --mem=500M -D "$work" \
  --output="$tmp/job-%A_%a.log" "$repo/experiments/slurm/sweep.sbatch" "$experiment") || {
  echo "sbatch failed or a task failed"; cat "$tmp"/job-*.log 2>/dev/null || true; exit 1; }
elapsed=$(python3 -c "import time; print(f'{time.time() - $start:.1f}')")
shard_dirs=()
for k in $(seq 1 "$shards"); do
  [ -d "$work/results/$name.shard$k" ] || { echo "array task $k wrote no results/$name.shard$k"; cat "$tmp"/job-*.log; exit 1; }
  shard_dirs+=("$work/results/$name.shard$k")
done
"$lynxsim" merge --out "$tmp/merged" "${shard_dirs[@]}" >/dev/null
"$lynxsim" run "$experiment" --out "$tmp/local" --jobs "$cpus" >/dev/null 2>&1
diff -r "$tmp/local" "$tmp/merged"
files=$(find "$tmp/merged" -type f | wc -l)
echo "Slurm job $job: $shards array tasks in ${elapsed}s; merged shards equal the local run ($files files)"
