#!/usr/bin/env python3
"""Whole-process tokenization against llama.cpp: `gguf tokenize -m V -f TEXT` beside
llama.cpp's own `llama-tokenize -m V -f TEXT --ids --log-disable` and the reference's
`llama-tokenize-bench V TEXT 1` (one load, one call), in the same run, alternating.

Each figure is the median wall time of --runs processes (output to /dev/null), and beside
it the median CPU time (user + system, from wait4): on a machine shared with other jobs
the wall time includes waiting for a core, the CPU time does not. Ours is
timed twice: cold (--no-tokenizer-cache: the tables built, as llama.cpp always does) and
with the compiled tokenizer cache warm (a temporary folder written by a first run).
Ratios are llama.cpp's time / ours (above 1: we are faster). The machine is shared
(2 cores, other jobs): medians, and the spread is printed.

The texts are made once into --texts (default /tmp/gguf-cli-texts), about 4 MB each,
from files every Debian system has, none written for this benchmark:
  prose  the Debian changelogs of the installed packages (/usr/share/doc/*/changelog.Debian.gz,
         in path order, UTF-8 ones, until 4 MB): English prose written by hundreds of people
  code   the C++ standard library headers (/usr/include/c++/*/, in path order, until 4 MB)
  cjk    the translations of the installed message catalogs into Chinese (zh_CN, zh_TW),
         Japanese and Korean (/usr/share/locale/*/LC_MESSAGES/*.mo), each string once, in
         catalog order, until 4 MB

usage: bench/cli_vs_llama.py [--build build] [--runs 7] [--only NAME...] [--texts DIR]
env:   GGUF_REF_DIR (default $HOME/.cache/gguf-ref), GGUF_TEST_DATA (default ../shared/data),
       LLAMA_TOKENIZE (llama.cpp's llama-tokenize; default: built by this script from
       GGUF_REF_DIR/llsrc/tools/tokenize against the reference libraries, into --texts)
"""
import argparse
import gettext
import glob
import gzip
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import reference_setup  # noqa: E402
LIMIT = 4_000_000
VOCABS = {  # name -> tokenizer type (the rows issue 31 names, one per type and the BPE ones)
    "llama-spm": "spm",
    "llama-bpe": "bpe",
    "qwen2": "bpe",
    "gpt-2": "bpe",
    "bert-bge": "wpm",
    "ugm-sp-test": "ugm",
    "rwkv-world": "rwkv",
}


def take(chunks):
    out, n = [], 0
    for b in chunks:
        out.append(b)
        n += len(b)
        if n >= LIMIT:
            break
    data = b"".join(out)[:LIMIT]
    return data[: data.rfind(b"\n") + 1]


def prose_chunks():
    for f in sorted(glob.glob("/usr/share/doc/*/changelog.Debian.gz")):
        try:
            b = gzip.open(f).read()
            b.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        yield b


def code_chunks():
    for f in sorted(glob.glob("/usr/include/c++/*/**/*", recursive=True)):
        if os.path.isfile(f):
            yield open(f, "rb").read()


def cjk_chunks():
    seen = set()
    for lang in ("zh_CN", "zh_TW", "ja", "ko"):
        for f in sorted(glob.glob(f"/usr/share/locale/{lang}/LC_MESSAGES/*.mo")):
            try:
                with open(f, "rb") as fp:
                    cat = gettext.GNUTranslations(fp)._catalog
            except Exception:  # a catalog Python cannot read: skipped
                continue
            for v in cat.values():
                if isinstance(v, str) and v and v not in seen:
                    seen.add(v)
                    yield (v + "\n").encode("utf-8")


def make_texts(d):
    d.mkdir(parents=True, exist_ok=True)
    texts = {}
    for name, gen in (("prose", prose_chunks), ("code", code_chunks), ("cjk", cjk_chunks)):
        p = d / f"{name}.txt"
        if not p.exists():
            p.write_bytes(take(gen()))
        texts[name] = p
    return texts


