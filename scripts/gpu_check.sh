#!/usr/bin/env bash
# Builds and installs Ember on a lent GPU machine, which has the CUDA toolkit, python3 with torch (CUDA),
# nanobind and scikit-build-core but no package registry and no BLIS: Debian's BLIS packages travel in .gpu/
# (here: mkdir -p .gpu && cd .gpu && apt-get download libblis4-serial libblis-serial-dev
# liblapack3 liblapack-dev libdnnl2 libdnnl-dev ocl-icd-libopencl1 zlib1g-dev). Then runs the command
# given (e.g. the CUDA tests and benchmarks).  Usage: bash scripts/gpu_check.sh python3 -m pytest tests/python/test_cuda_*.py
set -euo pipefail
cd "$(dirname "$0")/.."
blis=/tmp/ember-blis
mkdir -p "$blis"
for deb in .gpu/*.deb; do dpkg -x "$deb" "$blis"; done
# The image's CC/CXX (/opt/gcc) link libstdc++ statically: beside torch's shared one, two C++ runtimes in one
# process crashed every error message that formats a number. The system compiler links it shared.
unset CC CXX
# oneDNN's library needs libOpenCL.so.1, which the image may lack: the unpacked one is found through the path.
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$blis/usr/lib/x86_64-linux-gnu"
export EMBER_BLIS_ROOT="$blis" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" PYTHONUNBUFFERED=1
start=$SECONDS
# A CUDA plugin built elsewhere (here: cmake's libember_cuda.so, stripped, `xz`ed to .gpu/libember_cuda.so.xz) saves
# most of the build: only libember and the Python module are built, and the plugin finds the machine's cuBLAS and
# cuDNN wheels through the path.
prebuilt=.gpu/libember_cuda.so.xz
[ -f "$prebuilt" ] && export SKBUILD_CMAKE_DEFINE="EMBER_CUDA=OFF"
python3 -m pip install -q --no-build-isolation --no-deps . 2>&1 | grep -v "^WARNING: Running pip as" || true
lib=$(python3 -c "import ember, os; print(os.path.dirname(ember.__file__))")
if [ -f "$prebuilt" ]; then
  xz -dc "$prebuilt" > "$lib/libember_cuda.so"
  nvidia=$(python3 -c "import nvidia; print(list(nvidia.__path__)[0])")
  export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$nvidia/cu13/lib:$nvidia/cudnn/lib"
fi
if ! readelf -d "$lib/libember.so" | grep -q "libstdc++"; then
  echo "WARNING: libember.so does not link libstdc++ dynamically (see above); build environment:"; env | grep -iE "flags|^cxx|^cc=|cmake" || true
fi
python3 -c "import ember, sys; print('ember built in', $SECONDS - $start, 's; cuda available:', ember.cuda.is_available(),
      ember.cuda.get_device_name() if ember.cuda.is_available() else ember._C._cuda_unavailable_reason())"
"$@"
