#!/usr/bin/env bash
# Installs what is missing on a Debian machine (LLVM/MLIR 22, clang-22 and
# its sanitizer runtimes, Ninja, CMake, GoogleTest, Google Benchmark,
# ccache, pybind11, the Python headers, pytest, pandas (the Python
# package's to_dataframe test), protobuf, tcmalloc), then configures and
# builds Blueprint. Safe to run again: it installs and rebuilds only what
# is missing or stale.
#
#   utils/build.sh             clang-22 into build/ (the README's build)
#   utils/build.sh gcc         the default compiler (GCC 12) into build-gcc/,
#                              configured as a plain `cmake -S . -B build-gcc
#                              -G Ninja` would be
#   utils/build.sh sanitized   clang-22 with AddressSanitizer,
#                              UndefinedBehaviorSanitizer and the libFuzzer
#                              harnesses into build-sanitized/
#                              (docs/Fuzzing.md)
#
# Every variant treats warnings as errors (-Werror on top of LLVM's -Wall
# -Wextra): project code builds warning-free on both compilers.
set -euo pipefail
cd "$(dirname "$0")/.."
variant=${1:-clang}

packages=(llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools clang-22
          lld-22 libclang-rt-22-dev ninja-build cmake g++ libgtest-dev
          libbenchmark-dev ccache python3 libxml2-utils python3-pybind11
          python3-dev python3-pytest python3-pandas protobuf-compiler
          libprotobuf-dev libtcmalloc-minimal4)
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
common=(-G Ninja -DLLVM_ENABLE_WERROR=ON -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
        -DCMAKE_C_COMPILER_LAUNCHER=ccache)
clang=(-DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22
       -DLLVM_USE_LINKER=lld)
case "$variant" in
  clang)
    dir=build
    options=("${clang[@]}" -DCMAKE_BUILD_TYPE=Release) ;;
  gcc)
    dir=build-gcc
    options=() ;;
  sanitized)
    dir=build-sanitized
    # Release code with debug information, so that sanitizer reports name
    # lines; benchmarks measure nothing useful under sanitizers.
    options=("${clang[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo
             -DBLUEPRINT_SANITIZERS=address,undefined
             -DBLUEPRINT_BUILD_FUZZERS=ON -DBLUEPRINT_BUILD_BENCHMARKS=OFF) ;;
  *)
    echo "usage: utils/build.sh [clang|gcc|sanitized]" >&2
    exit 2 ;;
esac
if [ ! -f "$dir/build.ninja" ]; then
  cmake -S . -B "$dir" "${common[@]}" "${options[@]}"
fi
ninja -C "$dir" -j "${BLUEPRINT_JOBS:-2}"
