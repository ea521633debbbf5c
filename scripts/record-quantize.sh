#!/usr/bin/env bash
# Records what llama.cpp v0.5.0's llama-quantize writes for a matrix of models, file types,
# importance matrices and options, into tests/model/data/quantize_cases.tsv; the ctest
# QuantizeCases (tests/cli/test_quantize.cpp) replays every case with `gguf quantize` and
# compares the output's sha256 and size (or the refusal).
#
#   scripts/record-quantize.sh [BUILD_DIR]        (default build; needs make_quant_fixture
#                                                  and the gguf CLI built there)
#
# Inputs: the models in $GGUF_TEST_DATA/models (default ../shared/data), and made here by
# make_quant_fixture (deterministic): fixture.gguf (a small llama, n_embd 256, n_ff 256,
# GQA 4, F16 + F32), its imatrix as GGUF (imatrix.gguf) and legacy .dat (imatrix.dat), an
# imatrix of stories260K (stories-imatrix.gguf), a truncated fixture, the fixture split in
# three shards (by `gguf split`, byte-identical to gguf-split). llama-quantize runs in the
# work folder with relative names, because the imatrix path is written into the output
# (quantize.imatrix.file). Case format, one per line, tab-separated:
#   NAME  ARGS (space-separated; @M/ is the models folder)  OUTPUTS  RESULT
# RESULT: "ok SHA256:SIZE[,SHA256:SIZE...]" for each output file in order, or
#         "refused EXIT REASON" (REASON: a keyword from llama-quantize's message).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
data=${GGUF_TEST_DATA:-$here/../shared/data}
models=$(cd "$data/models" && pwd)
lq=${LLAMA_QUANTIZE:-/root/.cache/gguf-ref/bin/llama-quantize}
gen=$build/tests/make_quant_fixture
gguf=$build/gguf
out_file=$here/tests/model/data/quantize_cases.tsv
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

"$gen" model fixture.gguf
"$gen" imatrix fixture.gguf imatrix.gguf
"$gen" imatrix fixture.gguf imatrix.dat
"$gen" imatrix "$models/stories260K.gguf" stories-imatrix.gguf
head -c 1000000 fixture.gguf > fixture-trunc.gguf
"$gguf" split fixture.gguf fixture-split --split-max-tensors 8 > /dev/null
printf 'attn_v=q8_0\nffn_down=q5_k  attn_q=iq4_nl\n' > tensor-types.txt

reason_of() {  # a keyword for the first reason llama-quantize gives
  local log=$1
  if grep -q "requires an imatrix\|Missing importance matrix" "$log"; then echo imatrix
  elif grep -q "requantizing from type" "$log"; then echo requantize
  elif grep -q "imatrix size" "$log"; then echo imatrix-size
  elif grep -q "unknown model architecture" "$log"; then echo architecture
  elif grep -q "invalid ftype\|missing ftype" "$log"; then echo type
  elif grep -q "failed to read\|not within the file bounds\|data is not within\|failed to load model\|gguf_init_from_file" "$log"; then echo unreadable
  elif grep -q "input and output files are the same" "$log"; then echo same-file
  else echo other
  fi
}

