#!/usr/bin/env bash
# Builds the release binary and the GPU test executables into .device-bin/ for the GPU machine.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release
rm -rf .device-bin && mkdir -p .device-bin/tests
cp target/release/mdbook-gpulab .device-bin/
# The GPU machine's copy has no git history: its recordings' commit (gpu-suite.sh exports it).
commit=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- . ':!data' || commit="$commit+dirty"
echo "$commit" > .device-bin/COMMIT
cargo test --release --no-run --message-format=json 2>/dev/null \
  | python3 -c '
import json, sys, shutil, os
for line in sys.stdin:
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] != ["bin"]:
        name = m["target"]["name"]
        # Only the executables with GPU tests (the device tool carries at most 64 MiB).
        if name in ("gpu", "gpulab_engine"):
            shutil.copy(m["executable"], os.path.join(".device-bin/tests", name))
'
strip .device-bin/mdbook-gpulab .device-bin/tests/* 2>/dev/null || true
ls -la .device-bin .device-bin/tests
