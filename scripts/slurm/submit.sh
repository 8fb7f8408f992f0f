#!/usr/bin/env bash
# A Slurm job array of N one-GPU shards, then a merge job: scripts/slurm/submit.sh N [OUT]
# (sbatch options in SBATCH_* variables; the repository on a shared file system).
set -euo pipefail
N=${1:?usage: $0 N [OUT]}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$(mkdir -p "${2:-$PWD/gpulab-shards}" && cd "${2:-$PWD/gpulab-shards}" && pwd)
export GPULAB_REPO=$REPO GPULAB_SHARDS=$N GPULAB_OUT=$OUT
array=$(sbatch --parsable --array=1-"$N" --export=ALL "$REPO/scripts/slurm/record-shard.sbatch")
array=${array%%;*}
merge=$(sbatch --parsable --dependency=afterany:"$array" --export=ALL "$REPO/scripts/slurm/merge.sbatch")
echo "array job $array ($N shards into $OUT), merge job ${merge%%;*}"
