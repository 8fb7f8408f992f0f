#!/usr/bin/env bash
# The build steps shared by .ci/run and .github/workflows/pages.yml: the README's test command,
# the NVRTC compile check, and an offline `--strict` build of the handbook into build-out/.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/ci/nvrtc.sh

echo "== the README's test command"
cargo test --release

echo "== check: every directive and spec valid, every kernel compiles with NVRTC"
cargo run --release -- check --require-nvrtc

echo "== build: the handbook offline from data/, nothing missing or stale"
cargo run --release -- build --mode recorded --strict
test -f build-out/index.html