def llama_tokenize(ref, d):
    if os.environ.get("LLAMA_TOKENIZE"):
        return Path(os.environ["LLAMA_TOKENIZE"])
    exe = d / "llama-tokenize"
    if exe.exists():
        return exe
    s, b = ref / "llsrc", ref / "node_modules/@node-llama-cpp/linux-x64/bins/linux-x64"
    cmd = ["g++", "-O2", "-std=c++17", "-w", f"-I{s}/include", f"-I{s}/ggml/include", f"-I{s}/common",
           f"-I{s}/vendor", f"{s}/tools/tokenize/tokenize.cpp", "-o", str(exe), f"-L{b}",
           "-l:libllama-common.so", "-l:libllama.v0.5.0.so", "-l:libggml.v0.5.0.so", "-l:libggml-base.so",
           f"-Wl,-rpath,{b}", "-lpthread"]
    subprocess.run(cmd, check=True)
    return exe


def wall(cmd):
    """(wall ms, CPU ms = user + system of the process and its threads)"""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    t = (time.perf_counter() - t0) * 1e3
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed ({status}): {' '.join(map(str, cmd))}")
    return t, (ru.ru_utime + ru.ru_stime) * 1e3


def medians(cmds, runs):
    """{name: (median wall ms, median CPU ms)} of `runs` rounds, each running every command once
    in turn (alternating, so that a busy moment of the shared machine hits all of them)."""
    times = {k: ([], []) for k in cmds}
    for _ in range(runs):
        for k, c in cmds.items():
            w, cpu = wall(c)
            times[k][0].append(w)
            times[k][1].append(cpu)
    return {k: (statistics.median(w), statistics.median(c)) for k, (w, c) in times.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--only", nargs="*", help="vocabulary names (ggml-vocab-NAME.gguf)")
    ap.add_argument("--kinds", nargs="*", default=["prose", "code", "cjk"])
    ap.add_argument("--texts", default="/tmp/gguf-cli-texts")
    args = ap.parse_args()
    r = reference_setup.locate()
    ref, data = r.dir, r.data
    texts = make_texts(Path(args.texts))
    lt = llama_tokenize(ref, Path(args.texts))
    bench = ref / "bin" / "llama-tokenize-bench"
    gguf = Path(args.build) / "gguf"
    cache = tempfile.mkdtemp(prefix="gguf-cli-bench-")
    try:
        print(f"{'vocab':12} {'type':4} {'text':5} {'MB':>4} | {'llama-tok':>15} {'tok-bench':>15} | "
              f"{'ours cold':>13} {'ours cache':>13} | {'x cold':>10} {'x cache':>10} {'x bench':>10}")
        print(f"{'':29}| {'(wall / CPU ms, medians of ' + str(args.runs) + ')':>31} |{'':29}| "
              f"{'(ratios: wall / CPU)':>32}")
        for name, typ in VOCABS.items():
            if args.only and name not in args.only:
                continue
            v = data / "vocab" / (f"ggml-vocab-{name}.gguf" if name != "ugm-sp-test" else f"{name}.gguf")
            for kind in args.kinds:
                t = texts[kind]
                cmds = {
                    "lt": [lt, "-m", v, "-f", t, "--ids", "--log-disable"],
                    "lb": [bench, v, t, "1"],
                    "cold": [gguf, "tokenize", "-m", v, "-f", t, "--no-tokenizer-cache"],
                    "cache": [gguf, "tokenize", "-m", v, "-f", t, "--tokenizer-cache", cache],
                }
                wall(cmds["cache"])  # writes the cache; warms the page cache for everyone
                wall(cmds["lt"])
                m = medians(cmds, args.runs)

                def pair(k):
                    return f"{m[k][0]:6.0f} / {m[k][1]:6.0f}"

                def ratio(a, b):
                    return f"{m[a][0] / m[b][0]:4.1f} / {m[a][1] / m[b][1]:4.1f}"

                print(f"{name:12} {typ:4} {kind:5} {t.stat().st_size / 1e6:4.1f} | {pair('lt'):>15} {pair('lb'):>15} | "
                      f"{pair('cold'):>13} {pair('cache'):>13} | {ratio('lt', 'cold'):>10} {ratio('lt', 'cache'):>10} "
                      f"{ratio('lb', 'cold'):>10}", flush=True)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
