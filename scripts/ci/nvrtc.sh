# Sourced: NVRTC and the toolkit headers from PyPI in .venv-ci/, where the tool finds them
# (gpu/nvrtc_venv.rs, gpu/toolkit_headers.rs), so that `check` compiles every kernel without a GPU.
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
venv_pip 'nvidia-cuda-nvrtc>=13,<14' 'nvidia-cuda-runtime>=13,<14'
export VIRTUAL_ENV="$VENV"
export GPULAB_REQUIRE_NVRTC=1
