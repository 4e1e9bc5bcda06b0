#!/usr/bin/env bash
# Ember's main job: install, build, and run the main examples (the seed documents' tensor basics
# and autograd examples).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
python3 examples/python/tensor_basics.py
python3 examples/python/autograd_basics.py
