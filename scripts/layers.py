#!/usr/bin/env python3
"""The layers of the library as its #include lines draw them, and a check that no include
runs back up a layer (DESIGN.md: io <- format <- schema/quant/vocab/chat <- model <- front ends).

Each file of src/LAYER/ belongs to LAYER; each public header include/gguf/NAME.h to the
layer that owns it (OWNER below: every header must have a row); tools/gguf and python/src
are front ends. A file may include files of its own layer and of the layers it stands on
(USES below); anything else is a violation: an include that runs up or sideways (schema
including vocab), or a front end including another front end's files.

    scripts/layers.py [--root DIR] [--dot]     text drawing (default) or Graphviz DOT

Exit status: 0 when every include keeps to the layers (but the KNOWN ones, listed), 1 when one does not (each listed as
FILE:LINE: includes TARGET (layer A -> layer B)), 2 on a usage error or a header without
an owner. ctest runs it as the test `layers`.
"""
import argparse
import collections
import os
import re
import sys

# What each layer may include besides itself (the arrows of DESIGN.md's drawing).
USES = {
    "io": set(),
    "format": {"io"},
    "schema": {"io", "format"},
    "quant": {"io", "format"},
    "vocab": {"io", "format"},
    "chat": {"io", "format", "vocab"},
    "model": {"io", "format", "schema", "quant", "vocab"},
    "tools": {"io", "format", "schema", "quant", "vocab", "chat", "model"},
    "python": {"io", "format", "schema", "quant", "vocab", "chat", "model"},
    # gguf/gguf.h includes every public header, for front ends and users only
    "umbrella": {"io", "format", "schema", "quant", "vocab", "chat", "model"},
}
# Floors, ground first: the drawing's order.
FLOORS = [["io"], ["format"], ["schema", "quant", "vocab"], ["chat", "model"], ["tools", "python"]]
FRONT_ENDS = {"tools": "tools/gguf", "python": "python/src"}

# The layer each public header belongs to (include/gguf/NAME.h).
OWNER = {
    "error": "io", "io": "io", "output": "io", "remote": "io", "workers": "io", "utf8": "io",
    "version": "io", "shared_library": "io",
    "byte_swap": "format", "edit": "format", "file": "format", "format": "format",
    "model_files": "format", "split": "format", "writer": "format", "detail/file_inl": "format",
    # data only, the facts of each tokenizer.ggml.model read by schema and vocab alike
    "tokenizer_models": "format",
    "keys": "schema", "naming": "schema", "schema": "schema",
    "quant": "quant",
    "vocab": "vocab",
    "chat": "chat",
    "diff": "model", "estimate": "model", "model": "model", "quantize": "model",
    "gguf": "umbrella",  # gguf/gguf.h includes every public header: for front ends only
}
# Includes against the layers that are known and being removed, each with who removes it:
# listed on stderr as known, not counted as violations. An entry that no longer occurs is
# reported so that it is deleted here.
KNOWN: dict = {}
SOURCE_SUFFIXES = (".h", ".hpp", ".cpp", ".cc", ".c", ".inc")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(rel):
    """The layer of a file (path relative to the root), or None for files outside the layers."""
    parts = rel.split("/")
    if parts[0] == "src" and len(parts) > 2:
        return parts[1]
    if parts[0] == "include" and len(parts) > 2 and parts[1] == "gguf":
        name = "/".join(parts[2:]).rsplit(".", 1)[0]
        return OWNER.get(name, "?" + name)
    for layer, folder in FRONT_ENDS.items():
        if rel.startswith(folder + "/"):
            return layer
    return None


def resolve(root, including, target):
    """The file an include names: beside the including file, then under include/, then src/."""
    for base in (os.path.dirname(including), "include", "src"):
        rel = os.path.normpath(os.path.join(base, target))
        if os.path.isfile(os.path.join(root, rel)):
            return rel
    return None


def scan(root):
    """Every include between layers: (file, line, target, from_layer, to_layer)."""
    edges = []
    for top in ("src", "include", "tools/gguf", "python/src"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(filenames):
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, name), root)
                src_layer = layer_of(rel)
                if src_layer is None:
                    continue
                with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
                    for no, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        target = resolve(root, rel, m.group(1))
                        if target is None:
                            continue  # a system or generated header
                        dst_layer = layer_of(target)
                        if dst_layer is not None:
                            edges.append((rel, no, target, src_layer, dst_layer))
    return edges


def allowed(src, dst):
    if src == dst:
        return True
    if dst == "umbrella":
        return src in FRONT_ENDS
    return dst in USES.get(src, set())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--dot", action="store_true", help="print Graphviz DOT instead of the text drawing")
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    edges = scan(root)
    unowned = sorted({e[4][1:] for e in edges if e[4].startswith("?")} |
                     {layer_of(e[0])[1:] for e in edges if layer_of(e[0]).startswith("?")})
    if unowned:
        for name in unowned:
            print(f"layers.py: include/gguf/{name}.h has no owning layer (add it to OWNER)", file=sys.stderr)
        return 2
    counts = collections.Counter((s, d) for _, _, _, s, d in edges if s != d)
    against = [e for e in edges if not allowed(e[3], e[4])]
    bad = [e for e in against if (e[0], e[2]) not in KNOWN]
    known = [e for e in against if (e[0], e[2]) in KNOWN]
    if a.dot:
        print("digraph layers {\n  rankdir=BT;\n  node [shape=box];")
        for floor in FLOORS:
            print("  { rank=same; " + " ".join(f'"{n}";' for n in floor) + " }")
        for (s, d), n in sorted(counts.items()):
            style = "" if allowed(s, d) else ", color=red, penwidth=2"
            print(f'  "{s}" -> "{d}" [label="{n}"{style}];')
        print("}")
    else:
        print("Layers from the #include lines (a layer uses those below it; counts are includes):")
        for floor in reversed(FLOORS):
            for layer in floor:
                uses = sorted(((d, n) for (s, d), n in counts.items() if s == layer), key=lambda x: x[0])
                text = ", ".join(f"{d} ({n})" for d, n in uses) or "nothing below"
                print(f"  {layer:<7} uses {text}")
            print("  " + "-" * 60)
        print("  (io is the ground floor)")
    for rel, no, target, s, d in known:
        print(f"{rel}:{no}: includes {target} (layer {s} -> layer {d}): known, {KNOWN[(rel, target)]}", file=sys.stderr)
    for gone in sorted(set(KNOWN) - {(e[0], e[2]) for e in known}):
        print(f"layers.py: known include {gone[0]} -> {gone[1]} no longer occurs: delete it from KNOWN", file=sys.stderr)
    for rel, no, target, s, d in bad:
        print(f"{rel}:{no}: includes {target} (layer {s} -> layer {d}: runs back up or sideways)", file=sys.stderr)
    if bad:
        print(f"layers.py: {len(bad)} include(s) against the layers", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
