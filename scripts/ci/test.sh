#!/usr/bin/env bash
# The build steps shared by .ci/run and .github/workflows/pages.yml: the README's test command, a
# bounded fuzz run, then the book's steps (scripts/ci/book.sh: the ncu check's dry run, the NVRTC
# compile check and an offline `--strict` build of the handbook into build-out/).
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

bash scripts/ci/book.sh
