#!/usr/bin/env python3
"""Side by side: render the gemma-4 chat template on a 10-turn conversation with tools.

  ours       bench/bench_jinja (Google Benchmark; template parsed once, render timed)
  jinja2     Debian's python3-jinja2 in transformers' environment (from_string once, render timed)
  llama.cpp  its engine in libllama-common.so (scripts/jinja_llamacpp_driver.cpp bench:
             parse once; context from JSON + render timed, as llama-server does per request)

Times are CPU time of the process (the machine's 2 cores are shared: wall time would
measure the neighbours). Prints medians and ratios; run with as little else busy as you can:
    bench/jinja_bench.py [BUILD_DIR (build)] [REPS (21)]
Needs ../shared/data (GGUF_TEST_DATA) and, for the llama.cpp column, /root/.cache/gguf-ref.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from jinja_fuzz_seeds import gguf_chat_template  # noqa: E402
from record_jinja_caps import build_driver  # noqa: E402

JINJA2 = r'''
import datetime, json, os, sys, time
import jinja2
from jinja2.ext import loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment
def raise_exception(m): raise jinja2.exceptions.TemplateError(m)
def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)
env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
env.filters["tojson"] = tojson
env.globals["raise_exception"] = raise_exception
env.globals["strftime_now"] = lambda f: datetime.datetime.now().strftime(f)
t = env.from_string(open(sys.argv[1], encoding="utf-8").read())
ctx = json.load(open(sys.argv[2], encoding="utf-8"))
n = int(sys.argv[3])
times = []
for _ in range(n):
    t0 = time.process_time_ns(); out = t.render(**ctx); times.append(time.process_time_ns() - t0)
times.sort()
print(times[len(times) // 2], len(out.encode()))
'''


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 21
    data = os.environ.get("GGUF_TEST_DATA", os.path.join(ROOT, "..", "shared", "data"))
    ref = os.environ.get("GGUF_REF", "/root/.cache/gguf-ref")
    conv = os.path.join(HERE, "data", "jinja_conversation.json")
    tmpl = gguf_chat_template(os.path.join(data, "vocab", "ggml-vocab-gemma-4.gguf"))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tpath = os.path.join(tmp, "gemma4.jinja")
        with open(tpath, "w", encoding="utf-8") as f:
            f.write(tmpl)
        env = dict(os.environ, GGUF_TEST_DATA=data)
        # both benchmarks: the render alone (context built once, as jinja2's row) and the context
        # built from JSON + render (as llama.cpp's row); each median over its own repetitions
        out = subprocess.run([os.path.join(build, "bench", "bench_jinja"), "--benchmark_filter=gemma4",
                              f"--benchmark_repetitions={reps}", "--benchmark_format=json"],
                             capture_output=True, text=True, check=True, env=env).stdout
        runs = [b for b in json.loads(out)["benchmarks"] if b.get("run_type") == "iteration"]

        def median_of(name):
            mine = [b for b in runs if b["run_name"] == name]
            return statistics.median(b["cpu_time"] * 1000 for b in mine), int(mine[0].get("output_bytes", 0))  # us -> ns

        ours, size = median_of("BM_jinja_gemma4_render")
        rows.append(("ours (gguf::jinja)", ours, size))
        rows.append(("ours, context from JSON", *median_of("BM_jinja_gemma4_context_and_render")))
        n = max(reps * 10, 200)
        j = subprocess.run(["/usr/bin/python3", "-c", JINJA2, tpath, conv, str(n)], capture_output=True,
                           text=True, check=True).stdout.split()
        rows.append(("python3-jinja2", float(j[0]), int(j[1])))
        if os.path.isdir(ref):
            drv = os.path.join(tmp, "driver")
            build_driver(ref, drv)
            l = subprocess.run([drv, "bench", tpath, conv, str(n)], capture_output=True, text=True,
                               check=True).stdout.split()
            rows.append(("llama.cpp common/jinja", float(l[1]), int(l[3])))
    print(f"gemma-4 template ({len(tmpl)} bytes), 10-turn conversation with tools; medians")
    for name, ns, size in rows:
        shown = f"   output {size} bytes" if size else ""
        print(f"  {name:24s} {ns / 1000:10.1f} us CPU   {ns / ours:6.1f}x ours{shown}")


if __name__ == "__main__":
    main()
