#!/usr/bin/env bash
# The browser test on build-out/ with Debian's Chromium, driven by playwright from PyPI; skipped
# LOUDLY only when no Chromium can be had. Screenshots go to target/browser-test/.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/ci/venv.sh

find_chromium() {
  for c in "${CHROMIUM:-}" chromium chromium-browser google-chrome google-chrome-stable; do
    [ -n "$c" ] && command -v "$c" >/dev/null && { command -v "$c"; return 0; }
  done
  return 1
}

chromium=$(find_chromium || true)
if [ -z "$chromium" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "== installing Debian's chromium"
  apt-get update -qq >/dev/null 2>&1 || true
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null 2>&1 || true
  chromium=$(find_chromium || true)
fi
if [ -z "$chromium" ]; then
  for i in 1 2 3; do echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!" >&2; done
  echo "!!! BROWSER TEST SKIPPED: no Chromium here and the chromium package could not be installed" >&2
  echo "!!! (run as root with apt-get, or set CHROMIUM=/path/to/chromium). The pages were NOT checked." >&2
  for i in 1 2 3; do echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!" >&2; done
  exit 0
fi
venv_pip 'playwright>=1.40,<2'
if [ ! -f build-out/index.html ]; then
  cargo run --release -- build --mode recorded
fi
echo "== browser test with $chromium"
"$VENV/bin/python" scripts/browser_test.py --self-test --out target/browser-test --chromium "$chromium"
"$VENV/bin/python" scripts/browser_test.py build-out --out target/browser-test --chromium "$chromium"
