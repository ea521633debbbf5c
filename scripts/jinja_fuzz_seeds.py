#!/usr/bin/env python3
"""Seeds of fuzz/fuzz_jinja.cpp: real chat templates, each followed by a NUL and a context.

Sources: the tokenizer.chat_template of every GGUF under DATA (../shared/data), the
templates of tests/chat/data (every JSON value with a "template" string, in *.json and
*.jsonl[.gz]), and the engine's own cases (tests/chat/data/jinja-cases).

    scripts/jinja_fuzz_seeds.py DATA OUT_DIR
"""
import glob
import gzip
import json
import os
import struct
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
CONTEXT = {"messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "hi"},
                        {"role": "assistant", "content": "ok"}], "add_generation_prompt": True,
           "bos_token": "<s>", "eos_token": "</s>"}


def gguf_chat_template(path):
    """tokenizer.chat_template of a GGUF file (v2/v3, little-endian), or None."""
    with open(path, "rb") as f:
        data = f.read(64 << 20)
    if data[:4] != b"GGUF":
        return None
    pos = 8
    scalar = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}

    def take(fmt):
        nonlocal pos
        v = struct.unpack_from("<" + fmt, data, pos)[0]
        pos += struct.calcsize("<" + fmt)
        return v

    def string():
        nonlocal pos
        n = take("Q")
        s = data[pos:pos + n]
        pos += n
        return s

    def value(t):
        if t == 8:
            return string()
        if t == 9:
            at, n = take("I"), take("Q")
            return [value(at) for _ in range(n)]
        return take(scalar[t])

    try:
        take("Q")  # tensor count
        for _ in range(take("Q")):
            key = string().decode()
            v = value(take("I"))
            if key == "tokenizer.chat_template":
                return v.decode("utf-8", "replace")
    except (struct.error, KeyError, ValueError, IndexError, MemoryError, OverflowError):
        return None
    return None


def templates_in(obj):
    if isinstance(obj, dict):
        if isinstance(obj.get("template"), str):
            yield obj["template"]
        for v in obj.values():
            yield from templates_in(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from templates_in(v)


def main():
    data, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    seen = set()
    for path in sorted(glob.glob(os.path.join(data, "**", "*.gguf"), recursive=True)):
        t = gguf_chat_template(path)
        if t:
            seen.add(t)
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "chat", "data", "**", "*.json*"), recursive=True)):
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as f:
            text = f.read()
        docs = [json.loads(line) for line in text.splitlines() if line.strip()] if ".jsonl" in path else [json.loads(text)]
        for d in docs:
            seen.update(templates_in(d))
    ctx = json.dumps(CONTEXT).encode()
    for i, t in enumerate(sorted(seen)):
        with open(os.path.join(out, f"jinja-{i:04d}"), "wb") as f:
            f.write(t.encode("utf-8") + b"\0" + ctx)
    print(f"{len(seen)} templates", file=sys.stderr)


if __name__ == "__main__":
    main()
