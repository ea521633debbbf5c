#!/usr/bin/env bash
# Shards, hashes and byte order on a large model, next to the usual tools:
#   gguf hash --sha256 / --xxh64 (with and without per-tensor lines, 1 and 2 threads)
#     vs sha256sum / xxh64sum (Debian package xxhash) of the same file, page cache warm;
#   gguf split (4 shards) and gguf merge vs cp, and vs cp + sync (split and merge fsync
#     what they write), with max RSS; gguf convert-endian vs cp.
# The model (16 f16 tensors of random bytes, BENCH_SIZE_MIB in all) is made in BENCH_DIR
# and removed at the end. Prints medians of BENCH_RUNS runs (seconds), GB/s and ratios.
# Usage: bench/shards_bench.sh [BUILD_DIR]   (BENCH_DIR /tmp, BENCH_SIZE_MIB 2048, BENCH_RUNS 5)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
gguf=${1:-$root/build}/gguf
dir=$(mktemp -d "${BENCH_DIR:-/tmp}/gguf-shards-bench-XXXXXX")
mib=${BENCH_SIZE_MIB:-2048}
runs=${BENCH_RUNS:-5}
trap 'rm -rf "$dir"' EXIT
f=$dir/model.gguf

python3 - "$f" "$mib" <<'PY'
import os, struct, sys
path, mib = sys.argv[1], int(sys.argv[2])
n = 16
nb = mib * 1024 * 1024 // n                    # bytes per tensor
ne0 = 4096; ne1 = nb // 2 // ne0               # f16
def s(x): b = x.encode(); return struct.pack("<Q", len(b)) + b
h = bytearray(b"GGUF" + struct.pack("<IQQ", 3, n, 1) + s("general.architecture") + struct.pack("<I", 8) + s("llama"))
for i in range(n):
    h += s(f"blk.{i}.ffn_up.weight") + struct.pack("<IQQIQ", 2, ne0, ne1, 1, i * ne0 * ne1 * 2)
h += b"\0" * ((32 - len(h) % 32) % 32)
chunk = os.urandom(1 << 24)
with open(path, "wb") as out:
    out.write(h)
    left = n * ne0 * ne1 * 2
    while left:
        k = min(left, len(chunk)); out.write(chunk[:k]); left -= k
PY
bytes=$(stat -c %s "$f")
cat "$f" >/dev/null

# median SECONDS and max RSS (KiB) of `runs` runs of a command
measure() {
  local times=() rss=0 t m
  for _ in $(seq "$runs"); do
    /usr/bin/time -o "$dir/time.txt" -f "%e %M" "$@" >/dev/null 2>&1
    read -r t m <"$dir/time.txt"
    times+=("$t")
    if [ "$m" -gt "$rss" ]; then rss=$m; fi
  done
  printf '%s %s\n' "$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")" "$rss"
}
row() {  # row LABEL SECONDS RSS_KIB [BASE_SECONDS]
  local gbs; gbs=$(python3 -c "print(f'{$bytes/1e9/$2:.2f}')")
  printf '%-44s %7.2f s  %6s GB/s  %7d KiB' "$1" "$2" "$gbs" "$3"
  [ -n "${4:-}" ] && printf '  ratio %.2f' "$(python3 -c "print($2/$4)")"
  printf '\n'
}

echo "file: $bytes bytes, $runs runs each (medians)"
read -r s256 r < <(measure sha256sum "$f"); row "sha256sum" "$s256" "$r"
read -r x64 r < <(measure xxh64sum "$f"); row "xxh64sum" "$x64" "$r"
for t in 1 2; do
  read -r s r < <(measure "$gguf" hash --sha256 --no-layer --threads $t "$f"); row "gguf hash --sha256 --no-layer --threads $t" "$s" "$r" "$s256"
  read -r s r < <(measure "$gguf" hash --sha256 --threads $t "$f"); row "gguf hash --sha256 --threads $t" "$s" "$r" "$s256"
  read -r s r < <(measure "$gguf" hash --xxh64 --no-layer --threads $t "$f"); row "gguf hash --xxh64 --no-layer --threads $t" "$s" "$r" "$x64"
  read -r s r < <(measure "$gguf" hash --xxh64 --threads $t "$f"); row "gguf hash --xxh64 --threads $t" "$s" "$r" "$x64"
done
read -r cp r < <(measure cp "$f" "$dir/copy.gguf"); row "cp" "$cp" "$r"
read -r cps r < <(measure sh -c "cp '$f' '$dir/copy.gguf' && sync '$dir/copy.gguf'"); row "cp + sync" "$cps" "$r"
read -r s r < <(measure "$gguf" split "$f" "$dir/s" --split-max-tensors 4); row "gguf split --split-max-tensors 4" "$s" "$r" "$cps"
read -r s r < <(measure "$gguf" merge "$dir/s-00001-of-00004.gguf" "$dir/m.gguf" --force); row "gguf merge (4 shards)" "$s" "$r" "$cps"
cmp -s "$f" "$dir/m.gguf" && echo "merged file identical to the input"
read -r s r < <(measure "$gguf" convert-endian "$f" --to big -o "$dir/be.gguf"); row "gguf convert-endian --to big" "$s" "$r" "$cps"
