#!/usr/bin/env bash
# Records the memory a reference llama.cpp allocates (weights, KV cache / recurrent state,
# output buffer, compute buffer, refusals) for the models of the test data and for the
# handcrafted architecture fixtures, over a grid of context settings, into
# tests/model/data/estimate_reference.json (the truth `gguf estimate` is tested against).
#
# Usage: scripts/record-estimate.sh [BUILD_DIR]
#   GGUF_REF_DIR   the reference llama.cpp (default $HOME/.cache/gguf-ref; made by
#                  ../shared/reference/setup.sh): headers in llsrc/, libraries in node_modules/
#   GGUF_TEST_DATA the test data folder (default ../shared/data)
# Needs: g++, python3, a built test_model (BUILD_DIR, default build) to write the fixtures.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
. "$root/scripts/reference.sh"
[ -f "$S/include/llama.h" ] && [ -d "$B" ] || { echo "no reference llama.cpp in $ref" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

g++ -O1 -std=c++17 -I"$S/include" -I"$S/src" -I"$S/ggml/include" \
    "$root/scripts/estimate_driver.cpp" -o "$work/estimate_driver" \
    -L"$B" -l:libllama.v0.5.0.so -l:libggml.v0.5.0.so -l:libggml-base.so -Wl,-rpath,"$B" -ldl

# The handcrafted architecture files, written by the test that checks them.
mkdir -p "$work/fixtures"
GGUF_ESTIMATE_FIXTURES="$work/fixtures" "$build/tests/test_model" \
    --gtest_filter='EstimateFixtures.*' >/dev/null

mkdir -p "$root/tests/model/data"
GGML_BACKEND_DIR=$B python3 "$root/scripts/record_estimate.py" "$work/estimate_driver" \
    "$root/tests/model/data/estimate_reference.json" "$data" "$work/fixtures"
echo "wrote tests/model/data/estimate_reference.json"
