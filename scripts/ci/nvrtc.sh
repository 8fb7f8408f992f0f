# Sourced: NVRTC (libnvrtc.so.13) from PyPI in the virtual environment .venv-ci/, where the tool finds
# it by itself (gpu/nvrtc_venv.rs; VIRTUAL_ENV names it wherever GPULAB_VENV puts it), so that `check`
# compiles every kernel without a GPU. NVRTC has no built-in <cuda_fp16.h>/<cuda_bf16.h>:
# nvidia-cuda-runtime puts the toolkit headers in nvidia/cu13/include, beside NVRTC's lib/, where
# the compiler finds them (gpu/toolkit_headers.rs).
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
venv_pip 'nvidia-cuda-nvrtc>=13,<14' 'nvidia-cuda-runtime>=13,<14'
export VIRTUAL_ENV="$VENV"
export GPULAB_REQUIRE_NVRTC=1
