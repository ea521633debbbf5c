#!/usr/bin/env bash
# Runs every libFuzzer target (fuzz/fuzz_*.cpp) for a short fixed time on a seed corpus
# made at run time from ../shared/data and tests/hostile/regressions (nothing is copied
# into the repository). A crash, leak, timeout or out-of-memory fails the run and the
# input is printed in hex; add it under tests/hostile/regressions/ (see docs/security.md).
#
#   scripts/ci-fuzz.sh [SECONDS_PER_TARGET]        (default 60; run from the repo root)
#   scripts/ci-fuzz.sh --ledger                    (executions so far, per target)
#
# SIGINT to a running fuzzer ends the run early: its executions are recorded and the
# script stops (exit 0 unless something was found).
# Environment: GGUF_TEST_DATA (default ../shared/data), GGUF_FUZZ_BUILD (default
# build-fuzz), GGUF_FUZZ_WORK (default $GGUF_FUZZ_BUILD/fuzz-work: corpora kept between
# runs), GGUF_FUZZ_TARGETS (space-separated subset), CC/CXX (default clang-14/clang++-14).
# Installs nothing. Budget: build (~3 min on 2 cores) + targets x SECONDS.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
secs=${1:-60}
data=${GGUF_TEST_DATA:-$root/../shared/data}
build=${GGUF_FUZZ_BUILD:-$root/build-fuzz}
work=${GGUF_FUZZ_WORK:-$build/fuzz-work}

if [ "$secs" = "--ledger" ]; then
  [ -f "$work/ledger.tsv" ] || { echo "ci-fuzz: no ledger at $work/ledger.tsv" >&2; exit 1; }
  awk -F'\t' 'NR > 1 { n[$3] += $5; s[$3] += $4; r[$3]++; c[$3] = $6; f[$3] = $7; k[$3] = $8; if ($9 != 0 && $9 != 72) bad[$3]++ }
    END { printf "%-16s %6s %9s %12s %6s %7s %7s %s\n", "target", "runs", "seconds", "executions", "cov", "ft", "corpus", "failed runs";
          for (t in n) printf "%-16s %6d %9d %12d %6d %7d %7d %d\n", t, r[t], s[t], n[t], c[t], f[t], k[t], bad[t] }' \
    "$work/ledger.tsv" | { read -r h; echo "$h"; sort; }
  exit 0
fi
export CC=${CC:-clang-14} CXX=${CXX:-clang++-14}

if ! command -v "$CXX" >/dev/null; then
  echo "ci-fuzz: $CXX not found (libFuzzer needs clang)" >&2
  exit 1
fi

echo "ci-fuzz: building fuzz targets in $build"
mkdir -p "$build/logs"
logs=$build/logs
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DGGUF_BUILD_FUZZ=ON \
  -DGGUF_BUILD_TESTS=OFF -DGGUF_BUILD_BENCH=OFF >"$logs/cmake.log" 2>&1 \
  || { cat "$logs/cmake.log" >&2; exit 1; }

targets=${GGUF_FUZZ_TARGETS:-$(cd fuzz && ls fuzz_*.cpp | sed 's/\.cpp$//')}
status=0
for t in $targets gguf_fuzz_seeds; do
  if ! cmake --build "$build" -j2 --target "$t" >"$logs/build-$t.log" 2>&1; then
    echo "ci-fuzz: building $t failed:" >&2
    grep -E 'error|Error' "$logs/build-$t.log" | head -20 >&2
    status=1
  fi
done

