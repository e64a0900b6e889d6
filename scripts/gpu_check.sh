#!/usr/bin/env bash
# The CUDA target on a real NVIDIA GPU, in one command: builds tmetal from
# this tree with what the machine has, runs the CUDA unit tests (kernels
# launched and timed on the GPU) and the kernel suite through
# `tmetal run --device cuda` against the NumPy references, builds the Python
# binding and runs the suite through the Triton plugin's CUDA validation mode
# (tests/python/test_plugin_cuda.py, TRITON_METAL_DEVICE=cuda, on PyTorch
# CUDA tensors), and writes the results into $OUT (default
# /tmp/tmetal-gpu-check). Exits non-zero when anything failed. docs/cuda.md,
# "Running on an NVIDIA GPU".
#
# The machine it is written for has no network: CUDA (driver, toolkit with
# NVRTC), CMake, ninja, a C++ compiler and Python with NumPy, pytest and
# Triton, but not necessarily the libraries tmetal builds against. Those come
# from .gpu-deps/ (Debian packages that scripts/fetch_gpu_deps.sh downloads
# on a development machine; carry that folder), unpacked into a private
# prefix. Libraries the machine has itself are used when .gpu-deps/ is absent.
#
# Environment: OUT, CXX, PYTHON (default python3; the binding is built for
# it: nanobind, and PyTorch with CUDA for the plugin step), TMETAL_SUITE_DEVICES
# (default interpreter,cuda), GPU_CHECK_JOBS (default: the cores),
# GPU_CHECK_BUILD (the build folder, default build-gpu), GPU_CHECK_STOP_AFTER=build
# (build tmetal, then stop: for benchmark runs).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
OUT="${OUT:-/tmp/tmetal-gpu-check}"
mkdir -p "$OUT"
PYTHON="${PYTHON:-python3}"
JOBS="${GPU_CHECK_JOBS:-$(nproc)}"
BUILD="${GPU_CHECK_BUILD:-$ROOT/build-gpu}"
PREFIX="/tmp/tmetal-gpu-deps"
SUMMARY="$OUT/summary.txt"
START=$SECONDS
: >"$SUMMARY"

say() { echo "gpu_check: $*" | tee -a "$SUMMARY"; }
fail() {
  say "FAILED: $*"
  say "total $((SECONDS - START)) s"
  exit 1
}

# ---- 1. what the machine has ---------------------------------------------------
{
  echo "== date"; date -u
  echo "== nvidia-smi"; nvidia-smi 2>&1 || echo "nvidia-smi: not available"
  echo "== uname"; uname -a
  echo "== os"; cat /etc/os-release 2>/dev/null | head -3
  for tool in clang++ g++ c++ cmake ninja make nvcc dpkg-deb "$PYTHON"; do
    echo "== $tool: $(command -v "$tool" || echo 'not found')"
    command -v "$tool" >/dev/null && "$tool" --version 2>&1 | head -2
  done
  echo "== libcuda / libnvrtc in the loader cache"
  ldconfig -p 2>/dev/null | grep -E "libcuda\.so|libnvrtc\.so" || echo "(none listed)"
  ls -d /usr/local/cuda* 2>/dev/null
  echo "== python packages"
  "$PYTHON" - <<'EOF' 2>&1
import importlib
for name in ("numpy", "pytest", "xdist", "triton", "torch", "cmake", "ninja"):
    try:
        m = importlib.import_module(name)
        print(f"{name} {getattr(m, '__version__', '?')}")
    except Exception as e:
        print(f"{name}: not importable ({e.__class__.__name__})")
EOF
} >"$OUT/environment.txt" 2>&1
say "machine: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1 || echo 'no nvidia-smi')"

# ---- 2. tools: CMake, ninja, a C++20 compiler ----------------------------------
CMAKE="$(command -v cmake || true)"
if [ -z "$CMAKE" ]; then
  dir="$("$PYTHON" -c 'import cmake; print(cmake.CMAKE_BIN_DIR)' 2>/dev/null)" && CMAKE="$dir/cmake"
fi
[ -x "$CMAKE" ] || fail "no cmake (neither on PATH nor the Python package 'cmake')"
GENERATOR=Ninja
NINJA="$(command -v ninja || true)"
if [ -z "$NINJA" ]; then
  dir="$("$PYTHON" -c 'import ninja; print(ninja.BIN_DIR)' 2>/dev/null)" && NINJA="$dir/ninja"
fi
if [ ! -x "$NINJA" ]; then
  command -v make >/dev/null || fail "neither ninja nor make found"
  GENERATOR="Unix Makefiles"
  NINJA=""
fi
if [ -z "${CXX:-}" ]; then
  for c in clang++ g++ c++; do
    if command -v "$c" >/dev/null; then CXX="$(command -v "$c")"; break; fi
  done
fi
[ -n "${CXX:-}" ] || fail "no C++ compiler (clang++, g++ or c++; or set CXX)"
say "tools: $CMAKE, ${NINJA:-make}, $CXX"

