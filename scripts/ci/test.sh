#!/usr/bin/env bash
# The build steps shared by .ci/run and .github/workflows/pages.yml: the README's test command,
# the NVRTC compile check for every architecture NVRTC supports, and an offline `--strict` build of the handbook into build-out/.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/ci/nvrtc.sh

echo "== the README's test command"
cargo test --release

echo "== fuzz: a bounded run over directives, specs, recordings, papers, expressions, claims"
# Fails on a panic, an input running over 10 s, or more than 1 GiB of live heap (DESIGN.md,
# "Hostile input, faults and fuzzing"); about a minute on two cores.
cargo run --release --example fuzz -- --inputs 300000 --seed "${FUZZ_SEED:-1}" \
  --mem-mb 1024 --timeout-s 10 --findings target/fuzz-findings

echo "== the Nsight Compute check's dry run: every point plans from its spec and is recorded"
python3 scripts/ncu_check.py --dry-run > target/ncu-dry-run.log || { cat target/ncu-dry-run.log; exit 1; }
tail -n 1 target/ncu-dry-run.log

echo "== check: every directive and spec valid, every kernel compiles with NVRTC for every"
echo "   architecture it supports (a variant a GPU cannot run is reported as not applicable there)"
cargo run --release -- check --require-nvrtc --arch all

echo "== build: the handbook offline from data/, nothing missing or stale"
cargo run --release -- build --mode recorded --strict
test -f build-out/index.html
