#!/usr/bin/env bash
# `cargo fmt --check` and clippy with every warning an error, on all targets.
set -euo pipefail
cd "$(dirname "$0")/../.."

if command -v rustup >/dev/null; then rustup component add rustfmt clippy >/dev/null 2>&1 || true; fi
echo "== cargo fmt --check"
cargo fmt --check

echo "== cargo clippy --all-targets -- -D warnings"
cargo clippy --all-targets -- -D warnings