# ---- 3. libraries from .gpu-deps/ ------------------------------------------------
PREFIX_PATH=""
if compgen -G ".gpu-deps/*.deb" >/dev/null; then
  rm -rf "$PREFIX" && mkdir -p "$PREFIX"
  for deb in .gpu-deps/*.deb; do
    if command -v dpkg-deb >/dev/null; then
      dpkg-deb -x "$deb" "$PREFIX" || fail "cannot unpack $deb"
    else
      # A .deb is an ar archive holding data.tar.*: unpack it without dpkg.
      "$PYTHON" - "$deb" "$PREFIX" <<'EOF' || fail "cannot unpack $deb"
import io, sys, tarfile
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"!<arch>\n", "not an ar archive"
pos = 8
while pos < len(data):
    name = data[pos:pos + 16].decode().strip().rstrip("/")
    size = int(data[pos + 48:pos + 58].decode().strip())
    body = data[pos + 60:pos + 60 + size]
    if name.startswith("data.tar"):
        tarfile.open(fileobj=io.BytesIO(body)).extractall(sys.argv[2])
    pos += 60 + size + (size % 2)
EOF
    fi
  done
  PREFIX_PATH="$PREFIX/usr"
  export LD_LIBRARY_PATH="$PREFIX/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  say "libraries: $(ls .gpu-deps/*.deb | wc -l) packages from .gpu-deps/ unpacked into $PREFIX"
else
  say "libraries: no .gpu-deps/ carried; using the machine's own (scripts/fetch_gpu_deps.sh makes .gpu-deps/)"
fi

# ---- 4. NVRTC: the toolkit's, else the one a Python wheel ships ------------------
if ! ldconfig -p 2>/dev/null | grep -q "libnvrtc\.so" && ! compgen -G "/usr/local/cuda/lib64/libnvrtc.so.*" >/dev/null &&
  [ -z "${TMETAL_NVRTC_LIBRARY:-}" ]; then
  found="$("$PYTHON" - <<'EOF'
import glob, os, site
roots = site.getsitepackages() + [site.getusersitepackages()]
libs = sorted(p for r in roots for p in glob.glob(os.path.join(r, "nvidia", "**", "libnvrtc.so.*[0-9]"), recursive=True)
              if "builtins" not in p and ".alt." not in p)
incs = sorted(os.path.dirname(p) for r in roots for p in glob.glob(os.path.join(r, "nvidia", "**", "cuda_fp16.h"), recursive=True))
print(libs[-1] if libs else "", incs[-1] if incs else "")
EOF
)"
  read -r lib inc <<<"$found"
  [ -n "$lib" ] && export TMETAL_NVRTC_LIBRARY="$lib"
  [ -n "$inc" ] && export TMETAL_CUDA_INCLUDE="$inc"
  say "NVRTC: not in the toolkit; from Python: ${lib:-none} (headers ${inc:-none})"
fi

# ---- 5. build ---------------------------------------------------------------------
BUILD_START=$SECONDS
{
  "$CMAKE" -S . -B "$BUILD" -G "$GENERATOR" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$CXX" \
    ${PREFIX_PATH:+-DCMAKE_PREFIX_PATH="$PREFIX_PATH"} ${NINJA:+-DCMAKE_MAKE_PROGRAM="$NINJA"} \
    -DTMETAL_BENCH=OFF -DTMETAL_TESTS=ON -DTMETAL_PYTHON=ON -DPython_EXECUTABLE="$(command -v "$PYTHON")" &&
    "$CMAKE" --build "$BUILD" -j "$JOBS" --target tmetal test_runtime_cuda test_codegen_cuda_nvrtc test_codegen_cuda_dialect
} >"$OUT/build.log" 2>&1 || fail "build (see build.log; last lines: $(tail -5 "$OUT/build.log" | tr '\n' ' '))"
say "build: $((SECONDS - BUILD_START)) s"
if [ "${GPU_CHECK_STOP_AFTER:-}" = build ]; then
  say "stopping after the build (GPU_CHECK_STOP_AFTER=build): $BUILD/bin/tmetal, libraries in $PREFIX"
  exit 0
fi

# The Python binding (triton_metal._core, into python/triton_metal/) for the
# plugin step: needs nanobind and the Python headers of $PYTHON. When it
# cannot be built, the plugin step is skipped and says why; the rest goes on.
BINDING=""
BINDING_START=$SECONDS
if grep -q "Python binding not built" "$OUT/build.log"; then
  BINDING="$(grep -m1 "Python binding not built" "$OUT/build.log" | sed 's/^-- //')"
elif ! "$CMAKE" --build "$BUILD" -j "$JOBS" --target _core >"$OUT/binding_build.log" 2>&1; then
  BINDING="build failed (binding_build.log: $(tail -3 "$OUT/binding_build.log" | tr '\n' ' '))"
fi
if [ -z "$BINDING" ]; then
  say "binding: triton_metal._core built for $("$PYTHON" --version 2>&1) [$((SECONDS - BINDING_START)) s]"
else
  say "binding: NOT built, the plugin step is skipped: ${BINDING:-?}"
fi

# ---- 6. CUDA unit tests: NVRTC, dialect, runtime on the GPU ------------------------
failures=0
UNIT_START=$SECONDS
: >"$OUT/unit_tests.log"
for t in test_codegen_cuda_dialect test_codegen_cuda_nvrtc test_runtime_cuda; do
  # CI=true: a missing NVRTC fails instead of skipping.
  CI=true "$BUILD/tests/unit/$t" --gtest_color=no >"$OUT/$t.part" 2>&1
  rc=$?
  cat "$OUT/$t.part" >>"$OUT/unit_tests.log"
  counts="$(grep -E '^\[  (PASSED|FAILED|SKIPPED) +\] [0-9]+ test' "$OUT/$t.part" | sed 's/[][]//g' | tr -s ' ' | tr '\n' ';')"
  rm -f "$OUT/$t.part"
  if [ $rc -eq 0 ]; then say "unit: $t passed ($counts)"; else say "unit: $t FAILED ($counts)"; failures=$((failures + 1)); fi
done
grep -q "SKIPPED \] CudaRuntime.VectorAdd" "$OUT/unit_tests.log" &&
  { say "unit: the GPU tests were SKIPPED: no NVIDIA driver was found"; failures=$((failures + 1)); }
say "unit tests: $((SECONDS - UNIT_START)) s"

# ---- 7. the kernel suite through the cuda device -------------------------------------
SUITE_START=$SECONDS
XDIST=()
"$PYTHON" -c "import xdist" 2>/dev/null && XDIST=(-n "$(( JOBS < 8 ? JOBS : 8 ))")
TMETAL_BIN="$BUILD/bin/tmetal" TMETAL_SUITE_DEVICES="${TMETAL_SUITE_DEVICES:-interpreter,cuda}" PYTHONUNBUFFERED=1 \
  "$PYTHON" -m pytest -q -p no:cacheprovider tests/kernels/test_kernel_suite.py "${XDIST[@]}" \
  --junitxml="$OUT/suite_junit.xml" >"$OUT/suite.log" 2>&1
suite_rc=$?
[ $suite_rc -eq 0 ] || failures=$((failures + 1))
say "suite (${TMETAL_SUITE_DEVICES:-interpreter,cuda}): $(tail -1 "$OUT/suite.log") [$((SECONDS - SUITE_START)) s]"
if [ $suite_rc -ne 0 ]; then
  grep -E "^FAILED" "$OUT/suite.log" | head -40 | tee -a "$SUMMARY"
fi

# ---- 8. the suite through the Triton plugin's CUDA validation mode ---------------------
if [ -z "$BINDING" ]; then
  PLUGIN_START=$SECONDS
  TRITON_METAL_DEVICE=cuda PYTHONPATH="$ROOT/python${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 \
    "$PYTHON" -m pytest -q -p no:cacheprovider tests/python/test_plugin_cuda.py -rfEs "${XDIST[@]}" \
    --junitxml="$OUT/plugin_cuda_junit.xml" >"$OUT/plugin_cuda.log" 2>&1
  plugin_rc=$?
  if [ $plugin_rc -ne 0 ]; then
    failures=$((failures + 1))
  elif grep -q "nanobind: leaked" "$OUT/plugin_cuda.log"; then
    say "plugin (TRITON_METAL_DEVICE=cuda): objects of the binding were still alive at exit: $(grep -m1 "nanobind: leaked" "$OUT/plugin_cuda.log")"
    failures=$((failures + 1))
  elif ! tail -1 "$OUT/plugin_cuda.log" | grep -q "passed"; then
    say "plugin (TRITON_METAL_DEVICE=cuda): nothing ran: $(grep -m1 "^SKIPPED" "$OUT/plugin_cuda.log")"
    failures=$((failures + 1))
  fi
  say "plugin (TRITON_METAL_DEVICE=cuda, tests/python/test_plugin_cuda.py): $(tail -1 "$OUT/plugin_cuda.log") [$((SECONDS - PLUGIN_START)) s]"
  if [ $plugin_rc -ne 0 ]; then
    grep -E "^(FAILED|ERROR)" "$OUT/plugin_cuda.log" | head -40 | tee -a "$SUMMARY"
  fi
else
  say "plugin (TRITON_METAL_DEVICE=cuda): skipped: the binding was not built"
fi

say "total $((SECONDS - START)) s; results in $OUT"
[ $failures -eq 0 ] || { say "FAILED: $failures step(s)"; exit 1; }
if [ -n "$BINDING" ]; then say "all passed, but the plugin step did not run (the binding was not built)"; else say "all passed"; fi
