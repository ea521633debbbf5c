"""Defects a new user of the Python package met (a defect hunt of 2026-11-28; items 4, 7, 9,
10, 11, 12, 13 of its report, kept as numbered there): each test failed before its fix (a crash, pybind11's internal RuntimeError, an empty help(), a
TypeError where a Mapping gives KeyError, a message without the key or URL)."""
import ast
import inspect
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import ggufkit
from ggufkit import _core

MODEL = "models/stories260K.gguf"
CLASSES = sorted((v for v in vars(_core).values() if isinstance(v, type)), key=lambda c: c.__name__)


def copy(data, tmp_path):
    dst = tmp_path / "m.gguf"
    shutil.copyfile(data / MODEL, dst)
    dst.chmod(0o644)
    return dst


# --- item 4: Cls.__new__(Cls) without __init__ ---------------------------------------

def test_item4_every_bound_class_is_checked():
    assert {c.__name__ for c in CLASSES} == {"File", "Tensor", "Vocab", "Model"}, "a new class: add it below"


def test_item4_an_object_without_init_raises_type_error_not_a_crash(data):
    # in a child process: before the fix each of these read uninitialized memory (SIGSEGV
    # or garbage such as n_tokens 1431655766)
    script = textwrap.dedent(f"""
        import pickle, ggufkit
        path = {str(data / MODEL)!r}
        uses = {{
            "File": ["path", "version", "size", "metadata", "tensors", "buffer", lambda o: o.tensor("x"),
                     lambda o: o._keys(), lambda o: ggufkit.Vocab(o), lambda o: ggufkit.Model(o), repr],
            "Tensor": ["name", "type", "ne", "shape", "nbytes", "data", lambda o: o.dequantize(),
                       lambda o: o.quantize("q8_0"), repr],
            "Vocab": ["n_tokens", "path", "bos", "type", "chat_template_caps", lambda o: o.encode("x"),
                      lambda o: o.encode_batch(["x"]), lambda o: o.decode([1]), lambda o: o.token_to_piece(1),
                      lambda o: o.apply_chat_template([]), lambda o: pickle.dumps(o), repr],
            "Model": ["architecture", "hparams", lambda o: o.embed([1]), lambda o: o.embed("x"),
                      lambda o: pickle.dumps(o), repr],
        }}
        for name, calls in uses.items():
            cls = getattr(ggufkit, name)
            for use in calls:
                obj = cls.__new__(cls)
                try:
                    getattr(obj, use) if isinstance(use, str) else use(obj)
                except TypeError as e:
                    assert "not initialized" in str(e) and name in str(e), (name, use, str(e))
                else:
                    raise AssertionError(f"{{name}}: {{use}} did not raise")
            # __init__ after __new__ is the normal path and still works
            obj = cls.__new__(cls)
            if name != "Tensor":
                obj.__init__(path)
        print("ok")
    """)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", (r.returncode, r.stdout, r.stderr)


# --- item 7: bad token ids ------------------------------------------------------------

@pytest.mark.parametrize("bad, exc, shown", [
    ([2 ** 70], ggufkit.GGUFError, str(2 ** 70)),
    ([-(2 ** 70)], ggufkit.GGUFError, str(-(2 ** 70))),
    ([2 ** 31], ggufkit.GGUFError, str(2 ** 31)),
    ([5, 1.0], TypeError, "1.0"),
    ([None], TypeError, "None"),
    ("12", TypeError, "str"),
])
def test_item7_bad_ids_give_the_documented_error_naming_the_id(data, bad, exc, shown):
    v = ggufkit.Vocab(data / MODEL)
    m = ggufkit.Model(data / MODEL)
    calls = [lambda: v.decode(bad)] + ([] if isinstance(bad, str) else [lambda: m.embed(bad)])  # embed(str): a text
    for call in calls:
        with pytest.raises(exc) as e:
            call()
        assert shown in str(e.value)
        if exc is ggufkit.GGUFError:
            assert e.value.code == "out_of_range"


def test_item7_token_to_piece_of_a_huge_or_non_int_id(data):
    v = ggufkit.Vocab(data / MODEL)
    with pytest.raises(ggufkit.GGUFError) as e:
        v.token_to_piece(2 ** 70)
    assert e.value.code == "out_of_range" and str(2 ** 70) in str(e.value)
    with pytest.raises(TypeError, match="1.5"):
        v.token_to_piece(1.5)
    # what operator.index takes still works: numpy integers, arrays of them
    assert v.token_to_piece(np.int64(300)) == v.token_to_piece(300)
    ids = v.encode("Hello world")
    assert v.decode(np.array(ids, dtype=np.int64)) == v.decode(ids)


# --- item 9: help() and signatures ----------------------------------------------------

def stub_docs():
    tree = ast.parse((Path(_core.__file__).parent / "_core.pyi").read_text(encoding="utf-8"))
    docs = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            docs[node.name] = ast.get_docstring(node)
            for m in node.body:
                if isinstance(m, ast.FunctionDef):
                    docs[f"{node.name}.{m.name}"] = ast.get_docstring(m)
        elif isinstance(node, ast.FunctionDef):
            docs[node.name] = ast.get_docstring(node)
    return docs