# Seeds of a GGUF-reading target: miniatures of every real file (fuzz/make_seeds.cpp:
# every key and type, a few tensors, v3 LE/BE and v2, ~1 KiB each), every small GGUF
# (< 2 MB) whole, a 64 KiB prefix of the larger ones, and the committed regressions.
seed_gguf() {
  local dir=$1
  if [ -d "$data" ]; then
    local files=()
    mapfile -d '' files < <(find "$data" -name '*.gguf' -type f -print0 | sort -z)
    "$build/fuzz/gguf_fuzz_seeds" "${files[@]}" "$dir" >/dev/null 2>&1 || true
    find "$data" -name '*.gguf' -type f | sort | while read -r f; do
      local name
      name=$(echo "${f#$data/}" | tr '/' '_')
      if [ "$(stat -c %s "$f")" -lt 2097152 ]; then
        cp "$f" "$dir/$name"
      else
        head -c 65536 "$f" >"$dir/$name.head"
      fi
    done
  else
    echo "ci-fuzz: $data not found: seeding from regressions only" >&2
  fi
}
seed_regressions() {
  local dir=$1 t=$2
  for f in tests/hostile/regressions/*; do
    [ -f "$f" ] || continue
    case "$(basename "$f")" in
      "$t"-* | file-* | *.gguf) cp "$f" "$dir/reg-$(basename "$f")" ;;
    esac
  done
}
# Seeds of the file-name target: the names of the test data files and naming-convention
# examples (the spec's own).
seed_names() {
  local dir=$1 i=0
  { [ -d "$data" ] && find "$data" -type f -printf '%f\n'
    printf '%s\n' Mixtral-8x7B-v0.1-KQ2.gguf Hermes-2-Pro-Llama-3-8B-F16.gguf \
      Grok-100B-v1.0-Q4_0-00003-of-00009.gguf Llama-3-8B-Instruct-LoRA-F16.gguf \
      GPT-NeoX-20B-v0.2-BF16.gguf Phi-3-mini-4k-instruct-vocab.gguf; } |
    while read -r n; do i=$((i + 1)); printf '%s' "$n" >"$dir/name-$i"; done
}

# Seeds of fuzz_vocab (input layout in fuzz/fuzz_vocab.cpp): text mode — the test texts
# of llama.cpp's .inp files and slices of the text corpus, each for a different real
# vocabulary; file mode — byte 0xf3, a text length, a text, then a miniature vocab file.
seed_vocab() {
  local dir=$1 i=0 sel text
  if [ ! -d "$data" ]; then return; fi
  for inp in "$data"/vocab/*.inp; do
    awk -v dir="$dir" -v base="$(basename "$inp" .gguf.inp)" 'BEGIN { RS = "\n__ggml_vocab_test__\n" }
      { f = sprintf("%s/inp-%s-%03d", dir, base, NR); printf "%c%s", ((NR % 16) * 4 + NR % 4), $0 > f; close(f) }' "$inp"
  done
  for c in multilingual code prose-en; do
    [ -f "$data/corpus/$c.txt" ] || continue
    for off in 0 4096 65536 200000 400000 800000; do
      i=$((i + 1))
      sel=$(printf '%03o' $(((i % 16) * 4 + 3)))
      { printf "\\$sel"; tail -c +"$((off + 1))" "$data/corpus/$c.txt" | head -c 300; } >"$dir/corpus-$c-$off"
    done
  done
  local mini
  mini=$(mktemp -d)
  "$build/fuzz/gguf_fuzz_seeds" "$data"/vocab/*.gguf "$mini" >/dev/null 2>&1 || true
  text='Hello world! <s> 123 \xe4\xbd\xa0\xe5\xa5\xbd\n'
  for m in "$mini"/*.gguf; do
    [ -f "$m" ] || continue
    { printf '\xf3'; printf "\\$(printf '%03o' "$(printf "$text" | wc -c)")"; printf '\x00'
      printf "$text"; cat "$m"; } >"$dir/file-$(basename "$m")"
  done
  rm -rf "$mini"
}

# Seeds of fuzz_quantize (layout in fuzz/fuzz_quantize.cpp): every type id, with and
# without an importance matrix, over slices of the real weights of the test models.
seed_quantize() {
  local dir=$1 t flags m
  m=$(find "$data/models" -name '*.gguf' -type f 2>/dev/null | sort | head -1)
  for t in $(seq 0 42); do
    for flags in 0 1 27; do
      { printf "\\$(printf '%03o' "$t")\\$(printf '%03o' "$flags")"
        if [ -n "$m" ]; then tail -c +$((65536 + t * 4096)) "$m" | head -c 1024; else seq 1 300 | head -c 1024; fi
      } >"$dir/q-$t-$flags"
    done
  done
}

# The fuzzing record: one line per target run appended to $work/ledger.tsv (UTC time,
# commit, target, seconds it ran, executions, coverage, features, corpus size, exit code), so
# executions add up over runs; `scripts/ci-fuzz.sh --ledger` prints the totals.
ledger=$work/ledger.tsv
record() {
  local t=$1 rc=$2 execs cov ft corp
  execs=$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$work/$t/log" | grep -oE '[0-9]+$' | tail -1)
  cov=$(grep -oE 'cov: [0-9]+' "$work/$t/log" | tail -1 | grep -oE '[0-9]+')
  ft=$(grep -oE 'ft: [0-9]+' "$work/$t/log" | tail -1 | grep -oE '[0-9]+')
  corp=$(find "$work/$t/corpus" -type f | wc -l)
  [ -f "$ledger" ] || printf 'utc\tcommit\ttarget\tseconds\texecutions\tcov\tft\tcorpus\texit\n' >"$ledger"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" \
    "$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo -)" "$t" "$run_secs" \
    "${execs:-0}" "${cov:-0}" "${ft:-0}" "$corp" "$rc" >>"$ledger"
}

export GGUF_TEST_DATA=$data
mkdir -p "$work"
for t in $targets; do
  bin="$build/fuzz/$t"
  [ -x "$bin" ] || { echo "ci-fuzz: $bin missing" >&2; status=1; continue; }
  corpus="$work/$t/corpus"
  seeds="$work/$t/seeds"
  arts="$work/$t/artifacts/"
  rm -rf "$seeds" "$arts"
  mkdir -p "$corpus" "$seeds" "$arts"
  case "$t" in
    fuzz_name) seed_names "$seeds" ;;
    fuzz_vocab) seed_vocab "$seeds" ;;
    fuzz_jinja) python3 scripts/jinja_fuzz_seeds.py "$data" "$seeds" >/dev/null 2>&1 || true ;;
    fuzz_dequant)
      seed_gguf "$seeds"
      [ -d "$data" ] && "$build/fuzz/gguf_fuzz_seeds" --blocks "$data"/quant/*.gguf "$data"/models/*.gguf \
        "$data"/compat/*-be.gguf "$seeds" >/dev/null 2>&1 ;;
    fuzz_quantize) seed_quantize "$seeds" ;;
    *) seed_gguf "$seeds" ;;
  esac
  seed_regressions "$seeds" "$t"
  opts=()
  [ -f "fuzz/$t.options" ] && read -r -a opts <"fuzz/$t.options"
  echo "ci-fuzz: $t for ${secs}s"
  run_start=$(date +%s)
  nice -n 19 "$bin" "$corpus" "$seeds" -dict=fuzz/gguf.dict -max_total_time="$secs" \
    -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$arts" "${opts[@]}" >"$work/$t/log" 2>&1
  rc=$?
  run_secs=$(( $(date +%s) - run_start ))
  grep -E '^#[0-9]+.*(DONE|pulse)|stat::number_of_executed_units|cov:' "$work/$t/log" | tail -2
  record "$t" "$rc"
  # Interrupted (SIGINT: libFuzzer's exit 72, e.g. to end a long run early) without a
  # finding: the executions so far are recorded; no further targets are run.
  if [ $rc -eq 72 ] && [ -z "$(ls -A "$arts")" ]; then
    echo "ci-fuzz: $t interrupted; stopping"
    break
  fi
  if [ $rc -ne 0 ] || [ -n "$(ls -A "$arts")" ]; then
    status=1
    echo "ci-fuzz: $t FAILED (exit $rc); log tail:" >&2
    tail -40 "$work/$t/log" >&2
    for a in "$arts"*; do
      [ -f "$a" ] || continue
      echo "ci-fuzz: input $(basename "$a") ($(stat -c %s "$a") bytes), hex:" >&2
      od -An -tx1 -v "$a" | head -256 >&2
    done
  fi
done
exit $status
