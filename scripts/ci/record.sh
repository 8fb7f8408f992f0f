#!/usr/bin/env bash
# The GPU runner's steps (.github/workflows/gpu-record.yml): NVRTC from PyPI (the driver has none),
# the same release build as scripts/ci/test.sh, `record` of every missing or stale point
# (RERUN=<experiment> re-runs one) into target/record.log, and the offline `--strict` build that
# proves the book is then current.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/ci/nvrtc.sh
cargo build --release
bin=target/release/mdbook-gpulab
"$bin" devices
if [ -n "${RERUN:-}" ]; then
  "$bin" record . --rerun "$RERUN" 2>&1 | tee target/record.log
else
  "$bin" record . 2>&1 | tee target/record.log
fi
"$bin" build . --mode recorded --strict
