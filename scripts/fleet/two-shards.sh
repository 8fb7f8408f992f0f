#!/usr/bin/env bash
# Item 3 of issue 11, on ONE GPU or two: the same regeneration (`record --rerun`) made
#   SINGLE  by one process, in a copy of the book, and
#   SHARDS  by two `record --shard K/2` processes at once, each in its own copy (its own data/),
#           on GPUs 0 and 1 when the machine has two, else both on GPU 0,
# then the two shards' data/ merged under the lock into a third copy (`mdbook-gpulab merge`), and
# the merged points checked against the single-process recording: the same (device, experiment,
# variant, parameters) with the same keys and outcomes, none lost, none extra. data/ of the tree
# is not touched; the copies' data/ and the logs go to $OUT.
# Success is the line `SHARDS OK: …`; on two GPUs the `SHARDS speed-up` line gives both timings.
#   EXPERIMENTS=a,b,c   only these experiments (default: a quick set; `all` for the whole book,
#                       which needs two GPUs to fit one 10-minute call)
set -uo pipefail
OUT=${OUT:-/tmp/gpulab-out}
mkdir -p "$OUT"
BIN=${BIN:-$PWD/.device-bin}
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PATH="$BIN:$PATH"
[ -z "${GPULAB_COMMIT:-}" ] && [ -f "$BIN/COMMIT" ] && export GPULAB_COMMIT=$(cat "$BIN/COMMIT")
EXPERIMENTS=${EXPERIMENTS:-reduction,bank_conflicts,lab3_dot,lab3_row_sum,constant_table,transpose_lab3,matmul_lab3}
only=()
[ "$EXPERIMENTS" != all ] && only=(--experiment "$EXPERIMENTS")
gpus=$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | wc -l)
if [ "$gpus" -ge 2 ]; then g1=0 g2=1; else g1=0 g2=0; fi
work=$(mktemp -d)
copy() { mkdir -p "$work/$1" && cp -r book.toml book kernels data "$work/$1"/; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
copy single; copy shard1; copy shard2; copy merged

t0=$(now_ms)
CUDA_VISIBLE_DEVICES=$g1 mdbook-gpulab record "$work/single" --rerun "${only[@]}" > "$OUT/shards-single.log" 2>&1
rc_single=$?
single_ms=$(( $(now_ms) - t0 ))

# Each shard process gets half of the CPUs (taskset), so that the CPU each one reserves for its
# single-threaded CPU baselines (the last of its CPUs) is not the other's.
cpus=$(nproc)
half() { # K: the taskset prefix for shard K of 2, or nothing
  if command -v taskset > /dev/null && [ "$cpus" -ge 8 ]; then
    if [ "$1" = 1 ]; then echo "taskset -c 0-$(( cpus / 2 - 1 ))"; else echo "taskset -c $(( cpus / 2 ))-$(( cpus - 1 ))"; fi
  fi
}
t0=$(now_ms)
CUDA_VISIBLE_DEVICES=$g1 $(half 1) mdbook-gpulab record "$work/shard1" --rerun --shard 1/2 "${only[@]}" > "$OUT/shards-1.log" 2>&1 &
p1=$!
CUDA_VISIBLE_DEVICES=$g2 $(half 2) mdbook-gpulab record "$work/shard2" --rerun --shard 2/2 "${only[@]}" > "$OUT/shards-2.log" 2>&1 &
p2=$!
wait $p1; rc1=$?
wait $p2; rc2=$?
shards_ms=$(( $(now_ms) - t0 ))

mdbook-gpulab merge --dir "$work/merged" "$work/shard1/data" "$work/shard2/data" > "$OUT/shards-merge.log" 2>&1
rc_merge=$?
for d in single shard1 shard2 merged; do tar czf "$OUT/shards-$d-data.tgz" -C "$work/$d" data; done
printf 'SHARDS timing: single process %d ms (exit %d); two shards at once on GPU %s and GPU %s %d ms (exits %d, %d); merge exit %d\n' \
  "$single_ms" "$rc_single" "$g1" "$g2" "$shards_ms" "$rc1" "$rc2" "$rc_merge" | tee "$OUT/shards-timing.txt"
if [ "$gpus" -ge 2 ]; then
  awk -v a="$single_ms" -v b="$shards_ms" 'BEGIN { printf "SHARDS speed-up %.2fx (one GPU %d ms, two GPUs %d ms)\n", a / b, a, b }' \
    | tee -a "$OUT/shards-timing.txt"
fi
# The check: every point of the experiments run, by (device, experiment, variant, params) ->
# (key, outcome), in the single-process recording and in the merged one.
python3 scripts/fleet/compare_points.py "$work/single/data" "$work/merged/data" "$EXPERIMENTS" \
  | tee -a "$OUT/shards-timing.txt"
check=${PIPESTATUS[0]}
[ "$rc_single$rc1$rc2$rc_merge$check" = 00000 ]
