#!/usr/bin/env bash
# How much the first touch of fresh memory costs on this machine, idle and right after
# another process used and freed memory (docs/tokenizers.md, "Speed against llama.cpp").
# On a VM with free page reporting (virtio-balloon), memory left free for a few seconds
# goes back to the host and the next touch costs a host fault per page.
#
# usage: bench/fresh_memory_probe.sh [idle_seconds=15] [mb=64]
set -euo pipefail
idle=${1:-15}
mb=${2:-64}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/probe.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
/* Maps `mb` MiB (2 MiB pages where the kernel allows), writes one byte per 4 KiB page,
   prints the time taken. */
int main(int argc, char** argv) {
  const size_t n = (size_t)atoi(argv[1]) << 20;
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  char* p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return 1;
  madvise(p, n, MADV_HUGEPAGE);
  for (size_t i = 0; i < n; i += 4096) p[i] = 1;
  clock_gettime(CLOCK_MONOTONIC, &b);
  printf("%s MiB faulted in: %.2f ms\n", argv[1], (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6);
  return 0;
}
C
cc -O2 -o "$dir/probe" "$dir/probe.c"
echo "after ${idle} s idle:"
sleep "$idle"
"$dir/probe" "$mb"
echo "right after another process used and freed 256 MiB:"
"$dir/probe" 256 >/dev/null
"$dir/probe" "$mb"
