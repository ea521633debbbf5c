#!/usr/bin/env python3
"""Cold load against llama.cpp, whole process, every vocabulary of the test data, one run.

For each vocab/*.gguf, alternating in the same run, the median wall and CPU time (user +
system, from wait4) of --runs processes that load the vocabulary and tokenize one word:
  llama-tok   llama.cpp's own `llama-tokenize -m V -p Hello --ids --log-disable` (the
              reference's tools/tokenize built against its libraries: llama_model_load_from_file
              with vocab_only, the load every llama.cpp tool does; llama.cpp has no tokenizer
              cache, so its load is always cold)
  tok-bench   the reference's `llama-tokenize-bench V FILE 1` on a file holding "Hello"
  ours cold   `gguf tokenize -m V Hello --no-tokenizer-cache` (every table built)
  ours cache  `gguf tokenize -m V Hello --tokenizer-cache DIR` (the compiled tokenizer
              cache, docs/tokenizers.md, as a later run meets it: written by a first run,
              then, once the cache file is 2 s old, a second run writes the record that
              lets every later one skip reading and hashing the whole cache file (the
              record is only written for a file at least 2 s old: table_cache.h,
              identity_min_age_ns). --fresh-cache measures the runs right after the
              first instead, which hash it)
Ratios are llama-tok's time / ours (above 1: we are faster). The machine is shared (2
cores, other jobs): the CPU time is the steadier figure; both are printed.

usage: bench/load_vs_llama.py [--build build] [--runs 11] [--only NAME...] [--texts DIR] [--fresh-cache]
env:   GGUF_REF_DIR (default $HOME/.cache/gguf-ref), GGUF_TEST_DATA (default ../shared/data),
       LLAMA_TOKENIZE (as for bench/cli_vs_llama.py, which builds it into --texts)
"""
import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cli_vs_llama import ROOT, llama_tokenize, medians, wall  # noqa: E402
sys.path.insert(0, str(ROOT / "scripts"))
import reference_setup  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--only", nargs="*", help="vocabulary file names without ggml-vocab- and .gguf")
    ap.add_argument("--texts", default="/tmp/gguf-cli-texts")
    ap.add_argument("--fresh-cache", action="store_true",
                    help="measure the cache right after it is written (no verified record yet)")
    args = ap.parse_args()
    r = reference_setup.locate()
    ref, data = r.dir, r.data
    if not any((data / "vocab").glob("*.gguf")):
        sys.exit(f"load_vs_llama: no vocabulary in {data / 'vocab'}: set GGUF_TEST_DATA to the test data folder")
    Path(args.texts).mkdir(parents=True, exist_ok=True)
    lt = llama_tokenize(ref, Path(args.texts))
    bench = ref / "bin" / "llama-tokenize-bench"
    gguf = Path(args.build) / "gguf"
    tmp = Path(tempfile.mkdtemp(prefix="gguf-load-bench-"))
    try:
        hello = tmp / "hello.txt"
        hello.write_text("Hello")
        cache = tmp / "cache"
        empty = None
        if shutil.which("c++"):
            src = tmp / "empty.cpp"
            src.write_text("int main() { return 0; }\n")
            empty = tmp / "empty"
            if subprocess.run(["c++", "-O2", "-static", src, "-o", empty], capture_output=True).returncode != 0:
                empty = None
        print(f"{'vocab':22} | {'llama-tok':>15} {'tok-bench':>15} | {'ours cold':>13} {'ours cache':>13} | "
              f"{'x cold':>11} {'x cache':>11} | {'start':>5} {'empty':>5} {'x start':>7} {'x empty':>7}")
        print(f"{'':22} | {'(wall / CPU ms, medians of ' + str(args.runs) + ')':>31} |{'':29}| {'(wall / CPU)':>23} |"
              f" {'(CPU ms)':>11} {'(CPU)':>15}")
        worst = {"cold": None, "cache": None}
        for v in sorted((data / "vocab").glob("*.gguf")):
            name = v.name.removeprefix("ggml-vocab-").removesuffix(".gguf")
            if args.only and name not in args.only:
                continue
            cmds = {
                "lt": [lt, "-m", v, "-p", "Hello", "--ids", "--log-disable"],
                "lb": [bench, v, hello, "1"],
                "cold": [gguf, "tokenize", "-m", v, "Hello", "--no-tokenizer-cache"],
                "cache": [gguf, "tokenize", "-m", v, "Hello", "--tokenizer-cache", cache],
                "start": [gguf, "--version"],
            }
            if empty:
                cmds["empty"] = [empty]
            try:
                wall(cmds["cache"])  # writes the cache; warms the page cache for everyone
                wall(cmds["lt"])
                if not args.fresh_cache:
                    time.sleep(2.2)  # the cache file is now old enough for its records
                    wall(cmds["cache"])  # writes them
            except SystemExit as e:  # a vocabulary llama.cpp (or we) refuse: say so, go on
                print(f"{name:22} | skipped: {e}")
                continue
            m = medians(cmds, args.runs)

            def pair(k):
                return f"{m[k][0]:6.1f} / {m[k][1]:6.1f}"

            def ratio(a, b):
                return f"{m[a][0] / m[b][0]:5.1f} / {m[a][1] / m[b][1]:4.1f}"

            def floor(k):
                return (f"{m[k][1]:5.2f}", f"{m['lt'][1] / m[k][1]:6.1f}") if k in m else ("    -", "     -")

            (st, xst), (em, xem) = floor("start"), floor("empty")
            for k in worst:
                r = m["lt"][1] / m[k][1]
                if worst[k] is None or r < worst[k][0]:
                    worst[k] = (r, name)
            print(f"{name:22} | {pair('lt'):>15} {pair('lb'):>15} | {pair('cold'):>13} {pair('cache'):>13} | "
                  f"{ratio('lt', 'cold'):>11} {ratio('lt', 'cache'):>11} | {st:>5} {em:>5} {xst:>7} {xem:>7}",
                  flush=True)
        if worst["cold"]:
            print(f"lowest CPU ratio: {worst['cold'][0]:.1f}x cold ({worst['cold'][1]}), "
                  f"{worst['cache'][0]:.1f}x cached ({worst['cache'][1]})")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
