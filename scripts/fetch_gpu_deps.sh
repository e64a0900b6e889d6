#!/usr/bin/env bash
# Run HERE, on a development machine (Debian 12, with network), before the
# tree is carried to the NVIDIA machine, which has CMake, ninja, a C++
# compiler, CUDA and Python but no network and not every library tmetal
# builds against. Downloads the Debian packages of those libraries into
# .gpu-deps/ (ignored by git through .git/info/exclude); the device run
# carries that folder (carry: [".gpu-deps"]) and scripts/gpu_check.sh
# unpacks the packages into a private prefix with dpkg-deb -x (never into /).
#
# Header-only: nlohmann-json, CLI11. With libraries: fmt 9, GoogleTest,
# Boost 1.74 (context: the emulator's fibers; built but unused there).
# About 11 MB of .deb files.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  nlohmann-json3-dev libcli11-dev
  libfmt-dev libfmt9
  libgtest-dev
  libboost1.74-dev libboost-context1.74-dev libboost-context1.74.0
)

exclude="$(git rev-parse --git-path info/exclude)"
mkdir -p "$(dirname "$exclude")"
grep -qxF '/.gpu-deps/' "$exclude" 2>/dev/null || echo '/.gpu-deps/' >>"$exclude"

mkdir -p .gpu-deps
rm -f .gpu-deps/*.deb
if ! (cd .gpu-deps && apt-get download "${PACKAGES[@]}"); then
  echo "fetch_gpu_deps: apt-get download failed; refreshing the package lists and trying again" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -q
  (cd .gpu-deps && apt-get download "${PACKAGES[@]}")
fi
ls -l .gpu-deps
echo "fetch_gpu_deps: $(ls .gpu-deps/*.deb | wc -l) packages in .gpu-deps/ ($(du -sh .gpu-deps | cut -f1)); carry '.gpu-deps' with the device run"
