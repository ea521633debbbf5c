#!/usr/bin/env bash
# Editing benchmarks: `gguf set general.name` in place on a large file (the time must not
# depend on the file size), and a streamed rewrite (a value that does not fit) against
# `cp` of the same file, with max RSS. The file (one f32 tensor of zeros written as real
# blocks, not sparse) is made in BENCH_DIR and removed at the end.
# Usage: bench/edit_bench.sh [BUILD_DIR]
#   BENCH_DIR (default /tmp), BENCH_SIZE_MIB (default 2048), BENCH_RUNS (default 9;
#   streamed runs and cp: BENCH_RUNS / 3, at least 3)
# Prints medians (ms) and ratios.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
gguf=${1:-$root/build}/gguf
dir=${BENCH_DIR:-/tmp}
mib=${BENCH_SIZE_MIB:-2048}
runs=${BENCH_RUNS:-9}
sruns=$(( runs / 3 < 3 ? 3 : runs / 3 ))
f=$(mktemp "$dir/gguf-edit-bench-XXXXXX.gguf")
trap 'rm -f "$f" "$f.cp"' EXIT

# Header: v3, 1 tensor, 2 keys (general.architecture, general.name), tensor "t" f32 [n],
# padded to 32; then n * 4 zero bytes.
python3 - "$f" "$mib" <<'PY'
import struct, sys
path, mib = sys.argv[1], int(sys.argv[2])
n = mib * 1024 * 1024 // 4
def s(x): b = x.encode(); return struct.pack("<Q", len(b)) + b
h = b"GGUF" + struct.pack("<IQQ", 3, 1, 2)
h += s("general.architecture") + struct.pack("<I", 8) + s("llama")
h += s("general.name") + struct.pack("<I", 8) + s("benchmark model")
h += s("t") + struct.pack("<I", 1) + struct.pack("<Q", n) + struct.pack("<IQ", 0, 0)
h += b"\0" * ((32 - len(h) % 32) % 32)
open(path, "wb").write(h)
PY
dd if=/dev/zero bs=1M count="$mib" status=none >> "$f"
sync "$f"

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
now_ns() { date +%s%N; }

echo "file: $f ($mib MiB, $(stat -c %s "$f") bytes)"
# In place: names of the same length, so every edit fits.
for i in $(seq "$runs"); do
  t0=$(now_ns)
  "$gguf" set "$f" general.name "benchmark run $i" --in-place=always -q
  echo $(( ($(now_ns) - t0) / 1000 ))
done | median | awk '{printf "in place  gguf set general.name: median %.2f ms (whole process: start, open, validate before/after, journal, fsyncs)\n", $1/1000}'
"$gguf" edit "$f" --set general.name=x --in-place=always --dry-run
# The floor of a durable in-place edit is its three syncs (journal, folder entry, file):
python3 - "$dir" <<'PY'
import os, statistics, sys, time
p = os.path.join(sys.argv[1], ".gguf-edit-bench-sync")
fd = os.open(p, os.O_CREAT | os.O_WRONLY, 0o644)
xs = []
for i in range(15):
    os.pwrite(fd, b"x" * 16384, 0)
    t0 = time.perf_counter(); os.fdatasync(fd); xs.append((time.perf_counter() - t0) * 1000)
os.close(fd); os.unlink(p)
print("disk      fdatasync of 16 KiB: median %.2f ms" % statistics.median(xs))
PY

# Streamed: a name that does not fit, every run (never), against cp of the same file.
big=$(printf 'N%.0s' $(seq 4000))
for i in $(seq "$sruns"); do
  /usr/bin/time -f "%e %M" "$gguf" set "$f" general.name "$big$i" --in-place=never -q 2>&1 | tail -1
done > "$f.gguf-times"
for i in $(seq "$sruns"); do
  /usr/bin/time -f "%e %M" cp "$f" "$f.cp" 2>&1 | tail -1
  rm -f "$f.cp"
done > "$f.cp-times"
# cp does not fsync; an edit does (the new file is durable before it replaces the old).
for i in $(seq "$sruns"); do
  /usr/bin/time -f "%e %M" sh -c 'cp "$1" "$1.cp" && sync "$1.cp"' sh "$f" 2>&1 | tail -1
  rm -f "$f.cp"
done > "$f.cps-times"
g=$(cut -d' ' -f1 "$f.gguf-times" | median); grss=$(cut -d' ' -f2 "$f.gguf-times" | sort -n | tail -1)
c=$(cut -d' ' -f1 "$f.cp-times" | median); crss=$(cut -d' ' -f2 "$f.cp-times" | sort -n | tail -1)
cs=$(cut -d' ' -f1 "$f.cps-times" | median)
rm -f "$f.gguf-times" "$f.cp-times" "$f.cps-times"
awk -v g="$g" -v c="$c" -v cs="$cs" -v gr="$grss" -v cr="$crss" -v m="$mib" -v n="$sruns" 'BEGIN {
  printf "streamed  gguf set --in-place=never: median %.2f s (%.0f MiB/s), max RSS %.1f MiB  (%d runs)\n", g, m / g, gr / 1024, n
  printf "reference cp:                        median %.2f s (%.0f MiB/s), max RSS %.1f MiB\n", c, m / c, cr / 1024
  printf "reference cp + sync:                 median %.2f s (%.0f MiB/s)\n", cs, m / cs
  printf "ratio gguf / cp: %.2f   gguf / (cp + sync): %.2f\n", g / c, g / cs
}'
