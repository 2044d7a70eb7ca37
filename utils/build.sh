#!/usr/bin/env bash
# Installs what is missing on a Debian machine (LLVM/MLIR 22, Ninja, CMake,
# GoogleTest, Google Benchmark, ccache), then configures and builds Blueprint
# into ./build. Safe to run again: it installs and rebuilds only what is
# missing or stale.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools clang-22
          lld-22 ninja-build cmake libgtest-dev libbenchmark-dev ccache
          python3)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
    missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    --no-install-recommends "${missing[@]}"
fi

# ccache hits across clones in other folders (CI builds a fresh clone).
export CCACHE_BASEDIR="$PWD"
if [ ! -f build/build.ninja ]; then
  cmake -G Ninja -S . -B build \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld \
    -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DPython3_EXECUTABLE=/usr/bin/python3
fi
ninja -C build -j "${BLUEPRINT_JOBS:-2}"
