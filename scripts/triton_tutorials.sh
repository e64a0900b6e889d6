#!/usr/bin/env bash
# Runs one of Triton's tutorials (`python/tutorials` of a Triton checkout at
# the release the plugin targets, 3.6) through tmetal: as a script, with its
# benchmarks (`triton.testing.perf_report`) turned off so that only its own
# correctness checks run, or, with --test, its pytest tests. The tutorials
# are Triton's and are not part of this repository; fetch them yourself.
#
#   scripts/triton_tutorials.sh TUTORIAL.py [tutorial arguments...]
#   scripts/triton_tutorials.sh --test TUTORIAL.py [pytest arguments...]
#   e.g. scripts/triton_tutorials.sh --test ~/triton/python/tutorials/06-fused-attention.py -k test_op
#
# TRITON_METAL_DEVICE chooses the driver (default cuda: the CUDA validation
# mode on an NVIDIA GPU; docs/plugin.md). The core must be built into
# python/triton_metal/ (scripts/setup.sh, or scripts/gpu_check.sh on a GPU
# machine). Exits non-zero when the tutorial fails.
set -euo pipefail
TEST=0
if [ "${1:-}" = --test ]; then
  TEST=1
  shift
fi
if [ $# -lt 1 ] || [ ! -f "$1" ]; then
  echo "usage: $0 [--test] TUTORIAL.py [arguments...]" >&2
  exit 2
fi
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TUTORIAL="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
shift
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
# Every Python started from here (pytest's too) makes tmetal's driver the
# active one first.
cat >"$WORK/sitecustomize.py" <<'PY'
import triton_metal

triton_metal.activate()
PY
export TRITON_METAL_DEVICE="${TRITON_METAL_DEVICE:-cuda}"
export PYTHONPATH="$WORK:$ROOT/python${PYTHONPATH:+:$PYTHONPATH}"
export MPLBACKEND=Agg
cd "$(dirname "$TUTORIAL")"
if [ $TEST = 1 ]; then
  "${PYTHON:-python3}" -m pytest -q -p no:cacheprovider --import-mode=importlib --tb=short "$TUTORIAL" "$@"
  exit $?
fi
cat >"$WORK/run_tutorial.py" <<'PY'
import runpy
import sys

import triton.testing


class _NoBenchmark:
    """A perf_report'd function: callable, its run() does nothing."""

    def __init__(self, fn):
        self.fn = fn

    def run(self, *args, **kwargs):
        print("(benchmark skipped)")

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)


triton.testing.perf_report = lambda benchmarks: (lambda fn: _NoBenchmark(fn))
sys.argv = sys.argv[1:]  # the tutorial parses its own arguments
runpy.run_path(sys.argv[0], run_name="__main__")
PY
"${PYTHON:-python3}" "$WORK/run_tutorial.py" "$TUTORIAL" "$@"
