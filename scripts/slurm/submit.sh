#!/usr/bin/env bash
# Regenerates the handbook on a Slurm cluster: N array tasks, one GPU each, each recording one
# cost-balanced shard (`mdbook-gpulab record --shard K/N`), then one merge job into data/.
#   scripts/slurm/submit.sh N [OUT]        (OUT: where shards land; default $PWD/gpulab-shards)
# Extra sbatch options (partition, account) go in SBATCH_* variables, e.g. SBATCH_PARTITION=gpu.
# mdbook-gpulab must be on PATH on the nodes (or GPULAB_BIN), and the repository on a shared
# file system. Prints the two job ids.
set -euo pipefail
N=${1:?usage: $0 N [OUT]}
REPO=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$(mkdir -p "${2:-$PWD/gpulab-shards}" && cd "${2:-$PWD/gpulab-shards}" && pwd)
export GPULAB_REPO=$REPO GPULAB_SHARDS=$N GPULAB_OUT=$OUT
array=$(sbatch --parsable --array=1-"$N" --export=ALL "$REPO/scripts/slurm/record-shard.sbatch")
array=${array%%;*}
merge=$(sbatch --parsable --dependency=afterany:"$array" --export=ALL "$REPO/scripts/slurm/merge.sbatch")
echo "array job $array ($N shards into $OUT), merge job ${merge%%;*}"
