#!/usr/bin/env python3
"""The cases of the loader differential (issue 29, item 4): real files of the test data
with one mutation each (tests/support/mutations.h describes the ops). Prints the case
list as JSON; scripts/record-loader-diff.sh runs llama.cpp on each case.

Vocabulary cases are made from vocab-only files (llama.cpp loads them vocab-only; a full
load of a file without tensors fails for that reason alone); model cases from
models/stories260K.gguf (both loads)."""
import json

SPM = "vocab/ggml-vocab-llama-spm.gguf"
BPE = "vocab/ggml-vocab-llama-bpe.gguf"
GPT2 = "vocab/ggml-vocab-gpt-2.gguf"
BERT = "vocab/ggml-vocab-bert-bge.gguf"
UGM = "vocab/ugm-sp-test.gguf"
RWKV = "vocab/ggml-vocab-rwkv-world.gguf"
MODEL = "models/stories260K.gguf"


def rm(k):
    return {"op": "remove", "key": k}


def st(k, t, v):
    return {"op": "set", "key": k, "type": t, "value": v}


cases = []


def case(name, base, *ops):
    cases.append({"name": name, "base": base, "ops": list(ops)})


# the unmutated bases: every one loads
for b in (SPM, BPE, GPT2, BERT, UGM, RWKV, MODEL):
    case("base " + b, b)

# tokenizer.ggml.pre (BPE)
for pre in ("stablelm", "not-a-pre-tokenizer", "", "LLAMA-BPE", "llama3"):
    case("pre unknown '%s'" % pre, BPE, st("tokenizer.ggml.pre", "string", pre))
for pre in ("gpt-2", "default", "qwen2", "deepseek-llm"):
    case("pre known '%s'" % pre, BPE, st("tokenizer.ggml.pre", "string", pre))
case("pre removed", BPE, rm("tokenizer.ggml.pre"))
case("pre wrong type uint32", BPE, st("tokenizer.ggml.pre", "uint32", 3))
case("pre unknown on spm (not read)", SPM, st("tokenizer.ggml.pre", "string", "stablelm"))
case("pre unknown on bert", BERT, st("tokenizer.ggml.pre", "string", "stablelm"))

# tokenizer.ggml.model
for b in (SPM, BPE):
    case("model removed " + b, b, rm("tokenizer.ggml.model"))
    case("model unknown " + b, b, st("tokenizer.ggml.model", "string", "sentencepiece"))
    case("model wrong type " + b, b, st("tokenizer.ggml.model", "uint32", 1))
case("model none", SPM, st("tokenizer.ggml.model", "string", "none"))
case("model bert on spm vocab", SPM, st("tokenizer.ggml.model", "string", "bert"))
case("model gpt2 on spm vocab (no merges)", SPM, st("tokenizer.ggml.model", "string", "gpt2"))

# tokens, scores, token types
for b in (SPM, BPE, BERT, UGM):
    case("tokens removed " + b, b, rm("tokenizer.ggml.tokens"))
case("tokens wrong type", SPM, st("tokenizer.ggml.tokens", "array:int32", [1, 2, 3]))
case("tokens empty", SPM, st("tokenizer.ggml.tokens", "array:string", []))
case("scores truncated spm", SPM, {"op": "truncate", "key": "tokenizer.ggml.scores", "length": 100})
case("scores removed spm", SPM, rm("tokenizer.ggml.scores"))
case("scores wrong type spm", SPM, st("tokenizer.ggml.scores", "array:int32", [0] * 10))
case("token_type truncated spm", SPM, {"op": "truncate", "key": "tokenizer.ggml.token_type", "length": 100})
case("token_type truncated bpe", BPE, {"op": "truncate", "key": "tokenizer.ggml.token_type", "length": 100})
case("token_type removed spm", SPM, rm("tokenizer.ggml.token_type"))
case("token_type 99 spm", SPM, {"op": "set_element", "key": "tokenizer.ggml.token_type", "index": 5, "value": 99})
case("token_type 0 spm", SPM, {"op": "set_element", "key": "tokenizer.ggml.token_type", "index": 5, "value": 0})
case("token_type -1 spm", SPM, {"op": "set_element", "key": "tokenizer.ggml.token_type", "index": 5, "value": -1})
case("tokens truncated spm (scores longer)", SPM, {"op": "truncate", "key": "tokenizer.ggml.tokens", "length": 1000})
case("one-token vocab spm", SPM, {"op": "truncate", "key": "tokenizer.ggml.tokens", "length": 1},
     {"op": "truncate", "key": "tokenizer.ggml.scores", "length": 1},
     {"op": "truncate", "key": "tokenizer.ggml.token_type", "length": 1})

# merges (BPE)
for b in (BPE, GPT2):
    case("merges removed " + b, b, rm("tokenizer.ggml.merges"))
case("merge without a space", BPE, {"op": "set_element", "key": "tokenizer.ggml.merges", "index": 3, "value": "abc"})
case("merge with a trailing space", BPE, {"op": "set_element", "key": "tokenizer.ggml.merges", "index": 3, "value": "ab "})
case("merge of unknown tokens", BPE, {"op": "set_element", "key": "tokenizer.ggml.merges", "index": 3,
                                      "value": "zzqqx yyqqw"})
