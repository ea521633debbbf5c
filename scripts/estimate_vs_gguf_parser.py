#!/usr/bin/env python3
"""Side by side: llama.cpp's recorded allocations (tests/model/data/estimate_reference.json),
`gguf estimate`, and gguf-parser-go's formulas for the same files and settings, as a
Markdown table.

gguf-parser-go's figures are its formulas (file_estimate__llamacpp.go, estimateLLaMACppRunInModel)
re-computed here from the file's metadata: the context padded to 256 with flash attention
and to 32 without; one K and one V row of key_length * head_count_kv (the MLA lengths
when present) per cell and layer, for n_ctx cells whatever the number of sequences; a
quantized V type turned into f16 without flash attention; an output buffer of
(n_embd + n_vocab) * min(n_ctx, n_ubatch) floats. Its compute-graph estimate is not
reproduced.

Usage: scripts/estimate_vs_gguf_parser.py [BUILD_DIR] [--all]
  (GGUF_TEST_DATA: the test data folder; fixtures/ cases need GGUF_ESTIMATE_FIXTURES)
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BLOCK = {"f32": (1, 4), "f16": (1, 2), "bf16": (1, 2), "q8_0": (32, 34), "q4_0": (32, 18),
         "q4_1": (32, 20), "iq4_nl": (32, 18), "q5_0": (32, 22), "q5_1": (32, 24)}


def row_size(t, n):
    b, s = BLOCK[t]
    return n // b * s


def pad(x, n):
    return (x + n - 1) // n * n


ENCODERS = ("bert", "nomic-bert", "nomic-bert-moe")


KVS = {}


def key(gguf, path, name, default):
    if path not in KVS:
        r = subprocess.run([gguf, "dump", "--json", "--no-tensors", path], capture_output=True, text=True)
        KVS[path] = {kv["key"]: kv.get("value") for kv in json.loads(r.stdout)["kv"]}
    v = KVS[path].get(name)
    return v if isinstance(v, int) else default


def parser_go(info, p, gguf, path):
    hp = info["hparams"]
    fa = p["flash_attn"] != "off"
    align = 256 if fa else 32
    n_ctx = p["n_ctx"] or hp["n_ctx_train"]
    if info["architecture"] in ENCODERS:
        # not causal: no KV cache; context, batch and ubatch set to min(n_ctx_train, n_ctx)
        n_ctx = pad(min(n_ctx, hp["n_ctx_train"]), align)
        return 0, hp["n_embd"] * n_ctx * 4
    n_ctx = pad(n_ctx, align)
    n_tokens = min(n_ctx, p["n_ubatch"])
    n_seq = p["n_seq_max"]
    if "ssm_d_inner" in hp or info["architecture"].startswith("rwkv"):
        # recurrent: r and s states of n_seq rows per layer, f32
        arch = info["architecture"]
        if arch.startswith("rwkv"):
            r = key(gguf, path, arch + ".token_shift_count", 2) * hp["n_embd"]
            s = key(gguf, path, arch + ".wkv.head_size", 0) * hp["n_embd"]
        else:
            groups = key(gguf, path, arch + ".ssm.group_count", 0)
            r = (hp["ssm_d_conv"] - 1) * (hp["ssm_d_inner"] + 2 * groups * hp["ssm_d_state"])
            s = hp["ssm_d_state"] * hp["ssm_d_inner"]
        return hp["n_layer"] * (r + s) * n_seq * 4, (hp["n_embd"] + info["n_vocab"]) * n_tokens * 4
    type_v = p["type_v"]
    if type_v not in ("f32", "f16", "bf16") and not fa:
        type_v = "f16"
    n_head_kv = hp["n_head_kv"] if isinstance(hp["n_head_kv"], int) else max(hp["n_head_kv"])
    akl, avl = hp["n_embd_head_k"], hp["n_embd_head_v"]
    arch = info["architecture"]
    kmla = key(gguf, path, arch + ".attention.key_length_mla", 0)
    vmla = key(gguf, path, arch + ".attention.value_length_mla", 0)
    if kmla and vmla:
        akl, avl = kmla, vmla
    kv = hp["n_layer"] * (row_size(p["type_k"], akl * n_head_kv * n_ctx) +
                          row_size(type_v, avl * n_head_kv * n_ctx))
    out = (hp["n_embd"] + info["n_vocab"]) * n_tokens * 4
    return kv, out


def mib(b):
    return "%.2f" % (b / 1048576) if b is not None else "-"


def main():
    build = next((a for a in sys.argv[1:] if not a.startswith("--")), os.path.join(ROOT, "build"))
    every = "--all" in sys.argv
    data = os.environ.get("GGUF_TEST_DATA", os.path.join(ROOT, "..", "shared", "data"))
    fixtures = os.environ.get("GGUF_ESTIMATE_FIXTURES")
    ref = json.load(open(os.path.join(ROOT, "tests", "model", "data", "estimate_reference.json")))
    gguf = os.path.join(build, "gguf")
    print("| file | n_ctx | seqs | K/V | fa | llama.cpp KV MiB | ours | gguf-parser-go "
          "| llama.cpp output KiB | ours | gguf-parser-go | llama.cpp compute MiB | ours (err) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    infos = {}
    for c in ref["cases"]:
        l, p, f = c["llama_cpp"], c["params"], c["file"]
        if l.get("load_failed") or l.get("refused") or l.get("aborted"):
            continue
        if f.startswith("fixtures/"):
            if not fixtures:
                continue
            path = os.path.join(fixtures, f[9:])
        else:
            path = os.path.join(data, f)
        if not every and not (p["n_ubatch"] == 512 and p["n_batch"] == 2048 and not p["embeddings"]
                              and p["swa_full"] and p["type_k"] == p["type_v"]):
            continue
        if path not in infos:
            infos[path] = json.loads(subprocess.run([gguf, "info", path, "--json"], capture_output=True,
                                                    text=True).stdout)
        args = [gguf, "estimate", path, "--json", "-c", str(p["n_ctx"]), "-b", str(p["n_batch"]),
                "--ubatch-size", str(p["n_ubatch"]), "--parallel", str(p["n_seq_max"]),
                "--cache-type-k", p["type_k"], "--cache-type-v", p["type_v"], "--flash-attn", p["flash_attn"]]
        if p["kv_unified"]:
            args.append("--kv-unified")
        if p["swa_full"]:
            args.append("--swa-full")
        if p["embeddings"]:
            args.append("--embeddings")
        ours = json.loads(subprocess.run(args, capture_output=True, text=True).stdout)
        pkv, pout = parser_go(infos[path], p, gguf, path)
        kv = sum(l["memory_buffers"])
        err = (ours["compute_bytes"] - l["compute_bytes"]) / l["compute_bytes"] * 100
        print("| %s | %d | %d%s | %s | %s | %s | %s | %s | %.2f | %.2f | %.2f | %s | %s (%+.1f%%) |" % (
            f.split("/")[-1], p["n_ctx"], p["n_seq_max"], " unified" if p["kv_unified"] else "",
            p["type_k"], p["flash_attn"], mib(kv), mib(ours["kv_bytes"]), mib(pkv),
            l["output_bytes"] / 1024, ours["output_bytes"] / 1024, pout / 1024,
            mib(l["compute_bytes"]), mib(ours["compute_bytes"]), err))


if __name__ == "__main__":
    main()
