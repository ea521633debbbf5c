#!/usr/bin/env python3
"""`gguf chat --count` on one conversation, whole process, tokenizer cache warm: wall and CPU
medians of repeated runs, beside `gguf tokenize --count` of one word with the same vocabulary
(the floor: process start, opening the file, loading the cached tokenizer) in the same run.

    bench/chat_count_bench.py [BUILD_DIR (build)] [RUNS (31)]

Conversation: tests/chat/data/conversations/09_parallel_calls.json (two tools, parallel
calls) on ../shared/data/vocab/ggml-vocab-gemma-4.gguf (12 KB template, 262k tokens).
Runs alternate between the two commands so that both see the same machine load; the load
average is printed, since on a shared 2-core machine wall time mostly measures the neighbours
(CPU time does not).
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")


def timed(cmd):
    """(wall seconds, CPU seconds of the child: user + system)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read().decode()
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(cmd)} failed: {err}")
    return wall, ru.ru_utime + ru.ru_stime


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 31
    data = os.environ.get("GGUF_TEST_DATA", os.path.join(ROOT, "..", "shared", "data"))
    gguf = os.path.join(build, "gguf")
    vocab = os.path.join(data, "vocab", "ggml-vocab-gemma-4.gguf")
    conv = json.load(open(os.path.join(ROOT, "tests", "chat", "data", "conversations", "09_parallel_calls.json")))
    with tempfile.TemporaryDirectory() as tmp:
        msgs, tools = os.path.join(tmp, "m.json"), os.path.join(tmp, "t.json")
        json.dump(conv["messages"], open(msgs, "w"))
        json.dump(conv.get("tools", []), open(tools, "w"))
        cmds = {
            "gguf chat --count": [gguf, "chat", "-m", vocab, "--messages", msgs, "--tools", tools,
                                  "--add-generation-prompt", "--count"],
            "gguf tokenize --count (one word)": [gguf, "tokenize", "-m", vocab, "--count", "hello"],
        }
        for c in cmds.values():  # warm the tokenizer cache and the page cache
            timed(c)
        res = {k: [] for k in cmds}
        load0 = os.getloadavg()[0]
        for _ in range(runs):
            for k, c in cmds.items():
                res[k].append(timed(c))
        load1 = os.getloadavg()[0]
    print(f"{runs} runs each, load average {load0:.1f} -> {load1:.1f} on {os.cpu_count()} CPUs")
    print(f"{'command':34} {'wall median':>12} {'wall min':>9} {'CPU median':>11}")
    for k, v in res.items():
        w = [x[0] * 1e3 for x in v]
        c = [x[1] * 1e3 for x in v]
        print(f"{k:34} {statistics.median(w):9.1f} ms {min(w):6.1f} ms {statistics.median(c):8.1f} ms")


if __name__ == "__main__":
    main()