: > "$out_file.tmp"
record() {  # NAME OUTPUTS ARGS...
  local name=$1 outputs=$2
  shift 2
  local args="$*"
  rm -f out*.gguf
  local argv=()
  for a in "$@"; do argv+=("${a//@M\//$models/}"); done
  set +e
  "$lq" "${argv[@]}" > log.txt 2>&1
  local rc=$?
  set -e
  local result
  if [ $rc -eq 0 ]; then
    result="ok "
    local sep=""
    for o in ${outputs//,/ }; do
      result+="$sep$(sha256sum "$o" | cut -d' ' -f1):$(stat -c %s "$o")"
      sep=","
    done
  else
    result="refused $rc $(reason_of log.txt)"
  fi
  printf '%s\t%s\t%s\t%s\n' "$name" "$args" "$outputs" "$result" >> "$out_file.tmp"
  echo "$name: $result" >&2
}

ftypes="Q1_0 Q2_0 Q4_0 Q4_1 MXFP4_MOE Q5_0 Q5_1 IQ2_XXS IQ2_XS IQ2_S IQ2_M IQ1_S IQ1_M TQ1_0 TQ2_0 Q2_K Q2_K_S
IQ3_XXS IQ3_S IQ3_M Q3_K IQ3_XS Q3_K_S Q3_K_M Q3_K_L IQ4_NL IQ4_XS Q4_K Q4_K_S Q4_K_M Q5_K Q5_K_S Q5_K_M Q6_K Q8_0
F16 BF16 F32 COPY"
# Every file type on the fixture, without and with the GGUF imatrix; on stories260K (rows
# of 64 and 172: the fallbacks) likewise.
for t in $ftypes; do
  record "fixture-$t" out.gguf fixture.gguf out.gguf "$t" 2
  record "fixture-imatrix-$t" out.gguf --imatrix imatrix.gguf fixture.gguf out.gguf "$t" 2
  record "stories-$t" out.gguf @M/stories260K.gguf out.gguf "$t" 2
  record "stories-imatrix-$t" out.gguf --imatrix stories-imatrix.gguf @M/stories260K.gguf out.gguf "$t" 2
done
# The legacy .dat imatrix; the type given by its number.
for t in IQ2_XXS IQ3_XXS Q4_0 Q4_K_M IQ4_XS; do
  record "fixture-dat-$t" out.gguf --imatrix imatrix.dat fixture.gguf out.gguf "$t" 2
done
record fixture-number-15 out.gguf fixture.gguf out.gguf 15 2
# F16, BF16 and tiny inputs.
for m in stories260K-F16 stories260K-BF16 llama-2-tiny-random; do
  for t in Q4_K_M Q6_K Q8_0 IQ4_NL Q2_K F16 BF16; do
    record "$m-$t" out.gguf "@M/$m.gguf" out.gguf "$t" 2
  done
done
# Quantized inputs: refused without --allow-requantize, requantized with it.
for m in stories260K-Q8_0 stories260K-Q4_0 stories260K-Q4_1 stories260K-Q5_0 stories260K-Q5_1 stories260K-IQ4_NL synth-llama-256-Q4_K_M; do
  record "$m-Q4_K_M" out.gguf "@M/$m.gguf" out.gguf Q4_K_M 2
  record "$m-requant-Q4_K_M" out.gguf --allow-requantize "@M/$m.gguf" out.gguf Q4_K_M 2
  record "$m-requant-Q8_0" out.gguf --allow-requantize "@M/$m.gguf" out.gguf Q8_0 2
  record "$m-COPY" out.gguf "@M/$m.gguf" out.gguf COPY 2
done
# The options.
record opt-leave-output out.gguf --leave-output-tensor fixture.gguf out.gguf Q4_K_M 2
record opt-pure out.gguf --pure fixture.gguf out.gguf Q4_K_M 2
record opt-pure-stories out.gguf --pure @M/stories260K.gguf out.gguf Q3_K_S 2
record opt-output-type out.gguf --output-tensor-type q8_0 fixture.gguf out.gguf Q4_K_M 2
record opt-embd-type out.gguf --token-embedding-type q4_0 fixture.gguf out.gguf Q6_K 2
record opt-both-types out.gguf --output-tensor-type f16 --token-embedding-type q8_0 fixture.gguf out.gguf IQ4_XS 2
record opt-tensor-type out.gguf --tensor-type attn_v=q8_0 --tensor-type 'blk\.1\.ffn_.*=q5_k' fixture.gguf out.gguf Q4_K_M 2
record opt-tensor-type-file out.gguf --tensor-type-file tensor-types.txt fixture.gguf out.gguf Q3_K_M 2
record opt-prune out.gguf --prune-layers 0 fixture.gguf out.gguf Q4_K_M 2
record opt-prune-stories out.gguf --prune-layers 1,3 @M/stories260K.gguf out.gguf Q5_K_M 2
record opt-prune-imatrix out.gguf --prune-layers 1 --imatrix imatrix.gguf fixture.gguf out.gguf IQ3_M 2
record opt-override-kv out.gguf --override-kv general.name=str:renamed --override-kv llama.context_length=int:1024 \
  --override-kv test.f=float:0.5 --override-kv test.b=bool:true --override-kv test.neg=int:-7 fixture.gguf out.gguf Q8_0 2
record opt-include out.gguf --imatrix imatrix.gguf --include-weights attn fixture.gguf out.gguf IQ4_XS 2
record opt-exclude out.gguf --imatrix imatrix.gguf --exclude-weights ffn_down fixture.gguf out.gguf Q4_K_S 2
record opt-exclude-refused out.gguf --imatrix imatrix.gguf --exclude-weights ffn fixture.gguf out.gguf IQ2_XXS 2
record opt-split-in out.gguf fixture-split-00001-of-00003.gguf out.gguf Q4_K_M 2
record opt-keep-split out-00001-of-00003.gguf,out-00002-of-00003.gguf,out-00003-of-00003.gguf \
  --keep-split fixture-split-00001-of-00003.gguf out.gguf Q6_K 2
record opt-keep-split-one out-00001-of-00001.gguf --keep-split fixture.gguf out Q5_0 2
record opt-threads-1 out.gguf --imatrix imatrix.gguf fixture.gguf out.gguf IQ4_NL 1
# Refusals.
record bad-imatrix-other-model out.gguf --imatrix stories-imatrix.gguf fixture.gguf out.gguf Q4_K_M 2
record bad-type out.gguf fixture.gguf out.gguf Q9_X 2
record bad-truncated out.gguf fixture-trunc.gguf out.gguf Q4_K_M 2
record bad-architecture out.gguf @M/superpoint.gguf out.gguf Q4_K_M 2
record bad-same-file fixture.gguf fixture.gguf fixture.gguf Q4_K_M 2

mv "$out_file.tmp" "$out_file"
echo "$(wc -l < "$out_file") cases -> $out_file" >&2
