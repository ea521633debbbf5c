#!/usr/bin/env bash
# gguf quantize against llama.cpp's llama-quantize (v0.5.0) on a generated F16 model of about
# 1 GiB (make_quant_fixture: n_embd 2048, n_ff 5632, 8 layers, 32000 tokens, GQA 4; F16
# weights, an F32 output.weight): Q4_K_M, Q6_K, Q8_0 and IQ4_XS (with an imatrix), at 1 and 2
# threads. The two tools run alternately, RUNS times each (default 3); the table gives the
# median wall time, the ratio (llama / ours) and the median maximum RSS (/usr/bin/time -v),
# and checks that both outputs are the same bytes. A `cp` of the input is the disk baseline.
#
#   bench/quantize_vs_llama.sh [BUILD_DIR] [WORK_DIR]     RUNS=3 TYPES="Q4_K_M Q6_K Q8_0 IQ4_XS"
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
work=${2:-${TMPDIR:-/tmp}/gguf-quantize-bench}
runs=${RUNS:-3}
types=${TYPES:-"Q4_K_M Q6_K Q8_0 IQ4_XS"}
threads=${THREADS:-"1 2"}
lq=${LLAMA_QUANTIZE:-/root/.cache/gguf-ref/bin/llama-quantize}
gguf=$build/gguf
mkdir -p "$work"
cd "$work"
if [ ! -f big.gguf ]; then
  "$build/tests/make_quant_fixture" model big.gguf --embd 2048 --ff 5632 --layers 8 --vocab 32000 --head 16 --head-kv 4
  "$build/tests/make_quant_fixture" imatrix big.gguf big-imatrix.gguf
fi
echo "input: $(stat -c %s big.gguf) bytes"

# measure OUT CMD...: prints "seconds maxrss_kib"
measure() {
  local out=$1
  shift
  rm -f "$out"
  sync
  /usr/bin/time -f "%e %M" -o time.txt "$@" > /dev/null 2> log.txt || { cat log.txt >&2; return 1; }
  cat time.txt
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

cp_t=()
for i in $(seq "$runs"); do cp_t+=("$(measure copy.gguf cp big.gguf copy.gguf | cut -d' ' -f1)"); done
rm -f copy.gguf
printf '%-8s %3s %10s %10s %7s %12s %12s %s\n' type thr "llama s" "ours s" ratio "llama MiB" "ours MiB" same
for t in $types; do
  extra=()
  [ "$t" = IQ4_XS ] && extra=(--imatrix big-imatrix.gguf)
  for n in $threads; do
    lt=() lm=() ot=() om=()
    for i in $(seq "$runs"); do
      read -r s m < <(measure l.gguf "$lq" "${extra[@]}" big.gguf l.gguf "$t" "$n")
      lt+=("$s") lm+=("$m")
      read -r s m < <(measure o.gguf "$gguf" quantize "${extra[@]}" big.gguf o.gguf "$t" "$n")
      ot+=("$s") om+=("$m")
    done
    same=no
    cmp -s l.gguf o.gguf && same=yes
    l=$(printf '%s\n' "${lt[@]}" | median) o=$(printf '%s\n' "${ot[@]}" | median)
    lmm=$(printf '%s\n' "${lm[@]}" | median) omm=$(printf '%s\n' "${om[@]}" | median)
    printf '%-8s %3s %10.2f %10.2f %6.2fx %12.0f %12.0f %s\n' "$t" "$n" "$l" "$o" "$(echo "$l / $o" | bc -l)" \
      "$(echo "$lmm / 1024" | bc -l)" "$(echo "$omm / 1024" | bc -l)" "$same"
    rm -f l.gguf o.gguf
  done
done
printf 'cp of the input (disk baseline): %.2f s (median of %s)\n' "$(printf '%s\n' "${cp_t[@]}" | median)" "$runs"
