#!/usr/bin/env bash
# Records ggml's row quantization (ggml_quantize_chunk of llama.cpp v0.5.0's libggml-base)
# for the replay test test_quantize_rows: builds scripts/quant_rows_driver.cpp against the
# reference set up by ../shared/reference/setup.sh and writes tests/quant/data/quant_rows.tsv.
# Usage: scripts/record-quant-rows.sh [REF_DIR]   (default: $GGUF_REF_DIR or ~/.cache/gguf-ref)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ref=${1:-}
. "$root/scripts/reference.sh"
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
g++ -O2 -std=c++20 -I"$S/ggml/include" "$root/scripts/quant_rows_driver.cpp" -o "$out/driver" \
    -L"$B" -l:libggml-base.so -Wl,-rpath,"$B" -lcrypto
mkdir -p "$root/tests/quant/data"
"$out/driver" > "$out/quant_rows.tsv"
mv "$out/quant_rows.tsv" "$root/tests/quant/data/quant_rows.tsv"
echo "recorded $(grep -vc '^#' "$root/tests/quant/data/quant_rows.tsv") cases in tests/quant/data/quant_rows.tsv"
