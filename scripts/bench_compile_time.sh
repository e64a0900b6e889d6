#!/usr/bin/env bash
# Measures TTIR -> MSL compile time for every suite kernel and records the
# result, with machine, date and commit, in bench/results/.
set -euo pipefail
cd "$(dirname "$0")/.."
ninja -C build bench_compile_time >/dev/null
commit=$(git rev-parse --short HEAD)
date=$(date -u +%Y-%m-%d)
out=bench/results/compile_time-${date}-${commit}.json
build/bin/bench_compile_time --benchmark_min_time=0.2 --benchmark_out="$out" --benchmark_out_format=json \
  --benchmark_context=commit="$commit" --benchmark_context=cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)" \
  --benchmark_context=cores="$(nproc)"
.venv/bin/python scripts/summarize_compile_time.py "$out"
