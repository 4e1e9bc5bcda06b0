#!/usr/bin/env bash
# On a lent GPU machine, after scripts/gpu_check.sh has built Ember there: the CUDA tests, the CUDA benchmarks and
# one epoch of the main job on the GPU with Ember and with torch. Logs go to the folder given (default gpu-logs):
# pytest.log, bench.log, main_job.log. Usage: bash scripts/gpu_check.sh bash scripts/gpu_suite.sh "$OUT"
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-gpu-logs}
mkdir -p "$out"
python3 -m pytest -q -n "$(nproc)" -p no:cacheprovider --timeout 300 --tb=short -rf \
  tests/python/test_cuda_*.py tests/python/test_opdb_cuda.py > "$out/pytest.log" 2>&1
tail -n 3 "$out/pytest.log"
for b in bench/bench_cuda_*.py; do
  echo "== $b"
  (cd bench && timeout 180 python3 "$(basename "$b")")
done > "$out/bench.log" 2>&1
grep -E "ratio|==" "$out/bench.log" | head -n 60
data=${EMBER_FMNIST:-/usr/share/datasets/fashion-mnist}
if [ -d "$data" ]; then
  for backend in ember torch; do
    timeout 300 python3 examples/python/train_fashion_mnist.py --epochs 1 --device cuda --backend "$backend" \
      --data "$data" --no-progress --workers 4 --out "/tmp/main-job-$backend"
  done > "$out/main_job.log" 2>&1
  grep -E "^epoch|accuracy|Error" "$out/main_job.log"
fi
