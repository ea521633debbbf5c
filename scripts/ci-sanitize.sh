#!/usr/bin/env bash
# Builds everything with AddressSanitizer + UndefinedBehaviorSanitizer (CMake option
# GGUF_SANITIZE, g++ by default) in build-asan and runs the whole test suite there.
# Any sanitizer report fails the test that triggered it (the runtime aborts with a
# non-zero exit; ASan exit code 86, UBSan 87, so a report is never mistaken for a
# command's own exit code 1).
#
#   scripts/ci-sanitize.sh [extra ctest args]        (run from anywhere; installs nothing)
#
# Environment: GGUF_ASAN_BUILD (default build-asan), GGUF_TEST_DATA (default
# ../shared/data), JOBS (default 2). Budget: <= 25 min on 2 cores (build ~10 min,
# tests under the sanitizers ~3x slower than Release).
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${GGUF_ASAN_BUILD:-$root/build-asan}
jobs=${JOBS:-2}

export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=86:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-exitcode=87:print_stacktrace=1:halt_on_error=1}

# RelWithDebInfo: optimized like CI's Release build (same code paths, same speed class)
# with line numbers in the sanitizer reports.
mkdir -p "$build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGGUF_SANITIZE=ON \
  -DGGUF_BUILD_TESTS=ON -DGGUF_BUILD_BENCH=OFF -DGGUF_BUILD_FUZZ=OFF >"$build/cmake.log" 2>&1 ||
  { cat "$build/cmake.log" >&2; exit 1; }
if ! cmake --build "$build" -j"$jobs" >"$build/build.log" 2>&1; then
  grep -E 'error|Error' "$build/build.log" | head -40 >&2
  echo "ci-sanitize: build failed (full log: $build/build.log)" >&2
  exit 1
fi
cd "$build" && ctest --output-on-failure -j"$jobs" --timeout 1200 "$@"
