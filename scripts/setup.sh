#!/usr/bin/env bash
# Installs what Ember needs on a fresh Debian machine and builds the Python package.
# Safe to re-run: every step is skipped or is a no-op when already done.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v ccache >/dev/null || need_apt+=(ccache)
[ -f /usr/include/gtest/gtest.h ] || need_apt+=(libgtest-dev)
ls /usr/include/*/blis-serial/cblas.h >/dev/null 2>&1 || need_apt+=(libblis-serial-dev)
[ -f /usr/include/dnnl.hpp ] || need_apt+=(libdnnl-dev)
[ -f /usr/include/zlib.h ] || need_apt+=(zlib1g-dev)
ls /usr/lib/*/liblapack.so >/dev/null 2>&1 || need_apt+=(liblapack-dev)
command -v g++ >/dev/null || need_apt+=(g++)
[ -d /usr/share/datasets/fashion-mnist ] || need_apt+=(dataset-fashion-mnist)  # the main job's data
if [ ${#need_apt[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

PIP="python3 -m pip"
# torch==2.13.0 (CPU build) is the reference in tests and the peer in benchmarks.
python3 -c "import torch, sys; sys.exit(torch.__version__.split('+')[0] != '2.13.0')" 2>/dev/null \
  || $PIP install -q "torch==2.13.0"
$PIP install -q "scikit-build-core>=0.10" "nanobind>=2.0" numpy pytest einops cmake ninja \
  pillow safetensors tqdm matplotlib
# Where nvcc is found the CUDA backend builds too; its cuBLAS and cuDNN come from NVIDIA's wheels (CUDA 13's).
if command -v nvcc >/dev/null; then
  python3 -c "import importlib.util as u, sys; sys.exit(u.find_spec('nvidia.cu13') is None)" 2>/dev/null \
    && ls "$(python3 -c "import importlib.util as u; print(next(iter(u.find_spec('nvidia.cu13').submodule_search_locations)))")"/include/cublasLt.h >/dev/null 2>&1 \
    || $PIP install -q "nvidia-cublas==13.0.2.14"
  python3 -c "import importlib.util as u, sys; sys.exit(u.find_spec('nvidia.cudnn') is None)" 2>/dev/null \
    || $PIP install -q "nvidia-cudnn-cu13==9.28.1.4"
fi

# Incremental rebuild in build/ (ccache speeds up clean builds too).
$PIP install -q --no-build-isolation .
