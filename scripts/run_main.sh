#!/usr/bin/env bash
# Ember's main job: install, build, and run the main example (the seed documents' tensor basics).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
python3 examples/python/tensor_basics.py
