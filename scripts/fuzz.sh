#!/usr/bin/env bash
# The long differential fuzz run: random programs and the bad-input probe set, ember against torch.
# Usage: scripts/fuzz.sh [PROGRAMS (100000)] [SEED (1)] [JOBS (2)]
# Prints the summary; failures are minimised and saved as reproducers under tests/fuzz/found/.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 -m tests.fuzz --programs "${1:-100000}" --seed "${2:-1}" --jobs "${3:-2}" --probes
