#!/usr/bin/env bash
# Records what llama.cpp's own reader sees in files edited in place by `gguf edit`, into
# tests/format/data/llamacpp-inplace/NAME.txt (tests/format/test_edit_llamacpp.cpp makes
# the same edits and compares what our reader sees). For each file it also checks, with
# llama.cpp's gguf-hash, that every tensor's bytes are unchanged, and that libllama loads
# the edited model.
#
# The edits: a 200-byte general.description added (a streamed rewrite), then removed
# together with general.name set to "edited in place" (in place: the metadata shrinks,
# so the filler key gguf.padding keeps the data section where it was).
#
# Usage: scripts/record-edit-llamacpp.sh [BUILD_DIR]
# Needs the llama.cpp reference (../shared/reference/setup.sh): GGUF_REF_DIR, default
# $HOME/.cache/gguf-ref; GGUF_TEST_DATA, default ../shared/data.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
. "$root/scripts/reference.sh"
out=$root/tests/format/data/llamacpp-inplace
gguf=$build/gguf
[ -x "$gguf" ] || { echo "build gguf first ($gguf)" >&2; exit 2; }
[ -d "$B" ] || { echo "llama.cpp reference missing in $ref (run ../shared/reference/setup.sh)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
g++ -O2 -std=c++17 -I"$S/include" -I"$S/ggml/include" "$root/scripts/llamacpp_gguf_view.cpp" -o "$tmp/view" \
    -L"$B" -l:libllama.v0.5.0.so -l:libggml.v0.5.0.so -l:libggml-base.so -Wl,-rpath,"$B"
export NLC_BINDIR=$B
mkdir -p "$out"
desc=$(printf 'd%.0s' $(seq 200))
for src in "$data"/models/*.gguf "$data"/vocab/ggml-vocab-llama-spm.gguf "$data"/vocab/ggml-vocab-gpt-2.gguf; do
  name=$(basename "$src" .gguf)
  f=$tmp/$name.gguf
  cp "$src" "$f" && chmod u+w "$f"
  "$gguf" edit "$f" -q --set "general.description=$desc" --in-place=never
  "$gguf" edit "$f" --rm general.description --set "general.name=edited in place" --in-place=always |
    grep -q "edited in place" || { echo "$name: not edited in place" >&2; exit 1; }
  load=--load
  case $name in ggml-vocab-*|superpoint) load= ;; esac  # vocab only; superpoint is not an LLM
  "$tmp/view" "$f" $load > "$out/$name.txt"
  # The same tensors, byte for byte, as llama.cpp's gguf-hash sees them.
  "$ref/bin/gguf-hash" --xxh64 "$src" | sed "s|$src||" > "$tmp/a"
  "$ref/bin/gguf-hash" --xxh64 "$f" | sed "s|$f||" > "$tmp/b"
  cmp -s "$tmp/a" "$tmp/b" || { echo "$name: tensor data differs after the edit" >&2; exit 1; }
  echo "$name: llama.cpp reads the in-place edit; $(grep -c '^tensor ' "$out/$name.txt") tensors unchanged" \
       "$(grep '^llama_model_load' "$out/$name.txt" || true)"
done
