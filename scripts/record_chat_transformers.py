#!/usr/bin/env python3
"""Record what transformers' apply_chat_template renders, for tests/chat (replayed by test_chat_transformers).

Reproduces `PreTrainedTokenizerBase.apply_chat_template(conversation, tools=..., add_generation_prompt=...,
tokenize=False, **kwargs)` of transformers 4.4x-4.5x with Debian's python3-jinja2 (no transformers needed):

  * the environment of transformers' `_compile_jinja_template`: `ImmutableSandboxedEnvironment(trim_blocks=True,
    lstrip_blocks=True, extensions=[AssistantTracker, jinja2.ext.loopcontrols])`, its `tojson` filter
    (json.dumps with ensure_ascii=False, indent, separators, sort_keys), the globals `raise_exception(msg)` and
    `strftime_now(fmt)`; `{% generation %}` renders its body (the tracker only records offsets);
  * transformers' get_chat_template: a tokenizer with named templates renders "tool_use" when tools are given;
  * the context of `render_jinja_template`: `messages`, `tools` (the list given, or None), `documents=None`,
    `add_generation_prompt`, the tokenizer's special tokens (`bos_token`, `eos_token`, `unk_token`, `pad_token`
    as text, those the vocabulary defines), then the caller's kwargs (`chat_template_kwargs` of a conversation).

strftime_now formats the time of SOURCE_DATE_EPOCH (default 1721995200 = 2024-07-26 12:00:00 UTC) in UTC, so
the recording is reproducible; gguf's engine does the same under SOURCE_DATE_EPOCH.

Templates: every llama.cpp models/templates/*.jinja and every tokenizer.chat_template[.NAME] embedded in
the vocabularies of ../shared/data/vocab. Writes (gzip JSONL, one object per line):
  tests/chat/data/templates.jsonl.gz     {"name", "source", "tokens": {"bos_token": ...}}
  tests/chat/data/transformers.jsonl.gz  {"t": name, "c": conversation, "prompt": text} or {..., "error": text}

Usage: /usr/bin/python3 scripts/record_chat_transformers.py [--ref ~/.cache/gguf-ref] [--data ../shared/data]
Needs: python3-jinja2 (Debian), python3-numpy (for gguf-py, read from the reference's llsrc/gguf-py).
"""
import argparse
import datetime
import glob
import gzip
import json
import os
import sys

import jinja2
import jinja2.ext
from jinja2.sandbox import ImmutableSandboxedEnvironment

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
EPOCH = int(os.environ.get("SOURCE_DATE_EPOCH", "1721995200"))


class GenerationTag(jinja2.ext.Extension):
    """transformers' AssistantTracker without the tracking: {% generation %}...{% endgeneration %} = body."""
    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return jinja2.nodes.CallBlock(self.call_method("_render"), [], [], body).set_lineno(lineno)

    def _render(self, caller):
        return caller()


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def strftime_now(fmt):
    return datetime.datetime.fromtimestamp(EPOCH, datetime.timezone.utc).strftime(fmt)


def compile_template(source):
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[GenerationTag, jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env.from_string(source)


def render(compiled, conv, tokens):
    kwargs = dict(tokens)
    kwargs.update(conv.get("chat_template_kwargs") or {})
    return compiled.render(messages=conv["messages"], tools=conv.get("tools"), documents=None,
                           add_generation_prompt=bool(conv.get("add_generation_prompt", False)), **kwargs)


def vocab_templates(data_dir, gguf_py):
    sys.path.insert(0, gguf_py)
    from gguf import GGUFReader  # noqa: E402  (gguf-py of the reference tree)

    def text(field, i=0):
        return bytes(field.parts[field.data[i]]).decode("utf-8")

    out = []
    for path in sorted(glob.glob(os.path.join(data_dir, "vocab", "*.gguf"))):
        r = GGUFReader(path)
        fields = r.fields
        if "tokenizer.ggml.tokens" not in fields:
            continue
        toks = fields["tokenizer.ggml.tokens"]
        tokens = {}
        for key, name in (("bos", "bos_token"), ("eos", "eos_token"), ("unknown", "unk_token"),
                          ("padding", "pad_token")):
            f = fields.get("tokenizer.ggml.%s_token_id" % key)
            if f is not None:
                tokens[name] = text(toks, int(f.parts[f.data[0]][0]))
        base = "vocab/" + os.path.basename(path)
        for key, f in fields.items():
            if key == "tokenizer.chat_template":
                out.append({"name": base, "source": text(f), "tokens": tokens})
            elif key.startswith("tokenizer.chat_template."):
                out.append({"name": base + ":" + key[len("tokenizer.chat_template."):], "source": text(f),
                            "tokens": tokens})
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ref", default=os.environ.get("GGUF_REF_DIR", os.path.expanduser("~/.cache/gguf-ref")))
    ap.add_argument("--data", default=os.environ.get("GGUF_TEST_DATA", os.path.join(ROOT, "..", "shared", "data")),
                    help="test data folder (default $GGUF_TEST_DATA or ../shared/data)")
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "chat", "data"))
    args = ap.parse_args()

    templates = []
    for path in sorted(glob.glob(os.path.join(args.ref, "llsrc", "models", "templates", "*.jinja"))):
        with open(path, encoding="utf-8") as f:
            src = f.read()
        # llama.cpp's tests render these with bos "<s>" and eos "</s>"; no other special tokens.
        templates.append({"name": "models/" + os.path.basename(path), "source": src,
                          "tokens": {"bos_token": "<s>", "eos_token": "</s>"}})
    templates += vocab_templates(args.data, os.path.join(args.ref, "llsrc", "gguf-py"))

    convs = []
    for path in sorted(glob.glob(os.path.join(args.out, "conversations", "*.json"))):
        with open(path, encoding="utf-8") as f:
            convs.append((os.path.basename(path)[:-5], json.load(f)))

    # transformers' get_chat_template: with tools given, a tokenizer's "tool_use" template replaces the default
    tool_use = {t["name"].split(":")[0]: t for t in templates if t["name"].endswith(":tool_use")}

    n_ok = n_err = 0
    with gzip.open(os.path.join(args.out, "templates.jsonl.gz"), "wt", encoding="utf-8", compresslevel=9) as tf, \
         gzip.open(os.path.join(args.out, "transformers.jsonl.gz"), "wt", encoding="utf-8", compresslevel=9) as rf:
        for t in templates:
            tf.write(json.dumps(t, ensure_ascii=False) + "\n")
            try:
                compiled = compile_template(t["source"])
            except Exception as e:  # a template jinja2 cannot parse: every conversation is an error
                compiled, perr = None, "%s: %s" % (type(e).__name__, e)
            for cname, conv in convs:
                rec = {"t": t["name"], "c": cname}
                try:
                    if conv.get("tools") is not None and t["name"] in tool_use:
                        rec["prompt"] = render(compile_template(tool_use[t["name"]]["source"]), conv, t["tokens"])
                    elif compiled is None:
                        raise RuntimeError(perr)
                    else:
                        rec["prompt"] = render(compiled, conv, t["tokens"])
                    n_ok += 1
                except Exception as e:
                    rec["error"] = "%s: %s" % (type(e).__name__, e)
                    n_err += 1
                rf.write(json.dumps(rec, ensure_ascii=False) + "\n")
    print("templates %d, conversations %d: %d rendered, %d raised (jinja2 %s)" %
          (len(templates), len(convs), n_ok, n_err, jinja2.__version__))


if __name__ == "__main__":
    main()
