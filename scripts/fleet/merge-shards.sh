#!/usr/bin/env bash
# Merges every DIR/shard-* into the book's data/: scripts/fleet/merge-shards.sh DIR [BOOK]
set -euo pipefail
DIR=${1:?usage: $0 DIR [BOOK]}
BOOK=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${GPULAB_BIN:-mdbook-gpulab}
shopt -s nullglob
shards=("$DIR"/shard-*)
[ ${#shards[@]} -gt 0 ] || { echo "no shard folders under $DIR" >&2; exit 1; }
"$BIN" merge --dir "$BOOK" "${shards[@]}"
