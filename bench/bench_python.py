#!/usr/bin/env python3
"""Python package benchmarks (medians of N runs, with the reference side by side):

  compat   open + read every field (ReaderField.contents()) of the command-r vocabulary
           (256k tokens): ggufkit.compat.GGUFReader vs gguf-py's GGUFReader (from the
           llama.cpp source tree: GGUF_REF_DIR/llsrc/gguf-py, default ~/.cache/gguf-ref)
  batch    Vocab.encode_batch of bench.txt's lines with 1 and 2 threads vs a loop of encode
  call     Vocab.encode("Hello world") from Python (compare with bench_batch's
           batch/short_text, the C++ call)

  python3 bench/bench_python.py [--runs N] [compat] [batch] [call]
Run with an interpreter that has ggufkit installed (e.g. build/python-venv/bin/python).
"""
import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import ggufkit
from ggufkit import compat

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("GGUF_TEST_DATA", ROOT.parent / "shared" / "data"))
REF = Path(os.environ.get("GGUF_REF_DIR", Path.home() / ".cache" / "gguf-ref")) / "llsrc" / "gguf-py"


def median_time(fn, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def read_all(reader_cls, path):
    r = reader_cls(path)
    for f in r.fields.values():
        f.contents()
    return r


def bench_compat(runs):
    path = DATA / "vocab/ggml-vocab-command-r.gguf"
    ours = median_time(lambda: read_all(compat.GGUFReader, path), runs)
    print(f"compat  ggufkit.compat.GGUFReader open+contents  {ours * 1e3:9.1f} ms (median of {runs})")
    if not (REF / "gguf").is_dir():
        print(f"compat  gguf-py not found at {REF}: no reference")
        return
    sys.path.insert(0, str(REF))
    from gguf.gguf_reader import GGUFReader
    ref = median_time(lambda: read_all(GGUFReader, path), runs)
    print(f"compat  gguf-py GGUFReader open+contents          {ref * 1e3:9.1f} ms (median of {runs})")
    print(f"compat  ratio gguf-py / ggufkit: {ref / ours:.1f}x")


def bench_batch(runs):
    v = ggufkit.Vocab(DATA / "vocab/ggml-vocab-llama-bpe.gguf")
    lines = [l for l in (DATA / "corpus/bench.txt").read_text(encoding="utf-8").splitlines() if l]
    mb = sum(len(l.encode()) for l in lines) / 1e6
    loop = median_time(lambda: [v.encode(l) for l in lines], runs)
    t1 = median_time(lambda: v.encode_batch(lines, threads=1), runs)
    t2 = median_time(lambda: v.encode_batch(lines, threads=2), runs)
    print(f"batch   {len(lines)} lines, {mb:.2f} MB: loop of encode {loop:.3f} s ({mb / loop:.2f} MB/s), "
          f"encode_batch threads=1 {t1:.3f} s ({mb / t1:.2f} MB/s), threads=2 {t2:.3f} s ({mb / t2:.2f} MB/s)")
    print(f"batch   speed-ups: threads=1 vs loop {loop / t1:.2f}x, threads=2 vs loop {loop / t2:.2f}x, "
          f"threads=2 vs threads=1 {t1 / t2:.2f}x")


def bench_call(runs):
    v = ggufkit.Vocab(DATA / "vocab/ggml-vocab-llama-bpe.gguf")
    n = 200000
    wall, cpu = [], []
    for _ in range(runs):
        t, c = time.perf_counter(), time.process_time()
        for _ in range(n):
            v.encode("Hello world")
        wall.append((time.perf_counter() - t) / n)
        cpu.append((time.process_time() - c) / n)
    print(f"call    Vocab.encode('Hello world') from Python: {statistics.median(wall) * 1e9:.0f} ns wall, "
          f"{statistics.median(cpu) * 1e9:.0f} ns cpu (median of {runs} x {n})")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("which", nargs="*", default=["compat", "batch", "call"])
    a = p.parse_args()
    for w in a.which:
        {"compat": bench_compat, "batch": bench_batch, "call": bench_call}[w](a.runs)


if __name__ == "__main__":
    main()
