#!/usr/bin/env python3
"""Dequantization speed against ggml, every type of quant/quant-fixture.gguf, one command.

Builds bench/reference/ggml_dequant_bench.cpp against the reference ggml (libggml-base's
ggml_get_type_traits(t)->to_float; for f16/bf16 also ggml-cpu's ggml_cpu_fp16_to_fp32 /
ggml_cpu_bf16_to_fp32 from the libggml-cpu variant ggml would pick on this CPU) and runs it
next to our build/bench/bench_dequant_vs on the same input (the fixture's ggml-quantized
blocks tiled to --mib MiB of float32 output), single thread, medians of --reps.
Prints GB/s of float32 written, ratio = ours / ggml (above 1: we are faster), and memcpy.

usage: bench/dequant_vs_ggml.py [--build build] [--mib 64] [--reps 9]
env:   GGUF_REF_DIR (default $HOME/.cache/gguf-ref), GGUF_TEST_DATA (default ../shared/data)
"""
import argparse
import ctypes
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import reference_setup  # noqa: E402


def best_cpu_variant(bindir):
    best, score = None, 0
    for lib in sorted(bindir.glob("libggml-cpu-*.so")):
        try:
            s = ctypes.CDLL(str(lib)).ggml_backend_score()
        except OSError:
            continue
        if s > score:
            best, score = lib, s
    return best


def table(out):
    rows = {}
    for line in out.splitlines():
        parts = line.split()
        rows[parts[0]] = [float(x) for x in parts[1:]]
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--mib", type=float, default=64)
    ap.add_argument("--reps", type=int, default=9)
    args = ap.parse_args()
    ref = reference_setup.locate()
    src, bindir, data, release = ref.src, ref.bindir, ref.data, ref.release()
    fixture = data / "quant" / "quant-fixture.gguf"
    ours = Path(args.build) / "bench" / "bench_dequant_vs"
    cpu = best_cpu_variant(bindir)
    with tempfile.TemporaryDirectory() as tmp:
        drv = Path(tmp) / "ggml_dequant_bench"
        subprocess.run(["g++", "-O2", "-std=c++17", f"-I{src}/ggml/include", str(ROOT / "bench" / "reference" /
                        "ggml_dequant_bench.cpp"), "-o", str(drv), f"-L{bindir}", "-l:libggml-base.so",
                        f"-Wl,-rpath,{bindir}", "-ldl"], check=True)
        cmd = [str(drv), str(fixture), str(args.mib), str(args.reps)] + ([str(cpu)] if cpu else [])
        theirs = table(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    mine = table(subprocess.run([str(ours), str(fixture), str(args.mib), str(args.reps)], capture_output=True,
                                text=True, check=True).stdout)
    print(f"ggml {release} vs ours: GB/s of float32 written, {args.mib:g} MiB output, median of {args.reps}, "
          f"one thread; ggml-cpu = {cpu.name if cpu else 'none'}")
    print(f"{'type':<9}{'ggml':>8}{'ggml-cpu':>10}{'ours':>8}{'ratio':>8}")
    worst = None
    for t, g in theirs.items():
        o = mine.get(t, [float('nan')])[0]
        ref_best = max(g)
        ratio = o / ref_best
        worst = ratio if worst is None else min(worst, ratio)
        cpu_col = f"{g[1]:>10.2f}" if len(g) > 1 else f"{'':>10}"
        print(f"{t:<9}{g[0]:>8.2f}{cpu_col}{o:>8.2f}{ratio:>7.2f}x")
    print(f"memcpy   {mine['memcpy'][0]:>8.2f} GB/s; lowest ratio {worst:.2f}x over {len(theirs)} types")


if __name__ == "__main__":
    sys.exit(main())
