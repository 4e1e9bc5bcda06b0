#!/usr/bin/env bash
# Ember's main job: install, build, then train seed 002's CNN on Fashion-MNIST and report (progress, per-epoch
# summaries, checkpoints, plots; the last line gives the test accuracy and the output folder). Options are passed
# on: `bash scripts/run_main.sh --epochs 2`, `--backend torch`, `--resume`; `--help` lists them.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
python3 examples/python/train_fashion_mnist.py "$@"
