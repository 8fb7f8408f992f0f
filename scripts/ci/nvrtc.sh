# Sourced: NVRTC (libnvrtc.so.13) from PyPI in the virtual environment, on LD_LIBRARY_PATH, so that
# `check` compiles every kernel without a GPU. NVRTC has no built-in <cuda_fp16.h>/<cuda_bf16.h>:
# nvidia-cuda-runtime puts the toolkit headers in nvidia/cu13/include, beside NVRTC's lib/, where
# the compiler finds them (gpu/toolkit_headers.rs).
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
venv_pip 'nvidia-cuda-nvrtc>=13,<14' 'nvidia-cuda-runtime>=13,<14'
NVRTC_DIR=$("$VENV/bin/python" - <<'PY'
import glob, os, nvidia
hits = [p for base in nvidia.__path__ for p in glob.glob(os.path.join(base, "**", "libnvrtc.so.13*"), recursive=True)]
print(os.path.dirname(hits[0]) if hits else "")
PY
)
if [ -z "$NVRTC_DIR" ]; then echo "error: libnvrtc.so.13 not found after pip install" >&2; exit 1; fi
export LD_LIBRARY_PATH="$NVRTC_DIR:${LD_LIBRARY_PATH:-}"
export GPULAB_REQUIRE_NVRTC=1