case("merges empty", BPE, st("tokenizer.ggml.merges", "array:string", []))
case("merges wrong type", BPE, st("tokenizer.ggml.merges", "array:int32", [1, 2]))

# special token ids
for key in ("bos", "eos", "unknown", "padding"):
    case("%s id out of range spm" % key, SPM, st("tokenizer.ggml.%s_token_id" % key, "uint32", 1000000))
case("bos id wrong type string", SPM, st("tokenizer.ggml.bos_token_id", "string", "1"))
case("bos id wrong type int32", SPM, st("tokenizer.ggml.bos_token_id", "int32", 1))
case("bos id none", SPM, st("tokenizer.ggml.bos_token_id", "uint32", 4294967295))
case("eos id out of range bpe", BPE, st("tokenizer.ggml.eos_token_id", "uint32", 10000000))
case("unknown id removed spm", SPM, rm("tokenizer.ggml.unknown_token_id"))
case("add_bos wrong type", SPM, st("tokenizer.ggml.add_bos_token", "uint8", 1))
case("add_space_prefix wrong type", SPM, st("tokenizer.ggml.add_space_prefix", "string", "yes"))
case("eot id out of range", BPE, st("tokenizer.ggml.eot_token_id", "uint32", 99999999))
case("cls id out of range bert", BERT, st("tokenizer.ggml.cls_token_id", "uint32", 99999999))
case("charsmap removed ugm", UGM, rm("tokenizer.ggml.precompiled_charsmap"))
case("charsmap truncated ugm", UGM, {"op": "truncate", "key": "tokenizer.ggml.precompiled_charsmap", "length": 10})

# general and architecture keys (model)
case("architecture removed", MODEL, rm("general.architecture"))
case("architecture unknown", MODEL, st("general.architecture", "string", "not-an-arch"))
case("architecture wrong type", MODEL, st("general.architecture", "uint32", 1))
for k in ("llama.block_count", "llama.context_length", "llama.embedding_length", "llama.feed_forward_length",
          "llama.attention.head_count", "llama.attention.layer_norm_rms_epsilon", "llama.rope.dimension_count",
          "llama.attention.head_count_kv"):
    case("removed " + k, MODEL, rm(k))
case("block_count 10 (more than the tensors)", MODEL, st("llama.block_count", "uint32", 10))
case("block_count 2 (fewer than the tensors)", MODEL, st("llama.block_count", "uint32", 2))
case("block_count wrong type string", MODEL, st("llama.block_count", "string", "5"))
case("embedding_length 128 (tensors are 64)", MODEL, st("llama.embedding_length", "uint32", 128))
case("head_count 0", MODEL, st("llama.attention.head_count", "uint32", 0))
case("head_count 3 (does not divide 64)", MODEL, st("llama.attention.head_count", "uint32", 3))
case("head_count_kv 5", MODEL, st("llama.attention.head_count_kv", "uint32", 5))
case("feed_forward_length 100", MODEL, st("llama.feed_forward_length", "uint32", 100))
case("rms_epsilon wrong type string", MODEL, st("llama.attention.layer_norm_rms_epsilon", "string", "1e-5"))
case("context_length 0", MODEL, st("llama.context_length", "uint32", 0))
case("vocab size key 10", MODEL, st("llama.vocab_size", "uint32", 10))
case("alignment 16", MODEL, st("general.alignment", "uint32", 16))

# tensors (model)
for t in ("token_embd.weight", "output_norm.weight", "blk.0.attn_q.weight", "blk.4.ffn_down.weight",
          "blk.2.attn_norm.weight"):
    case("tensor removed " + t, MODEL, {"op": "drop_tensor", "name": t})
case("tensor output.weight removed (tied)", MODEL, {"op": "drop_tensor", "name": "output.weight"})
case("token_embd wrong shape", MODEL, {"op": "reshape", "name": "token_embd.weight", "ne": [64, 100]})
case("attn_q wrong shape", MODEL, {"op": "reshape", "name": "blk.0.attn_q.weight", "ne": [64, 32]})
case("attn_q transposed shape", MODEL, {"op": "reshape", "name": "blk.1.ffn_up.weight", "ne": [172, 64]})
case("norm wrong shape", MODEL, {"op": "reshape", "name": "output_norm.weight", "ne": [32]})
case("norm 2-d", MODEL, {"op": "reshape", "name": "output_norm.weight", "ne": [64, 1, 1]})
case("attn_q retyped f16", MODEL, {"op": "retype", "name": "blk.0.attn_q.weight", "type": "f16"})
case("token_embd retyped q8_0", MODEL, {"op": "retype", "name": "token_embd.weight", "type": "q8_0"})

# the model's own vocabulary
case("model pre unknown", MODEL, st("tokenizer.ggml.pre", "string", "stablelm"))
case("model tokens truncated", MODEL, {"op": "truncate", "key": "tokenizer.ggml.tokens", "length": 100})
case("model scores truncated", MODEL, {"op": "truncate", "key": "tokenizer.ggml.scores", "length": 100})
case("model tokenizer removed", MODEL, rm("tokenizer.ggml.model"), rm("tokenizer.ggml.tokens"),
     rm("tokenizer.ggml.scores"), rm("tokenizer.ggml.token_type"))

print(json.dumps(cases, indent=1))
