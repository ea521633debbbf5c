#!/usr/bin/env bash
# `gguf tokenize --jsonl` throughput: bench.txt's non-empty lines repeated 20 times as
# {"text": ...} objects (79 MB of text) with llama-bpe, on 1 and 2 threads, against the
# same text as one string (one tokenize call of the 20 copies joined by newlines).
# Prints the median seconds of N runs, MB/s of text, and the maximum RSS.
#
#   bench/bench_jsonl.sh [BUILD_DIR] [RUNS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
runs=${2:-3}
data=${GGUF_TEST_DATA:-$root/../shared/data}
vocab=$data/vocab/ggml-vocab-llama-bpe.gguf
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$data/corpus/bench.txt" "$tmp" <<'PY'
import json, sys
lines = [l for l in open(sys.argv[1], encoding="utf-8").read().split("\n") if l]
with open(sys.argv[2] + "/in.jsonl", "w", encoding="utf-8") as f:
    for _ in range(20):
        for l in lines:
            f.write(json.dumps({"text": l}) + "\n")
with open(sys.argv[2] + "/in.txt", "w", encoding="utf-8") as f:
    f.write("\n".join(lines * 20))
PY
mb=$(python3 -c "import os; print(os.path.getsize('$tmp/in.txt') / 1e6)")
objects=$(wc -l <"$tmp/in.jsonl")
measure() {  # measure NAME INPUT ARGS...: median seconds and max RSS over $runs runs
  local name=$1 input=$2
  shift 2
  local times=() rss=0
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %M" -o "$tmp/time" "$build/gguf" tokenize -m "$vocab" "$@" <"$input" >/dev/null
    read -r t m <"$tmp/time"
    times+=("$t")
    [ "$m" -gt "$rss" ] && rss=$m
  done
  local med
  med=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  echo "$name: median $med s, $(python3 -c "print(f'{$mb / $med:.2f}')") MB/s, max RSS $((rss / 1024)) MB (runs: ${times[*]})"
}
echo "text: $mb MB, $objects JSON objects"
measure "one string      " "$tmp/in.txt" --count
measure "--jsonl         " "$tmp/in.jsonl" --jsonl
measure "--jsonl --threads 2" "$tmp/in.jsonl" --jsonl --threads 2
