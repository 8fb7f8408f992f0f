# Sourced: NVRTC (libnvrtc.so.13) from PyPI in the virtual environment, on LD_LIBRARY_PATH, so that
# `check` compiles every kernel without a GPU.
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
venv_pip 'nvidia-cuda-nvrtc>=13,<14'
NVRTC_DIR=$("$VENV/bin/python" - <<'PY'
import glob, os, nvidia
hits = [p for base in nvidia.__path__ for p in glob.glob(os.path.join(base, "**", "libnvrtc.so.13*"), recursive=True)]
print(os.path.dirname(hits[0]) if hits else "")
PY
)
if [ -z "$NVRTC_DIR" ]; then echo "error: libnvrtc.so.13 not found after pip install" >&2; exit 1; fi
export LD_LIBRARY_PATH="$NVRTC_DIR:${LD_LIBRARY_PATH:-}"
export GPULAB_REQUIRE_NVRTC=1
