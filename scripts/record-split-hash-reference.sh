#!/usr/bin/env bash
# Records what llama.cpp's own gguf-hash and gguf-split (release v0.5.0, built by the
# reference setup script of the shared folder) print and write for the test data, into
# tests/cli/reference/ (small text files), so that the tests compare with llama.cpp
# without needing it.
#
#   hash/NAME.txt   gguf-hash --all | --uuid | --no-layer on DIR/NAME.gguf, and --check
#                   on its own manifest (paths relative to the data folder)
#   split/NAME.txt  gguf-split --split-max-tensors 3 | --split-max-size 1M |
#                   --split-max-tensors 5 --no-tensor-first-split |
#                   --split-max-size 1M --no-tensor-first-split: its plan lines, exit
#                   code, and each shard's sha256 and size
#   hash/flipped.txt  gguf-hash --check of a copy of models/stories260K-Q4_0.gguf with one
#                   tensor byte flipped (byte 200000 xor 1), named flipped.gguf
# Each file holds sections "## ARGS", the output lines, then "## exit N".
# Usage: scripts/record-split-hash-reference.sh   (GGUF_REF_DIR, default
# $HOME/.cache/gguf-ref; GGUF_TEST_DATA, default ../shared/data beside the repository)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ref=${GGUF_REF_DIR:-$HOME/.cache/gguf-ref}
data=$(cd "${GGUF_TEST_DATA:-$root/../shared/data}" && pwd)
out=$root/tests/cli/reference
hash_bin=$ref/bin/gguf-hash
split_bin=$ref/bin/gguf-split
for b in "$hash_bin" "$split_bin"; do
  [ -x "$b" ] || { echo "missing $b: run the reference setup script first" >&2; exit 2; }
done
export LD_LIBRARY_PATH=$ref/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
rm -rf "$out/hash" "$out/split"
mkdir -p "$out/hash" "$out/split"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

section() {  # section FILE ARGS... : runs ARGS in the data folder, appends its stdout and exit code
  local file=$1; shift
  echo "## ${*:2}" >>"$file"
  local rc=0
  (cd "$data" && "$@") >>"$file" 2>/dev/null || rc=$?
  echo "## exit $rc" >>"$file"
}

files=()
for f in "$data"/models/*.gguf "$data"/quant/*.gguf "$data"/vocab/*.gguf; do files+=("${f#$data/}"); done

for rel in "${files[@]}"; do
  name=$(basename "$rel" .gguf)
  h=$out/hash/$name.txt
  section "$h" "$hash_bin" --all "$rel"
  section "$h" "$hash_bin" --uuid "$rel"
  section "$h" "$hash_bin" --no-layer "$rel"
  (cd "$data" && "$hash_bin" --all --uuid "$rel") >"$tmp/manifest.txt"
  cp "$tmp/manifest.txt" "$out/hash/$name.manifest"
  section "$h" "$hash_bin" --check "$tmp/manifest.txt" "$rel"
  sed -i "s#$tmp/manifest.txt#MANIFEST#g" "$h"

  s=$out/split/$name.txt
  for args in "--split-max-tensors 3" "--split-max-size 1M" "--split-max-tensors 5 --no-tensor-first-split" \
              "--split-max-size 1M --no-tensor-first-split"; do
    rm -rf "$tmp/shards" && mkdir "$tmp/shards"
    echo "## $args" >>"$s"
    rc=0
    # shellcheck disable=SC2086
    "$split_bin" $args "$data/$rel" "$tmp/shards/$name" >"$tmp/split.out" 2>/dev/null || rc=$?
    grep -E '^(n_split|split [0-9]+):' "$tmp/split.out" >>"$s" || true
    echo "## exit $rc" >>"$s"
    for shard in "$tmp/shards"/*; do
      [ -e "$shard" ] || continue
      echo "$(sha256sum "$shard" | cut -d' ' -f1)  $(stat -c %s "$shard")  $(basename "$shard")" >>"$s"
    done
  done
done
rm -f "$out/hash/"*.manifest

# A flipped byte: gguf-hash's verdicts on its own manifest.
cp "$data/models/stories260K-Q4_0.gguf" "$tmp/flipped.gguf"
chmod u+w "$tmp/flipped.gguf"
python3 - "$tmp/flipped.gguf" <<'PY'
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(200000); b = f.read(1); f.seek(200000); f.write(bytes([b[0] ^ 1]))
PY
(cd "$data" && "$hash_bin" --all --uuid models/stories260K-Q4_0.gguf) | sed 's#models/stories260K-Q4_0.gguf#flipped.gguf#' >"$tmp/m.txt"
rc=0
(cd "$tmp" && "$hash_bin" --check m.txt flipped.gguf) >"$out/hash/flipped.txt" 2>/dev/null || rc=$?
echo "## exit $rc" >>"$out/hash/flipped.txt"
echo "recorded $(ls "$out/hash" | wc -l) hash and $(ls "$out/split" | wc -l) split files in $out"
