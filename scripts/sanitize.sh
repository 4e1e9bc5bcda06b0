#!/usr/bin/env bash
# Runs the C++ tests and the Python suite against an AddressSanitizer + UndefinedBehaviorSanitizer
# build of Ember (CMake option EMBER_SANITIZE). Everything goes under build/asan-*; the normal build
# and installed package are left alone.
#
#   bash scripts/sanitize.sh                 # C++ tests + the whole Python suite (first build: tens of
#                                            # minutes on 2 cores; the suite runs several times slower)
#   bash scripts/sanitize.sh tests/python/test_views.py -k expand   # C++ tests + these pytest arguments
#   EMBER_SANITIZE_CPP=0 bash scripts/sanitize.sh ...                # skip the C++ tests
#
# The CUDA backend is left out (its code cannot run here; the CPU library is what the sanitizers check).
# Builds: build/asan-cpp (library + GoogleTest binary) and build/asan-py (the Python extension,
# installed into the virtual environment build/asan-venv, which sees the system torch/numpy/pytest).
# Python runs with libasan preloaded (the interpreter itself is not instrumented) and leak detection
# off (CPython keeps memory until exit). UB findings do not stop a run; each is logged, and the
# script fails, printing them, when any sanitizer reported anything. Logs: build/asan-logs/.
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=$(nproc)
# -O1 compiles fast and keeps traces readable; no -g, so the library objects of the two builds are
# identical and ccache shares them.
opt="-O1 -DNDEBUG"
logs="$PWD/build/asan-logs"
rm -rf "$logs" && mkdir -p "$logs"
# libstdc++ is preloaded beside libasan: the interpreter does not link it, and ASan's __cxa_throw
# interceptor must find it at start-up (else the first C++ exception, e.g. torch's, aborts the run).
preload="$(g++ -print-file-name=libasan.so):$(readlink -f "$(g++ -print-file-name=libstdc++.so)")"
# allocator_may_return_null: the allocation-failure tests expect a RuntimeError, not an ASan abort;
# max_allocation_size_mb stands in for the fuzz children's address-space limit (ASan needs the space).
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=0:halt_on_error=1:allocator_may_return_null=1:max_allocation_size_mb=4096:log_path=$logs/asan"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=0:log_path=$logs/ubsan"
status=0

if [ "${EMBER_SANITIZE_CPP:-1}" != 0 ]; then
  cmake -S . -B build/asan-cpp -G Ninja -DEMBER_SANITIZE=ON -DEMBER_TESTS=ON -DEMBER_PYTHON=OFF -DEMBER_CUDA=OFF \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="$opt" >/dev/null
  cmake --build build/asan-cpp -j "$jobs"
  ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=1" build/asan-cpp/ember_tests --gtest_brief=1 || status=$?
fi

python3 -m venv --system-site-packages build/asan-venv
build/asan-venv/bin/python -m pip install -q --no-build-isolation --no-deps \
  -C build-dir=build/asan-py -C cmake.define.EMBER_SANITIZE=ON -C cmake.define.EMBER_CUDA=OFF \
  -C cmake.define.CMAKE_CXX_FLAGS_RELEASE="$opt" .

EMBER_SANITIZED=1 LD_PRELOAD="$preload" build/asan-venv/bin/python -m pytest -q -p no:cacheprovider "${@:-tests/python}" || status=$?

# The huge-size tests leave "failed to allocate" warnings (allocator_may_return_null): not findings.
findings=$(cat "$logs"/* 2>/dev/null | grep -v "WARNING: AddressSanitizer failed to allocate" || true)
if [ -n "$findings" ]; then
  echo "sanitizer reports (build/asan-logs):"
  echo "$findings"
  exit 1
fi
exit "$status"
