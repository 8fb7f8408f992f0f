#!/usr/bin/env bash
# CI's steps on the book: the ncu check's dry run, `check` for every architecture and an offline
# `--strict` build into build-out/, with $GPULAB_BIN or `cargo run --release` (tests/it/ci_book.rs).
set -euo pipefail
cd "$(dirname "$0")/../.."
gpulab() {
  if [ -n "${GPULAB_BIN:-}" ]; then "$GPULAB_BIN" "$@"; else cargo run --release -- "$@"; fi
}

echo "== the Nsight Compute check's dry run: every point plans from its spec and is recorded"
mkdir -p target
python3 scripts/ncu_check.py --dry-run > target/ncu-dry-run.log || { cat target/ncu-dry-run.log; exit 1; }
tail -n 1 target/ncu-dry-run.log

echo "== check: every directive and spec valid, every kernel compiles with NVRTC for every"
echo "   architecture it supports (a variant a GPU cannot run is not applicable there), or \$GPULAB_CHECK_ARCH"
gpulab check ${GPULAB_REQUIRE_NVRTC:+--require-nvrtc} --arch "${GPULAB_CHECK_ARCH:-all}"

echo "== build: the handbook offline from data/, nothing missing or stale"
gpulab build --mode recorded --strict
test -f build-out/index.html
