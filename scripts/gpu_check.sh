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
python3 -m pip install -q --no-build-isolation --no-deps . 2>&1 | grep -v "^WARNING: Running pip as" || true
lib=$(python3 -c "import ember, os; print(os.path.dirname(ember.__file__))")
if ! readelf -d "$lib/libember.so" | grep -q "libstdc++"; then
  echo "WARNING: libember.so does not link libstdc++ dynamically (see above); build environment:"; env | grep -iE "flags|^cxx|^cc=|cmake" || true
fi
python3 -c "import ember, sys; print('ember built in', $SECONDS - $start, 's; cuda available:', ember.cuda.is_available(),
      ember.cuda.get_device_name() if ember.cuda.is_available() else ember._C._cuda_unavailable_reason())"
"$@"
