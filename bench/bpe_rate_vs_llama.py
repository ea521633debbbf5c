#!/usr/bin/env python3
"""First-call tokenization rate (MiB/s) per text kind against llama.cpp, one thread, one run.

For each text it runs, alternating, the reference's `llama-tokenize-bench V TEXT 1` and our
`bench_tokenize_file V TEXT 1` (each: load the vocabulary, then the first tokenize call on
the whole text, single thread, add_special and parse_special off) --runs times, and prints
the median rates. Ours is timed twice in separate processes: by the wall clock (as the
reference times itself) and by this thread's CPU clock (GGUF_BENCH_CPU=1): on a machine
shared with other jobs the wall time includes waiting for a core, the CPU time does not.
The reference prints wall times only. Token counts must agree (checked).

Texts: prose, code, cjk as bench/cli_vs_llama.py makes them (about 4 MB each from files every
Debian system has, written by others, no repetition made for the benchmark), and the test
data's corpus/prose-en.txt, code.txt and multilingual.txt.

usage: bench/bpe_rate_vs_llama.py [--build build] [--runs 5] [--vocab llama-bpe] [--texts DIR]
env:   GGUF_REF_DIR (default $HOME/.cache/gguf-ref), GGUF_TEST_DATA (default ../shared/data)
"""
import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cli_vs_llama import ROOT, make_texts  # noqa: E402
sys.path.insert(0, str(ROOT / "scripts"))
import reference_setup  # noqa: E402

MIB = 1 << 20


def run(cmd, env=None):
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(map(str, cmd))}\n{p.stderr}")
    f = p.stdout.split()
    return float(f[1]), int(f[2]), int(f[3])  # tokenize ms, tokens, bytes


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--vocab", default="llama-bpe")
    ap.add_argument("--texts", default="/tmp/gguf-cli-texts")
    args = ap.parse_args()
    r = reference_setup.locate()
    ref, bindir, data = r.dir, r.bindir, r.data
    theirs = ref / "bin" / "llama-tokenize-bench"
    ours = Path(args.build) / "bench" / "bench_tokenize_file"
    v = data / "vocab" / f"ggml-vocab-{args.vocab}.gguf"
    texts = dict(make_texts(Path(args.texts)))
    for name in ("prose-en.txt", "code.txt", "multilingual.txt"):
        texts["corpus/" + name] = data / "corpus" / name
    ref_env = dict(os.environ, NLC_BINDIR=str(bindir), OMP_NUM_THREADS="1")
    cpu_env = dict(os.environ, GGUF_BENCH_CPU="1")
    cpu_env.pop("GGUF_BENCH_CACHE_DIR", None)
    wall_env = dict(cpu_env, GGUF_BENCH_CPU="0")
    print(f"{args.vocab}: first call, one thread, medians of {args.runs} (MiB/s; ratio = ours / llama.cpp)")
    print(f"{'text':24} {'MB':>5} | {'llama.cpp wall':>14} | {'ours wall':>9} {'ours CPU':>9} | {'x wall':>6} {'x CPU':>6}")
    for kind, path in texts.items():
        rt, ow, oc = [], [], []
        n_ref = n_our = 0
        for _ in range(args.runs):
            ms, n_ref, size = run([theirs, v, path, 1], ref_env)
            rt.append(size / MIB / (ms / 1e3))
            ms, n_our, size = run([ours, v, path, 1], wall_env)
            ow.append(size / MIB / (ms / 1e3))
            ms, _, size = run([ours, v, path, 1], cpu_env)
            oc.append(size / MIB / (ms / 1e3))
        r, w, c = statistics.median(rt), statistics.median(ow), statistics.median(oc)
        same = "" if n_ref == n_our else f"  TOKEN COUNTS DIFFER ({n_ref} vs {n_our})"
        print(f"{kind:24} {size / 1e6:5.2f} | {r:14.1f} | {w:9.1f} {c:9.1f} | {w / r:5.1f}x {c / r:5.1f}x{same}", flush=True)


if __name__ == "__main__":
    main()
