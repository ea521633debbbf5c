#!/usr/bin/env python3
"""Records what a reference llama.cpp allocates for each model over a grid of context
settings (run by scripts/record-estimate.sh, which builds the driver).

Usage: record_estimate.py DRIVER OUT.json DATA_DIR FIXTURE_DIR

For every model (DATA_DIR/models/*.gguf and FIXTURE_DIR/*.gguf) and every setting of GRID,
runs `DRIVER MODEL n_ctx n_batch n_ubatch n_seq_max kv_unified type_k type_v fa embd swa_full` in its
own process (an abort in llama.cpp is then recorded, not fatal) and keeps: the model's
size (llama_model_size), the context's n_ctx / n_ctx_seq / n_batch / n_ubatch, the
output buffer (the first buffer the context allocates), the KV / recurrent-state buffers
and the compute buffers (bytes, from the allocator), llama_get_memory_breakdown, the log
lines that report sizes, and the refusal with llama.cpp's error line.
"""
import json
import os
import re
import subprocess
import sys

BASE = dict(n_ctx=0, n_batch=2048, n_ubatch=512, n_seq_max=1, kv_unified=False,
            type_k="f16", type_v="f16", flash_attn="auto", embeddings=False, swa_full=True)


def s(**kw):
    d = dict(BASE)
    d.update(kw)
    return d


GRID = [
    s(),
    s(n_ctx=1), s(n_ctx=100), s(n_ctx=256), s(n_ctx=300), s(n_ctx=512), s(n_ctx=1000),
    s(n_ctx=2049), s(n_ctx=8192),
    s(n_ctx=300, flash_attn="off"), s(n_ctx=1000, flash_attn="off"), s(n_ctx=300, flash_attn="on"),
    # each cache type llama.cpp's --cache-type-k/-v accepts but f16, for K and V alike
    *[s(n_ctx=1000, flash_attn="on", type_k=t, type_v=t)
      for t in ("f32", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1")],
    s(n_ctx=1000, flash_attn="on", type_k="q8_0", type_v="f16"),
    s(n_ctx=1000, flash_attn="off", type_k="q8_0", type_v="f16"),
    s(n_ctx=1000, flash_attn="off", type_k="f16", type_v="q8_0"),
    s(n_ctx=1000, flash_attn="auto", type_k="q8_0", type_v="q8_0"),
    s(n_ctx=1000, flash_attn="off", type_k="f32", type_v="f32"),
    s(n_ctx=1000, n_seq_max=4), s(n_ctx=1000, n_seq_max=4, kv_unified=True),
    s(n_ctx=300, n_seq_max=3), s(n_ctx=300, n_seq_max=3, kv_unified=True),
    s(n_ctx=100, n_seq_max=4), s(n_ctx=1000, n_seq_max=4, flash_attn="off"),
    s(n_ctx=1000, n_seq_max=2, flash_attn="off", kv_unified=True),
    s(n_ctx=512, n_seq_max=300), s(n_ctx=1, n_seq_max=3), s(n_ctx=1, n_seq_max=4),
    s(n_ctx=1000, n_batch=128, n_ubatch=64), s(n_ctx=1000, n_batch=100),
    s(n_ctx=1000, n_ubatch=2048, n_batch=4096), s(n_ctx=1000, n_ubatch=1),
    s(n_ctx=1000, embeddings=True),
    s(swa_full=False), s(n_ctx=1000, swa_full=False), s(n_ctx=8192, swa_full=False),
    s(n_ctx=1000, n_ubatch=64, n_batch=128, swa_full=False),
    s(n_ctx=1000, n_seq_max=3, swa_full=False), s(n_ctx=1000, n_seq_max=3, kv_unified=True, swa_full=False),
]

FA = {"auto": "-1", "off": "0", "on": "1"}

KEEP = re.compile(r"buffer size|cells|K \(|R \(|does not divide|requires|failed|n_ctx_seq ==|must be")


def run(driver, model, p):
    args = [driver, model, str(p["n_ctx"]), str(p["n_batch"]), str(p["n_ubatch"]),
            str(p["n_seq_max"]), "1" if p["kv_unified"] else "0", p["type_k"], p["type_v"],
            FA[p["flash_attn"]], "1" if p["embeddings"] else "0", "1" if p["swa_full"] else "0"]
    r = subprocess.run(args, capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        # llama.cpp aborted (GGML_ASSERT): keep what it had allocated and logged by then
        allocs = [int(l.split()[3]) for l in r.stderr.splitlines()
                  if l.startswith("estimate_driver: alloc ")]
        log = [l[len("estimate_driver: log "):].strip() for l in r.stderr.splitlines()
               if l.startswith("estimate_driver: log ") and KEEP.search(l)]
        n_mem = sum(1 for l in log if "KV buffer size" in l or "RS buffer size" in l)
        return {"aborted": True, "exit": r.returncode,
                "assert": [l for l in r.stderr.splitlines() if "GGML_ASSERT" in l or "error" in l][-1:],
                "output_bytes": allocs[0] if allocs else None,
                "memory_buffers": allocs[1:1 + n_mem], "log": log}
    d = json.loads(r.stdout.strip().splitlines()[-1])
    if d.get("load_failed"):
        return {"load_failed": True}
    allocs = d.pop("allocs")
    log = [l.strip() for l in d.pop("log") if KEEP.search(l)]
    out = {"model_size": d["model_size"], "n_params": d["n_params"], "refused": d["refused"]}
    if d["refused"]:
        errs = [l for l in log if "does not divide" in l or "requires" in l or "failed" in l
                or "must be" in l]
        out["reason_log"] = errs
        return out
    for k in ("n_ctx", "n_ctx_seq", "n_batch", "n_ubatch"):
        out[k] = d[k]
    # order of allocation in llama_context's constructor: output buffer, memory, compute
    n_kv = sum(1 for l in log if "KV buffer size" in l or "RS buffer size" in l)
    out["output_bytes"] = allocs[0]["size"] if allocs else 0
    out["memory_buffers"] = [a["size"] for a in allocs[1:1 + n_kv]]
    out["compute_bytes"] = sum(b["compute"] for b in d["breakdown"])
    out["context_bytes"] = sum(b["context"] for b in d["breakdown"])
    out["breakdown"] = d["breakdown"]
    out["log"] = log
    return out


def main():
    driver, out_path, data_dir, fixture_dir = sys.argv[1:5]
    models = []
    for d, prefix in ((os.path.join(data_dir, "models"), "models/"), (fixture_dir, "fixtures/")):
        if os.path.isdir(d):
            models += [(prefix + f, os.path.join(d, f)) for f in sorted(os.listdir(d))
                       if f.endswith(".gguf")]
    cases = []
    for name, path in models:
        for p in GRID:
            r = run(driver, path, p)
            cases.append({"file": name, "params": p, "llama_cpp": r})
            if r.get("load_failed"):
                break  # the model does not load: no setting will
        print(name, file=sys.stderr)
    with open(out_path, "w") as f:
        json.dump({"reference": "llama.cpp v0.5.0 (libllama, CPU backend)",
                   "grid_note": "n_ctx 0 = the model's n_ctx_train; flash_attn auto/on/off",
                   "cases": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
