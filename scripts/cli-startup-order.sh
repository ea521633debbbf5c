#!/usr/bin/env bash
# Writes tools/gguf/startup-order.txt: the functions the static gguf executes at start, and
# the data it reads and writes, for
# lld's --symbol-ordering-file (CMakeLists.txt, GGUF_CLI_STARTUP_ORDER), which places them
# first and together. The kernel maps an executable's pages 16 at a time around each page
# fault; the code of one start, spread over 6 MB, faulted ~100 such windows, each mapped
# and unmapped page costing time in every process.
#
# The runs: `gguf --version`, `gguf info` of a vocabulary, and a one-word `gguf tokenize`
# of every vocabulary of the test data with a warm tokenizer cache (the start that
# bench/load_vs_llama.py measures), each under valgrind's callgrind, which lists every
# function a run executes, and lackey, which lists every address it reads or writes. glibc picks its string functions (memcpy, strlen, ...) by CPU at
# start, and valgrind's CPU is not the machine's: every variant of a family a run called
# is listed.
#
# usage: scripts/cli-startup-order.sh [BUILD_DIR]   (default build; needs valgrind and the
#        test data, GGUF_TEST_DATA or ../shared/data). A stale list costs start time, not
#        correctness: functions it does not name are placed after it.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
gguf="$build/gguf"
data=${GGUF_TEST_DATA:-../shared/data}
out=tools/gguf/startup-order.txt
command -v valgrind >/dev/null || { echo "cli-startup-order: valgrind is not installed" >&2; exit 1; }
[ -x "$gguf" ] || { echo "cli-startup-order: no $gguf: build first" >&2; exit 1; }
ls "$data"/vocab/*.gguf >/dev/null || { echo "cli-startup-order: no vocabularies in $data/vocab" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cache="$tmp/cache"
n=0
trace() {  # callgrind over one run of gguf "$@" (the functions), lackey (the data it reads and writes)
  n=$((n + 1))
  valgrind --tool=callgrind --demangle=no --callgrind-out-file="$tmp/cg.$n" "$gguf" "$@" >/dev/null 2>&1 || true
  valgrind --tool=lackey --trace-mem=yes --log-file="$tmp/mem.$n" "$gguf" "$@" >/dev/null 2>&1 || true
}
vocabs=("$data"/vocab/*.gguf)
for v in "${vocabs[@]}"; do "$gguf" tokenize -m "$v" Hello --tokenizer-cache "$cache" >/dev/null; done
sleep 2.2  # the cache files are now old enough for their records (table_cache.h)
for v in "${vocabs[@]}"; do "$gguf" tokenize -m "$v" Hello --tokenizer-cache "$cache" >/dev/null; done
trace --version
trace info "${vocabs[0]}"
for v in "${vocabs[@]}"; do trace tokenize -m "$v" Hello --tokenizer-cache "$cache"; done

# The names callgrind saw, those of more runs first (the start every command shares, then
# what fewer runs need: one kind of tokenizer), first seen first among equals; before them
# glibc's IFUNC resolvers, which a static program runs all at start (before valgrind
# watches); after them every variant of each string-function family seen
# (__memmove_avx_unaligned_erms seen: every __memmove_* of the executable).
nm "$gguf" | awk '$2 ~ /^[tTwW]$/ {print $3}' | sort -u > "$tmp/defined"
for f in "$tmp"/cg.*; do
  sed -nE 's/^c?fn=\([0-9]+\) (.+)$/\1/p' "$f" | grep -vE '^(0x[0-9a-f]+|\(below main\).*)$' | sort -u
done | awk '{ if (!($0 in runs)) order[n++] = $0; runs[$0]++ }
            END { for (i = 0; i < n; i++) printf "%d %d %s\n", runs[order[i]], i, order[i] }' |
  sort -k1,1nr -k2,2n | cut -d' ' -f3- > "$tmp/seen"
grep -E '_ifunc$|^__libc_ifunc_impl_list$' "$tmp/defined" > "$tmp/ifuncs" || true
sed -nE 's/^(__(mem|str|stp|wmem|wcs|raw|rawmem)[a-z]*)_(sse|avx|evex).*/\1_/p' "$tmp/seen" | sort -u |
  while read -r family; do grep "^$family" "$tmp/defined" || true; done > "$tmp/variants"
# The data (variables, constants) the runs read or wrote, by symbol (nm), those of more runs
# first: the zero-filled and written pages of a start are each a fault of their own.
python3 - "$gguf" "$tmp" > "$tmp/data" <<'PY'
import bisect, glob, subprocess, sys
exe, tmp = sys.argv[1], sys.argv[2]
ranges = []  # the executable's segments that are not code
for line in subprocess.run(["readelf", "-lW", exe], capture_output=True, text=True).stdout.splitlines():
    f = line.split()
    if f and f[0] == "LOAD" and "E" not in f[6]:
        ranges.append((int(f[2], 16), int(f[2], 16) + int(f[5], 16)))
syms = []
for line in subprocess.run(["nm", "-S", "-n", exe], capture_output=True, text=True).stdout.splitlines():
    f = line.split()
    if len(f) == 4 and f[2] in "dDbBrRvV" and int(f[1], 16) > 0:
        syms.append((int(f[0], 16), int(f[1], 16), f[3]))
starts = [s[0] for s in syms]
runs, first = {}, {}
for path in sorted(glob.glob(tmp + "/mem.*")):
    seen = set()
    with open(path) as log:
        for line in log:
            f = line.split()
            if len(f) < 2 or f[0] not in ("L", "S", "M"):
                continue
            a = int(f[1].split(",")[0], 16)
            if not any(lo <= a < hi for lo, hi in ranges):
                continue
            i = bisect.bisect_right(starts, a) - 1
            if i >= 0 and a < syms[i][0] + syms[i][1]:
                seen.add(syms[i][2])
    for name in seen:
        runs[name] = runs.get(name, 0) + 1
        first.setdefault(name, len(first))
for name in sorted(runs, key=lambda k: (-runs[k], first[k])):
    print(name)
PY
{
  echo "# gguf start-up functions and data, first placed by lld (scripts/cli-startup-order.sh; do not edit)"
  cat "$tmp/ifuncs" "$tmp/seen" "$tmp/variants" | awk '!seen[$0]++' | grep -Fxf "$tmp/defined"
  cat "$tmp/data"
} > "$out"
echo "cli-startup-order: $(grep -cFxf "$tmp/defined" "$out") functions and $(wc -l < "$tmp/data") data symbols from $n runs -> $out" >&2
