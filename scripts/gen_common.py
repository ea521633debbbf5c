"""Shared command line of the table generators (gen_*.py): read one file of llama.cpp's
source tree, write the generated C++ file, or --check it against a committed one."""
import argparse
import os
import sys


def run(doc, rel_path, generate):
    """doc: the generator's docstring; rel_path: the input inside llama.cpp's tree;
    generate: input text -> output text. Returns the exit code (77: reference absent)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ref = os.environ.get("GGUF_REF_DIR", os.path.join(os.path.expanduser("~"), ".cache", "gguf-ref"))
    ap.add_argument("--ref", default=os.path.join(ref, "llsrc"), help="llama.cpp source tree")
    ap.add_argument("-o", "--output", help="write here (default: stdout)")
    ap.add_argument("--check", help="compare with this file instead of writing")
    a = ap.parse_args()
    path = os.path.join(a.ref, rel_path)
    if not os.path.exists(path):
        print(f"{os.path.basename(sys.argv[0])}: {path} not found (set GGUF_REF_DIR or --ref)", file=sys.stderr)
        return 77
    text = generate(open(path, encoding="utf-8").read())
    if a.check:
        same = open(a.check, encoding="utf-8").read() == text
        print(("same as " if same else "DIFFERS from ") + a.check)
        return 0 if same else 1
    if a.output:
        open(a.output, "w", encoding="utf-8").write(text)
    else:
        sys.stdout.write(text)
    return 0
