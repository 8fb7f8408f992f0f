#!/usr/bin/env bash
# The steps shared by .ci/run and pages.yml: the tests, a bounded fuzz run, then scripts/ci/book.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/ci/nvrtc.sh

echo "== the README's test command"
cargo test --release

echo "== fuzz: a bounded run over directives, specs, recordings, papers, expressions, claims"
cargo run --release --example fuzz -- --inputs 300000 --seed "${FUZZ_SEED:-1}" \
  --mem-mb 1024 --timeout-s 10 --findings target/fuzz-findings

bash scripts/ci/book.sh
