#!/usr/bin/env bash
# Runs a sweep on a Slurm cluster as a job array of N shards plus a dependent merge job.
#
#   scripts/slurm/submit.sh SPEC.toml N [extra sbatch options...]
#
# Task K of the array (from 0, as SLURM_ARRAY_TASK_ID) runs `schedlab sweep SPEC --shard
# K/N` (cells spread over the shards by estimated cost) into OUT/shard-K-of-N; when
# all succeed, a second job runs `schedlab merge` into OUT, giving the same files as one
# `schedlab sweep SPEC` on one machine. Environment:
#   SCHEDLAB  the binary (default: schedlab on PATH, else ./target/release/schedlab)
#   OUT       output folder (default: results/<spec file stem>)
#   CPUS      cores per array task (default 1), passed to --threads
# Prints the array job id and the merge job id.
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 SPEC.toml N [sbatch options...]" >&2
  exit 2
fi
spec=$(realpath "$1")
n=$2
shift 2
case "$n" in
  ''|*[!0-9]*|0) echo "N must be a positive integer, got '$n'" >&2; exit 2 ;;
esac
bin=${SCHEDLAB:-$(command -v schedlab || true)}
bin=${bin:-$(pwd)/target/release/schedlab}
bin=$(realpath "$bin")
out=$(realpath -m "${OUT:-results/$(basename "$spec" .toml)}")
cpus=${CPUS:-1}
mkdir -p "$out"

# Fail before submitting anything if the spec is invalid; say what each shard will run.
"$bin" sweep "$spec" --dry-run >/dev/null
for ((k = 0; k < n; k++)); do
  "$bin" sweep "$spec" --dry-run --shard "$k/$n" | tail -n 2 | head -n 1 | sed 's/^.*; shard/shard/'
done

array=$(sbatch --parsable "$@" \
  --job-name="schedlab-$(basename "$spec" .toml)" \
  --array="0-$((n - 1))" \
  --cpus-per-task="$cpus" \
  --output="$out/slurm-%A_%a.out" \
  --wrap="exec '$bin' sweep '$spec' --quiet --threads $cpus --shard \$SLURM_ARRAY_TASK_ID/$n --out '$out/shard-'\$SLURM_ARRAY_TASK_ID'-of-$n'")
array=${array%%;*}

shards=""
for ((k = 0; k < n; k++)); do
  shards+=" '$out/shard-$k-of-$n'"
done
merge=$(sbatch --parsable "$@" \
  --job-name="schedlab-merge" \
  --dependency="afterok:$array" \
  --output="$out/slurm-merge-%j.out" \
  --wrap="exec '$bin' merge$shards --out '$out'")
merge=${merge%%;*}

echo "array job $array ($n shards), merge job $merge -> $out"
