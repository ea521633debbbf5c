#!/usr/bin/env python3
"""Record llama.cpp v0.5.0's template capabilities into tests/chat/data/jinja-caps.jsonl.gz.

For every template in the reference's models/templates (70) and every
tokenizer.chat_template in ../shared/data/vocab, scripts/jinja_llamacpp_driver.cpp
(compiled here against libllama-common.so) prints common_chat_templates_get_caps (what
jinja::caps_get computes: supports_system_role, supports_tools, ...) and
common_chat_templates_support_enable_thinking. One line per template is written:
{"name", "template", "caps", "enable_thinking"} (or "error"), gzip-compressed, so that
tests/chat/test_caps.cpp needs neither llama.cpp nor the reference tree.

    scripts/record_jinja_caps.py [REF_DIR (default /root/.cache/gguf-ref)] [DATA_DIR]
"""
import glob
import gzip
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
sys.path.insert(0, HERE)
from jinja_fuzz_seeds import gguf_chat_template  # noqa: E402

LIBDIR = "node_modules/@node-llama-cpp/linux-x64/bins/linux-x64"


def build_driver(ref, out):
    s, b = os.path.join(ref, "llsrc"), os.path.join(ref, LIBDIR)
    cmd = ["g++", "-O2", "-std=c++17", "-w", f"-I{s}/include", f"-I{s}/ggml/include", f"-I{s}/common",
           f"-I{s}/vendor", os.path.join(HERE, "jinja_llamacpp_driver.cpp"), "-o", out, f"-L{b}",
           "-l:libllama-common.so", "-l:libllama.v0.5.0.so", "-l:libggml.v0.5.0.so", "-l:libggml-base.so",
           f"-Wl,-rpath,{b}"]
    subprocess.run(cmd, check=True)


def templates(ref, data):
    out = []
    for path in sorted(glob.glob(os.path.join(ref, "llsrc", "models", "templates", "*.jinja"))):
        with open(path, encoding="utf-8") as f:
            out.append({"name": os.path.basename(path), "template": f.read()})
    for path in sorted(glob.glob(os.path.join(data, "vocab", "*.gguf"))):
        t = gguf_chat_template(path)
        if t:
            out.append({"name": os.path.basename(path), "template": t})
    return out


def main():
    ref = sys.argv[1] if len(sys.argv) > 1 else "/root/.cache/gguf-ref"
    data = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "..", "shared", "data")
    tmpls = templates(ref, data)
    with tempfile.TemporaryDirectory() as tmp:
        drv = os.path.join(tmp, "driver")
        build_driver(ref, drv)
        stdin = "".join(json.dumps(t) + "\n" for t in tmpls)
        res = subprocess.run([drv, "caps"], input=stdin, capture_output=True, text=True, check=True)
    lines = [json.loads(line) for line in res.stdout.splitlines()]
    assert len(lines) == len(tmpls), (len(lines), len(tmpls))
    dest = os.path.join(ROOT, "tests", "chat", "data", "jinja-caps.jsonl.gz")
    with gzip.open(dest, "wt", encoding="utf-8", compresslevel=9) as f:
        for t, r in zip(tmpls, lines):
            assert r["name"] == t["name"]
            f.write(json.dumps({**t, **{k: v for k, v in r.items() if k != "name"}}, ensure_ascii=False) + "\n")
    print(f"{len(lines)} templates -> {dest}", file=sys.stderr)


if __name__ == "__main__":
    main()
