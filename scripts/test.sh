#!/usr/bin/env bash
# Runs every test: builds Ember, then the C++ (GoogleTest, plus a find_package consumer) and
# Python (pytest, against torch 2.13) suites.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

jobs=$(nproc)
cmake -S . -B build/cpp -G Ninja -DEMBER_TESTS=ON -DCMAKE_INSTALL_PREFIX="$PWD/build/install" >/dev/null
cmake --build build/cpp -j "$jobs"
ctest --test-dir build/cpp --output-on-failure -j "$jobs"

# The C++ example builds against the installed package with find_package(ember).
cmake --install build/cpp >/dev/null
cmake -S examples/cpp -B build/example -G Ninja -DCMAKE_PREFIX_PATH="$PWD/build/install" >/dev/null
cmake --build build/example
LD_LIBRARY_PATH="$PWD/build/install/lib:${LD_LIBRARY_PATH:-}" ./build/example/tensor_basics >/dev/null
echo "C++ example: built with find_package(ember) and ran"

python3 -m pytest -q tests/python
