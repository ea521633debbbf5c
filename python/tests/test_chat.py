"""Vocab.apply_chat_template: prompts equal the recorded references of tests/chat/data
(Debian's jinja2 in transformers' environment; llama-server v0.5.0), transformers' argument
names and return types (str, or token ids with tokenize=True), chat_template=, errors, and
chat_template_caps equal to llama.cpp's."""
import gzip
import json
import pathlib

import pytest

import ggufkit

CHAT_DATA = pathlib.Path(__file__).resolve().parents[2] / "tests" / "chat" / "data"


def recorded(name):
    with gzip.open(CHAT_DATA / name, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def conversations():
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted((CHAT_DATA / "conversations").glob("*.json"))}


def render(v, conv, server=False, tokenize=False):
    return v.apply_chat_template(conv["messages"], tools=conv.get("tools"),
                                 add_generation_prompt=conv.get("add_generation_prompt", False),
                                 tokenize=tokenize, server=server, **conv.get("chat_template_kwargs", {}))


@pytest.mark.parametrize("vocab", ["gemma-4", "qwen2", "phi-3"])
def test_transformers_rendering_equals_jinja2(data, vocab):
    name = "vocab/ggml-vocab-%s.gguf" % vocab
    v = ggufkit.Vocab(data / "vocab" / ("ggml-vocab-%s.gguf" % vocab))
    convs = conversations()
    n = 0
    for r in recorded("transformers.jsonl.gz"):
        if r.get("t") != name:
            continue
        if "prompt" in r:
            assert render(v, convs[r["c"]]) == r["prompt"], r["c"]
        else:
            with pytest.raises(ggufkit.GGUFError):
                render(v, convs[r["c"]])
        n += 1
    assert n == len(convs)


def test_server_rendering_equals_llama_server(data):
    v = ggufkit.Vocab(data / "vocab" / "ggml-vocab-gemma-4.gguf")
    convs = conversations()
    known = {line.split()[2] for line in (CHAT_DATA / "known-mismatches.txt").read_text().splitlines()
             if line.startswith("server vocab/ggml-vocab-gemma-4.gguf ")}
    n = 0
    for r in recorded("server.jsonl.gz"):
        if r.get("t") != "vocab/ggml-vocab-gemma-4.gguf" or "c" not in r or r["c"] in known:
            continue
        assert render(v, convs[r["c"]], server=True) == r["prompt"], r["c"]
        n += 1
    assert n >= 10


def test_tokenize_and_chat_template_argument(data):
    v = ggufkit.Vocab(data / "vocab" / "ggml-vocab-qwen2.gguf")
    msgs = [{"role": "user", "content": "Hi"}]
    prompt = v.apply_chat_template(msgs, add_generation_prompt=True)
    assert isinstance(prompt, str)
    ids = v.apply_chat_template(msgs, add_generation_prompt=True, tokenize=True)
    assert ids == v.encode(prompt, add_special=False)  # transformers: add_special_tokens=False
    assert v.apply_chat_template(msgs, chat_template="llama3") == \
        "<|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
    assert v.apply_chat_template(msgs, chat_template="{{ messages[0].content }}-{{ x }}", x=7) == "Hi-7"
    with pytest.raises(ggufkit.GGUFError, match="boom"):
        v.apply_chat_template(msgs, chat_template="{{ raise_exception('boom') }}")
    with pytest.raises(ggufkit.GGUFError):
        v.apply_chat_template(msgs, chat_template="{% for %}")


def test_caps_equal_llama_cpps(data):
    for vocab in ["gemma-4", "qwen2", "phi-3", "rwkv-world"]:
        name = "vocab/ggml-vocab-%s.gguf" % vocab
        caps = ggufkit.Vocab(data / "vocab" / ("ggml-vocab-%s.gguf" % vocab)).chat_template_caps
        want = next(r for r in recorded("server.jsonl.gz") if r.get("caps") == name)
        for k, val in want.items():
            if k.startswith("supports_"):
                assert caps[k] == val, (vocab, k)
        # llama-server's enable_thinking default (common_chat_templates_support_enable_thinking)
        assert caps["supports_enable_thinking"] == want["thinking"], vocab