def public_members():
    for cls in CLASSES:
        yield cls.__name__, cls
        for name, member in vars(cls).items():
            if not name.startswith("_") or name == "__init__":
                yield f"{cls.__name__}.{name}", member
    for name, member in vars(_core).items():
        if callable(member) and not isinstance(member, type) and not name.startswith("_"):
            yield name, member


def test_item9_help_shows_the_stub_docstrings():
    docs = stub_docs()
    checked = 0
    for qualname, obj in public_members():
        if qualname in ("File.metadata", "Tensor.__init__"):  # set by the package; pybind11's "No constructor"
            continue
        want = docs.get(qualname)
        assert want, f"{qualname}: no docstring in _core.pyi"
        got = obj.__doc__ or ""
        assert inspect.cleandoc(want) in got, f"{qualname}: help() does not show the stub's text"
        checked += 1
    assert checked > 40


def test_item9_signatures_name_python_types():
    for qualname, obj in public_members():
        doc = getattr(obj, "__doc__", "") or ""
        first = doc.splitlines()[0] if doc else ""
        for leak in ("::", "handle", "py_", "std"):
            assert leak not in first, f"{qualname}: {first}"
    assert "-> ggufkit._core.Tensor" in _core.File.tensor.__doc__
    assert "self: ggufkit._core.File" in _core.File.tensor.__doc__


# --- item 10: Metadata is a Mapping for any key ---------------------------------------

@pytest.mark.parametrize("key", [1, None, b"general.name", 1.5, ("general.name",)])
def test_item10_metadata_keys_of_another_type_are_absent(data, key):
    md = ggufkit.open(data / MODEL).metadata
    assert md.get(key, "d") == "d"
    assert key not in md
    with pytest.raises(KeyError):
        md[key]
    with pytest.raises(KeyError):
        md.type(key)
    assert md.get("general.name") == md["general.name"]  # str keys unchanged


# --- item 11: edit() errors name the key and are GGUFError ----------------------------

@pytest.mark.parametrize("kwargs, code, key", [
    ({"set": {"llama.block_count": -1}}, None, "llama.block_count"),
    ({"set": {"llama.attention.layer_norm_rms_epsilon": 1e40}}, None, "llama.attention.layer_norm_rms_epsilon"),
    ({"set": {"my.k": None}}, "invalid_argument", "my.k"),
    ({"set": {"my.k": object()}}, "invalid_argument", "my.k"),
    ({"set": {"my.s": "a\udc80"}}, "invalid_argument", "my.s"),
    ({"set": {"my.a": ["x", "a\udc80"]}}, "invalid_argument", "my.a"),
    ({"set": {5: 1}}, "invalid_key", "5"),
    ({"set": {"a\udc80": 1}}, "invalid_key", "'a\\udc80'"),
    ({"remove": [5]}, "invalid_key", "5"),
])
def test_item11_edit_errors_name_the_key(data, tmp_path, kwargs, code, key):
    p = copy(data, tmp_path)
    before = p.read_bytes()
    with pytest.raises(ggufkit.GGUFError) as e:
        ggufkit.edit(p, **kwargs)
    assert e.value.key == key, (e.value.key, str(e.value))
    assert key in str(e.value)
    if code:
        assert e.value.code == code
    else:
        assert e.value.code in ("out_of_range", "invalid_argument")
    assert p.read_bytes() == before


def test_item11_edit_takes_any_mapping_and_refuses_a_non_iterable_remove(data, tmp_path):
    p = copy(data, tmp_path)
    with pytest.raises(TypeError, match="remove takes a key"):
        ggufkit.edit(p, remove=5)
    with pytest.raises(TypeError, match="set takes a mapping"):
        ggufkit.edit(p, set=[("general.name", "x")])
    # a Mapping that is not a dict (here a File's Metadata) works as a dict does
    src = ggufkit.open(data / MODEL).metadata
    ggufkit.edit(p, set=type("M", (), {"items": lambda self: [("general.name", "y")]})())
    assert ggufkit.open(p).metadata["general.name"] == "y"
    del src


# --- item 12: ggufkit.open(url) errors name the URL -----------------------------------

def test_item12_open_url_error_names_the_url():
    url = "http://127.0.0.1:1/model.gguf"  # port 1: connection refused
    with pytest.raises(ggufkit.GGUFError) as e:
        ggufkit.open(url, retries=0)
    assert e.value.code == "io_error"
    assert str(e.value).startswith(url + ": "), str(e.value)
    with pytest.raises(ggufkit.GGUFError) as f:  # as File(url) says it
        ggufkit.File(url)
    assert url in str(f.value)


# --- item 13: encode_batch of a str ---------------------------------------------------

def test_item13_encode_batch_refuses_a_single_text(data):
    v = ggufkit.Vocab(data / MODEL)
    for text in ("Hello", b"Hello"):
        with pytest.raises(TypeError, match="not a single"):
            v.encode_batch(text)
    with pytest.raises(ValueError, match="threads must be >= 0"):
        v.encode_batch(["Hello"], threads=-1)
    assert v.encode_batch(["Hello", "world"]) == [v.encode("Hello"), v.encode("world")]
    assert v.encode_batch(iter(["Hello"])) == [v.encode("Hello")]  # any iterable of texts
