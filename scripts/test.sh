#!/usr/bin/env bash
# Sets up, builds, and runs every test: C++ unit tests (ctest), the Python
# tests and the kernel suite (pytest), the TTIR corpus freshness check and a
# bounded fuzzing run over user input (TTIR, its compilation, ops JSON, .npy).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$PWD/build/bin:$PATH"

echo "== C++ unit tests"
ctest --test-dir build --output-on-failure -j 2

echo "== TTIR corpus is up to date"
.venv/bin/python scripts/gen_ttir.py --check

echo "== Python tests and the kernel suite"
.venv/bin/python -m pytest -q tests

echo "== Fuzzing: TTIR reader, code generator, ops JSON, .npy"
bash scripts/fuzz.sh "${TMETAL_FUZZ_SECONDS:-60}"
