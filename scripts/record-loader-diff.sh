#!/usr/bin/env bash
# Records the loader differential of issue 29, item 4: the cases of gen_loader_cases.py
# loaded by llama.cpp v0.5.0 (vocab-only and full) into
# tests/schema/data/llama_loader_cases.json, which tests/cli/test_validate_loader.cpp
# replays against `gguf validate`. Needs ../shared/reference/setup.sh's llama.cpp and a
# build of this repository (build/libgguf_format.a).
# Usage: scripts/record-loader-diff.sh [BUILD_DIR] [DATA_DIR (default $GGUF_TEST_DATA or ../shared/data)]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
data=${2:-}
. "$root/scripts/reference.sh"
[ -f "$B/libllama.v0.5.0.so" ] || { echo "no llama.cpp reference in $ref (run ../shared/reference/setup.sh)" >&2; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cmake --build "$build" --target gguf_format >/dev/null   # the writer and reader the cases are built with
lib=$build/libgguf_format.a
g++ -O1 -std=c++20 -I"$S/include" -I"$S/ggml/include" -I"$root/include" -I"$root/tests/support" \
    "$root/scripts/llama_loader_diff.cpp" -o "$work/diff" "$lib" \
    -L"$B" -l:libllama.v0.5.0.so -l:libggml.v0.5.0.so -l:libggml-base.so -Wl,-rpath,"$B" -lpthread -ldl
python3 "$root/scripts/gen_loader_cases.py" > "$work/cases.json"
mkdir -p "$root/tests/schema/data"
LLAMA_BACKEND_DIR=$B "$work/diff" "$work/cases.json" "$data" "$root/tests/schema/data/llama_loader_cases.json" 2> "$work/log" || { cat "$work/log" >&2; exit 1; }
echo "wrote tests/schema/data/llama_loader_cases.json ($(grep -c '' "$work/log") cases)"
