#!/usr/bin/env bash
# The GPU runner's steps (gpu-record.yml): build, `record` (RERUN=<experiment> re-runs one), and the
# offline `--strict` build that proves the book is then current.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/ci/nvrtc.sh
cargo build --release
bin=target/release/mdbook-gpulab
"$bin" devices
"$bin" record . ${RERUN:+--rerun "$RERUN"} 2>&1 | tee target/record.log
"$bin" build . --mode recorded --strict
