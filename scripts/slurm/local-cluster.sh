#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, with job accounting, for the integration tests.
#
#   scripts/slurm/local-cluster.sh start   install slurm-wlm, slurmdbd, munge and MariaDB if
#                                          needed, configure under $SLURM_DIR, start munged,
#                                          MariaDB, slurmdbd, slurmctld, slurmd
#   scripts/slurm/local-cluster.sh stop    stop the daemons it started (by their pid files;
#                                          MariaDB by its init script)
#   scripts/slurm/local-cluster.sh env     print the export line for SLURM_CONF
#
# Needs root (it installs Debian packages and starts daemons). Exits non-zero, with a
# message, if Slurm cannot be installed or does not come up.
set -euo pipefail

dir=${SLURM_DIR:-/tmp/schedlab-slurm}
conf=$dir/slurm.conf

install() {
  if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null \
    && command -v slurmdbd >/dev/null && command -v mariadbd >/dev/null; then
    return 0
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq slurm-wlm slurmdbd munge mariadb-server >/dev/null
}

configure() {
  mkdir -p "$dir/state" "$dir/spool"
  local host cpus mem
  host=$(hostname -s)
  cpus=$(nproc)
  mem=$(free -m | awk '/^Mem:/ { print int($2 * 0.9) }')
  cat >"$conf" <<CONF
ClusterName=schedlab
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
JobAcctGatherType=jobacct_gather/none
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
  # slurmdbd reads slurmdbd.conf beside slurm.conf (SLURM_CONF's folder), owned by its
  # user and private. MariaDB's root logs in through its socket, without a password.
  cat >"$dir/slurmdbd.conf" <<CONF
AuthType=auth/munge
DbdHost=localhost
SlurmUser=root
LogFile=$dir/slurmdbd.log
PidFile=$dir/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=root
StorageLoc=schedlab_slurm_acct
CONF
  chmod 600 "$dir/slurmdbd.conf"
}

# MariaDB (unless it already runs; then it is left running at stop), then slurmdbd on
# it, with this cluster registered.
start_accounting() {
  if ! mysqladmin ping >/dev/null 2>&1; then
    /etc/init.d/mariadb start >/dev/null
    touch "$dir/mariadb.started"
  fi
  slurmdbd
  for _ in $(seq 1 40); do
    sacctmgr -i add cluster schedlab >/dev/null 2>&1 && return 0
    sacctmgr -n list cluster format=cluster 2>/dev/null | grep -qw schedlab && return 0
    sleep 0.25
  done
  echo "slurmdbd did not come up; its log:" >&2
  tail -20 "$dir/slurmdbd.log" >&2 || true
  return 1
}

start_munge() {
  if [ -f "$dir/munged.pid" ] && kill -0 "$(cat "$dir/munged.pid")" 2>/dev/null; then
    return 0
  fi
  mkdir -p /etc/munge /run/munge /var/lib/munge /var/log/munge
  if [ ! -s /etc/munge/munge.key ]; then
    dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null
  fi
  chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge
  chmod 0700 /etc/munge
  chmod 0400 /etc/munge/munge.key
  runuser -u munge -- /usr/sbin/munged
  for _ in $(seq 1 20); do
    [ -s /run/munge/munged.pid ] && break
    sleep 0.25
  done
  cp /run/munge/munged.pid "$dir/munged.pid"
}

start() {
  install || { echo "Slurm could not be installed (apt-get install slurm-wlm slurmdbd munge mariadb-server failed)" >&2; exit 1; }
  configure
  start_munge
  export SLURM_CONF=$conf
  start_accounting || { stop; exit 1; }
  slurmctld -f "$conf"
  slurmd -f "$conf"
  for _ in $(seq 1 60); do
    if sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
      echo "Slurm is up: export SLURM_CONF=$conf"
      return 0
    fi
    sleep 0.5
  done
  echo "Slurm did not come up; logs in $dir" >&2
  sinfo >&2 || true
  stop || true
  exit 1
}

stop() {
  for d in slurmd slurmctld slurmdbd munged; do
    if [ -f "$dir/$d.pid" ]; then
      kill "$(cat "$dir/$d.pid")" 2>/dev/null || true
      rm -f "$dir/$d.pid"
    fi
  done
  if [ -f "$dir/mariadb.started" ]; then
    /etc/init.d/mariadb stop >/dev/null 2>&1 || true
    rm -f "$dir/mariadb.started"
  fi
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  env) echo "export SLURM_CONF=$conf" ;;
  *) echo "usage: $0 start|stop|env" >&2; exit 2 ;;
esac
