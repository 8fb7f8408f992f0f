#!/usr/bin/env bash
# Merges every shard folder under DIR (DIR/shard-*, as written by record-shard.sh) into the
# book's data/, point by point (the newer recording of a point wins):
#   scripts/fleet/merge-shards.sh DIR [BOOK]
# Environment: GPULAB_BIN (default: mdbook-gpulab on PATH).
set -euo pipefail
DIR=${1:?usage: $0 DIR [BOOK]}
BOOK=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${GPULAB_BIN:-mdbook-gpulab}
shopt -s nullglob
shards=("$DIR"/shard-*)
if [ ${#shards[@]} -eq 0 ]; then
  echo "no shard folders under $DIR" >&2
  exit 1
fi
"$BIN" merge --dir "$BOOK" "${shards[@]}"
