#!/usr/bin/env bash
# Sets up and builds tmetal, then runs a bundled Triton kernel (vector add)
# through the reference interpreter and prints its output.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python examples/quickstart.py
