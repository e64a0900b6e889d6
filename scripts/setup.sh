#!/usr/bin/env bash
# Installs what tmetal needs (Debian packages, a Python virtual environment)
# and builds it. Safe to run again: it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  cmake ninja-build clang lld libclang-rt-14-dev  # compiler, and the emulator's MSL-as-C++ compiler
  nlohmann-json3-dev libcli11-dev libfmt-dev       # JSON, command line, formatting
  libgtest-dev libbenchmark-dev                    # tests and benchmarks
  libboost-context-dev                             # fibers for the emulator's threads
  python3 python3-venv python3-pip                 # the Triton frontend and Python tests
  python3-dev                                      # Python headers for the triton_metal._core binding
)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
fi

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -r requirements.txt

cmake -S . -B build -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C build

# The Triton plugin: ninja built its core into python/triton_metal/; register
# the package (and its `triton.backends` entry point) in .venv without
# building the C++ a second time.
.venv/bin/python -m pip install -q --no-build-isolation --no-deps -e . -Cwheel.cmake=false
