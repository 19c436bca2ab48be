#!/usr/bin/env bash
# Integration test: a sharded sweep through `sbatch --array` on a one-node Slurm cluster
# merges into files byte-identical to a single-process run. Skipped, with a message, where
# Slurm cannot be installed or started (it needs root and Debian's packages).
#
#   scripts/slurm/integration-test.sh [path/to/schedlab]
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=$(realpath "${1:-target/release/schedlab}")
spec=tests/data/slurm-sweep.toml
shards=3
work=$(mktemp -d /tmp/schedlab-slurm-test.XXXXXX)

if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "SKIPPED: Slurm integration test (needs root and apt-get to install slurm-wlm)"
  exit 0
fi
if ! scripts/slurm/local-cluster.sh start >"$work/cluster.log" 2>&1; then
  echo "SKIPPED: Slurm integration test (Slurm could not be installed or started):"
  sed 's/^/  /' "$work/cluster.log"
  exit 0
fi
trap 'scripts/slurm/local-cluster.sh stop' EXIT
export SLURM_CONF=/tmp/schedlab-slurm/slurm.conf
set -e

"$bin" sweep "$spec" --quiet --out "$work/single" >/dev/null
submitted=$(SCHEDLAB="$bin" OUT="$work/cluster" scripts/slurm/submit.sh "$spec" "$shards")
echo "$submitted"
merge_job=$(echo "$submitted" | sed -n 's/.*merge job \([0-9]*\).*/\1/p')

for _ in $(seq 1 240); do
  if [ -z "$(squeue -h -j "$merge_job" 2>/dev/null)" ]; then
    break
  fi
  sleep 0.5
done
if [ -n "$(squeue -h -j "$merge_job" 2>/dev/null)" ]; then
  echo "FAILED: the merge job $merge_job did not finish in 120 s"
  squeue
  exit 1
fi

failed=0
for f in runs.csv summary.csv summary.json summary.md spec.toml spec.hash mean_wait_vs_load_by_scheduler.svg; do
  if ! cmp -s "$work/single/$f" "$work/cluster/$f"; then
    echo "FAILED: $f differs between the single run and the Slurm array"
    failed=1
  fi
done
for k in $(seq 0 $((shards - 1))); do
  [ -f "$work/cluster/shard-$k-of-$shards/runs.csv" ] || { echo "FAILED: shard $k wrote nothing"; failed=1; }
done
if [ "$failed" = 0 ]; then
  echo "slurm: 1 passed, 0 failed"
  rm -rf "$work"
else
  cat "$work"/cluster/slurm-*.out 2>/dev/null | tail -20
  echo "slurm: 0 passed, 1 failed"
  exit 1
fi
