#!/usr/bin/env python3
"""`gguf diff --values` against numpy: for two quantizations of one model, each tensor's
NMSE (sum (b - a)^2 / sum a^2) and max |b - a| computed here with numpy from the raw bytes
(our own numpy dequantization of f32, f16, bf16, q8_0, q4_0 and q4_1, after ggml's block
layouts), the tensor offsets read from `gguf dump --json`.

usage: diff_numpy.py GGUF_CLI DATA_DIR   ($GGUF_TEST_DATA overrides DATA_DIR; exit 77: skipped, numpy or the data absent)
"""
import json
import os
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print("numpy is not installed: skipped")
    sys.exit(77)

cli, data = sys.argv[1], os.environ.get("GGUF_TEST_DATA") or sys.argv[2]
PAIRS = [("stories260K.gguf", "stories260K-Q8_0.gguf"), ("stories260K-Q4_0.gguf", "stories260K-Q8_0.gguf"),
         ("stories260K-F16.gguf", "stories260K-BF16.gguf"), ("stories260K-Q4_1.gguf", "stories260K.gguf")]


def f16(b):
    return np.frombuffer(b, dtype="<f2").astype(np.float32)


def dequantize(t, raw):
    n = int(np.prod(t["ne"]))
    typ = t["type"]
    if typ == "f32":
        return np.frombuffer(raw, dtype="<f4").copy()
    if typ == "f16":
        return f16(raw)
    if typ == "bf16":
        return (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
    if typ == "q8_0":  # block: f16 d, 32 x int8 q; x = d * q
        blk = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 34)
        d = f16(blk[:, :2].tobytes()).reshape(-1, 1)
        q = blk[:, 2:].view(np.int8).astype(np.float32)
        return (d * q).reshape(n)
    if typ in ("q4_0", "q4_1"):  # block: f16 d [, f16 m], 16 bytes: low nibbles = 0..15, high = 16..31
        size = 18 if typ == "q4_0" else 20
        blk = np.frombuffer(raw, dtype=np.uint8).reshape(-1, size)
        d = f16(blk[:, :2].tobytes()).reshape(-1, 1)
        qs = blk[:, size - 16:]
        q = np.concatenate([qs & 0x0F, qs >> 4], axis=1).astype(np.float32)
        if typ == "q4_0":
            return ((q - 8) * d).reshape(n)
        m = f16(blk[:, 2:4].tobytes()).reshape(-1, 1)
        return (q * d + m).reshape(n)
    raise SystemExit(f"no numpy dequantization for {typ}")


def load(path):
    dump = json.loads(subprocess.run([cli, "dump", "--json", path], check=True, capture_output=True).stdout)
    with open(path, "rb") as fh:
        blob = fh.read()
    out = {}
    for t in dump["tensors"]:
        start = dump["data_offset"] + t["offset"]
        out[t["name"]] = (t, dequantize(t, blob[start:start + t["nbytes"]]), blob[start:start + t["nbytes"]])
    return out


failures = 0
checked = 0
for a_name, b_name in PAIRS:
    pa, pb = os.path.join(data, "models", a_name), os.path.join(data, "models", b_name)
    if not (os.path.exists(pa) and os.path.exists(pb)):
        print(f"{a_name} or {b_name} absent: skipped")
        sys.exit(77)
    run = subprocess.run([cli, "diff", "--values", "--json", pa, pb], capture_output=True)
    if run.returncode != 1:
        print(f"{a_name} vs {b_name}: exit {run.returncode}, want 1: {run.stderr.decode()}")
        failures += 1
        continue
    got = {t["name"]: t for t in json.loads(run.stdout)["tensors"]}
    A, B = load(pa), load(pb)
    for name, (ta, xa, ra) in A.items():
        tb, xb, rb = B[name]
        if ta["type"] == tb["type"] and ra == rb:
            if name in got:
                print(f"{a_name} vs {b_name}: {name} has the same bytes but is listed")
                failures += 1
            continue
        if name not in got:
            print(f"{a_name} vs {b_name}: {name} differs but is not listed")
            failures += 1
            continue
        d = xb.astype(np.float64) - xa.astype(np.float64)
        nmse = float(np.sum(d * d) / np.sum(xa.astype(np.float64) ** 2))
        max_abs = float(np.max(np.abs(d)))
        g = got[name]
        checked += 1
        if not (g["nmse"] > 0 and abs(g["nmse"] - nmse) <= 1e-9 * nmse and g["max_abs"] == max_abs):
            print(f"{a_name} vs {b_name}: {name}: gguf nmse {g['nmse']!r} max_abs {g['max_abs']!r}, "
                  f"numpy nmse {nmse!r} max_abs {max_abs!r}")
            failures += 1
    print(f"{a_name} vs {b_name}: {len(got)} tensors differ, all checked against numpy")

print(f"{checked} tensors compared, {failures} failures")
sys.exit(1 if failures or checked == 0 else 0)
