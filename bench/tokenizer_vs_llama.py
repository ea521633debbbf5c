#!/usr/bin/env python3
"""Tokenizer speed against llama.cpp, every vocabulary of the test data, one command.

For each vocab/*.gguf it runs, in the same run on the same machine, the reference's
llama-tokenize-bench and our build/bench/bench_tokenize_file (same arguments, same output:
load_ms tokenize_ms n_tokens bytes, medians over --reps) on corpus/bench.txt, single thread,
add_special and parse_special off; then times our whole process for one prompt
(`gguf tokenize -m V "Hello"`, median of --cli-runs). Prints a table and the ratios
(llama.cpp time / ours: above 1 means we are faster).

Our tokenize time is the first call of a freshly loaded vocabulary (empty per-thread word
caches); "warm" is a second call on the same text, whose words are all cached by then
(an upper bound, shown for information: the ratio that counts is the first-call one).

Load and the CLI are measured twice: cold (the tables built, --no-tokenizer-cache) and
with the compiled tokenizer cache warm (a temporary cache folder, written by a first
run; docs/tokenizers.md). llama.cpp has no such cache: its load is always cold.

Within a process the first two loads take fresh memory and the later ones reuse the pages of
the one freed before them (for both tools); with --reps 5 the median load is one of those,
with --reps 3 it is the second, fresh one (docs/tokenizers.md, "Speed against llama.cpp").

usage: bench/tokenizer_vs_llama.py [--build build] [--reps 5] [--cli-runs 21] [--only NAME...]
env:   GGUF_REF_DIR (default $HOME/.cache/gguf-ref), GGUF_TEST_DATA (default ../shared/data)
"""
import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import reference_setup  # noqa: E402


def run_bench(cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        return None
    f = p.stdout.split()
    warm = float(f[4]) if len(f) > 4 else float(f[1])  # ours: a second call (warm caches)
    return float(f[0]), float(f[1]), int(f[2]), int(f[3]), warm


def cli_ms(gguf, model, runs, cache_args):
    cmd = [gguf, "tokenize", "-m", str(model), "Hello"] + cache_args
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)  # warms the cache (and the page cache)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def vocab_type(gguf, model):
    p = subprocess.run([gguf, "info", str(model), "--json"], capture_output=True, text=True)
    try:
        info = json.loads(p.stdout)
    except ValueError:
        return "?"
    model_name = info.get("tokenizer_model") or "?"
    return {"llama": "spm", "gpt2": "bpe", "gemma4": "bpe", "bert": "wpm", "t5": "ugm"}.get(model_name, model_name)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--cli-runs", type=int, default=21)
    ap.add_argument("--only", nargs="*", help="vocabulary names (ggml-vocab-NAME.gguf)")
    ap.add_argument("--json", action="store_true", help="one JSON document instead of the table")
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # (e.g. timeout): the temporary cache is still removed
    r = reference_setup.locate()
    ref, bindir, data = r.dir, r.bindir, r.data
    theirs = ref / "bin" / "llama-tokenize-bench"
    ours = Path(args.build) / "bench" / "bench_tokenize_file"
    gguf = str(Path(args.build) / "gguf")
    corpus = data / "corpus" / "bench.txt"
    for p in (theirs, ours, corpus):
        if not p.exists():
            sys.exit(f"missing {p}")
    env = dict(os.environ, NLC_BINDIR=str(bindir), OMP_NUM_THREADS="1")
    try:
        release = r.release()
    except (OSError, ValueError, KeyError):
        release = "?"
    rows = []
    # the compiled tokenizer cache of the cached rows: removed however the run ends
    with tempfile.TemporaryDirectory(prefix="gguf-tokenizer-cache-") as cache_dir:
        cached_env = dict(os.environ, GGUF_BENCH_CACHE_DIR=cache_dir)
        for model in sorted((data / "vocab").glob("*.gguf")):
            name = model.name.removeprefix("ggml-vocab-").removesuffix(".gguf")
            if args.only and name not in args.only:
                continue
            r_ref = run_bench([str(theirs), str(model), str(corpus), str(args.reps)], env)
            r_our = run_bench([str(ours), str(model), str(corpus), str(args.reps)])
            # with the cache: the first load builds and writes it, the median is of the later ones
            r_cached = run_bench([str(ours), str(model), str(corpus), str(max(3, args.reps))], cached_env)
            if not r_ref or not r_our or not r_cached:
                print(f"{name}: a run failed (reference {r_ref}, ours {r_our})", file=sys.stderr)
                continue
            rows.append({
                "vocab": name, "type": vocab_type(gguf, model),
                "llama_load_ms": r_ref[0], "our_load_ms": r_our[0], "load_ratio": r_ref[0] / r_our[0],
                "llama_tokenize_ms": r_ref[1], "our_tokenize_ms": r_our[1], "tokenize_ratio": r_ref[1] / r_our[1],
                "our_mb_s": r_our[3] / r_our[1] / 1e3, "same_count": r_ref[2] == r_our[2], "tokens": r_our[2],
                "our_warm_tokenize_ms": r_our[4], "warm_tokenize_ratio": r_ref[1] / r_our[4],
                "our_cached_load_ms": r_cached[0], "cached_load_ratio": r_ref[0] / r_cached[0],
                "cli_hello_ms": cli_ms(gguf, model, args.cli_runs, ["--no-tokenizer-cache"]),
                "cli_hello_cached_ms": cli_ms(gguf, model, args.cli_runs, ["--tokenizer-cache", cache_dir]),
            })
    if args.json:
        print(json.dumps({"llama.cpp": release, "corpus_bytes": corpus.stat().st_size, "rows": rows}, indent=1))
        return
    print(f"llama.cpp {release} vs ours, {corpus.name} ({corpus.stat().st_size} bytes), medians of {args.reps} "
          f"(tokenize, load) and {args.cli_runs} (CLI); ratio = llama.cpp / ours")
    hdr = (f"{'vocab':<18}{'type':<6}{'tok ms ref':>11}{'ours':>9}{'ratio':>8}{'MB/s':>8}{'warm':>8}{'ratio':>8}"
           f"{'load ms ref':>12}{'ours':>8}{'ratio':>8}{'cached':>8}{'ratio':>8}{'cli ms':>8}{'cached':>8}  same n")
    print(hdr)
    for r in rows:
        print(f"{r['vocab']:<18}{r['type']:<6}{r['llama_tokenize_ms']:>11.1f}{r['our_tokenize_ms']:>9.1f}"
              f"{r['tokenize_ratio']:>7.1f}x{r['our_mb_s']:>8.1f}{r['our_warm_tokenize_ms']:>8.1f}"
              f"{r['warm_tokenize_ratio']:>7.1f}x{r['llama_load_ms']:>12.1f}{r['our_load_ms']:>8.2f}"
              f"{r['load_ratio']:>7.1f}x{r['our_cached_load_ms']:>8.2f}{r['cached_load_ratio']:>7.1f}x"
              f"{r['cli_hello_ms']:>8.1f}{r['cli_hello_cached_ms']:>8.1f}  {'yes' if r['same_count'] else 'NO'}")
    if rows:
        print(f"lowest tokenize ratio {min(r['tokenize_ratio'] for r in rows):.1f}x, lowest load ratio "
              f"{min(r['load_ratio'] for r in rows):.1f}x cold, {min(r['cached_load_ratio'] for r in rows):.1f}x "
              f"cached; slowest CLI {max(r['cli_hello_ms'] for r in rows):.1f} ms cold, "
              f"{max(r['cli_hello_cached_ms'] for r in rows):.1f} ms cached")


if __name__ == "__main__":
    main()
