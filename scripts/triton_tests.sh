#!/usr/bin/env bash
# Runs Triton's own Python tests through tmetal: the `python/test` folder of a
# Triton checkout at the release the plugin targets (3.6), with its
# conftest.py extended to make tmetal's driver the active one. The tests are
# Triton's and are not part of this repository; fetch them yourself.
#
#   scripts/triton_tests.sh TRITON_PYTHON_TEST_DIR [pytest arguments...]
#   e.g. scripts/triton_tests.sh ~/triton/python/test unit/language/test_core.py -n 16
#
# TRITON_METAL_DEVICE chooses the driver (default cuda: the CUDA validation
# mode on an NVIDIA GPU, which runs the same pipeline as Metal; docs/plugin.md,
# "Triton's own tests"). The core must be built into python/triton_metal/
# (scripts/setup.sh, or scripts/gpu_check.sh on a GPU machine). Writes
# junit.xml into $OUT (default /tmp/tmetal-triton-tests).
set -euo pipefail
if [ $# -lt 1 ] || [ ! -f "$1/conftest.py" ]; then
  echo "usage: $0 TRITON_PYTHON_TEST_DIR [pytest arguments...] (the folder holding Triton's test conftest.py)" >&2
  exit 2
fi
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SOURCE="$1"
shift
OUT="${OUT:-/tmp/tmetal-triton-tests}"
mkdir -p "$OUT"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cp -r "$SOURCE"/. "$WORK"/
cat >>"$WORK/conftest.py" <<'EOF'


# Added by tmetal's scripts/triton_tests.sh: every kernel goes through tmetal.
import triton  # noqa: E402
import triton_metal  # noqa: E402

triton_metal.activate()
assert type(triton.runtime.driver.active).__module__.startswith("triton_metal."), "tmetal's driver is not active"
EOF
# Tests that run kernels in a child Python (test_subprocess.py's prints and
# asserts) get tmetal's driver too: every Python started from here runs this
# sitecustomize first.
mkdir -p "$WORK/.tmetal-site"
cat >"$WORK/.tmetal-site/sitecustomize.py" <<'EOF'
import triton_metal

triton_metal.activate()
EOF
export TRITON_METAL_DEVICE="${TRITON_METAL_DEVICE:-cuda}"
export PYTHONPATH="$WORK/.tmetal-site:$ROOT/python${PYTHONPATH:+:$PYTHONPATH}"
cd "$WORK"
exec "${PYTHON:-python3}" -m pytest -q -p no:cacheprovider --tb=short --junitxml="$OUT/junit.xml" "$@"
