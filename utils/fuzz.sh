#!/usr/bin/env bash
# Runs one libFuzzer harness of test/Fuzz for SECONDS seconds:
#
#   utils/fuzz.sh json|megatron|ir SECONDS [libFuzzer options...]
#
# It builds the sanitized variant (utils/build.sh sanitized) if needed, starts
# from the seed corpus test/Fuzz/corpus/NAME with the dictionary
# test/Fuzz/dict/NAME.dict, and keeps what it finds under
# build-sanitized/fuzz/NAME: the grown corpus in corpus/ and any crashing
# input in artifacts/. It fails if the harness finds a crash, a leak of the
# stack or a sanitizer report. docs/Fuzzing.md explains how a finding becomes
# a lit regression test.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
  echo "usage: utils/fuzz.sh json|megatron|ir SECONDS [libFuzzer options...]" >&2
  exit 2
fi
name=$1
seconds=$2
shift 2
case "$name" in
  json|megatron|ir) ;;
  *) echo "utils/fuzz.sh: no harness '$name' (json, megatron, ir)" >&2
     exit 2 ;;
esac

utils/build.sh sanitized > /dev/null
work=build-sanitized/fuzz/$name
mkdir -p "$work/corpus" "$work/artifacts"
# See test/CMakeLists.txt: Debian's uninstrumented LLVM makes ASan's user
# poisoning report false use-after-poison in MLIRContext's constructor.
export ASAN_OPTIONS=allow_user_poisoning=0:detect_leaks=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# New inputs go to the build tree's corpus; the seeds are only read.
exec build-sanitized/bin/blueprint-fuzz-"$name" "$work/corpus" \
  "test/Fuzz/corpus/$name" -dict="test/Fuzz/dict/$name.dict" \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
  -artifact_prefix="$work/artifacts/" -print_final_stats=1 "$@"
