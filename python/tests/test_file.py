"""ggufkit.open / File / Tensor against `gguf dump --json --full-arrays` on real files, the
zero-copy views, and GGUFError on invalid files."""
import json
import math
import sys

import numpy as np
import pytest

import ggufkit
from conftest import run

FILES = ["models/stories260K.gguf", "models/stories260K-Q8_0.gguf", "models/synth-llama-256-Q4_K_M.gguf",
         "models/superpoint.gguf", "compat/stories260K-be.gguf", "compat/vocab-llama-spm-be.gguf",
         "compat/stories260K-v1.gguf", "vocab/ggml-vocab-llama-bpe.gguf", "quant/quant-fixture.gguf"]


def same(a, b) -> bool:
    if isinstance(b, float) or isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return a == b


@pytest.mark.parametrize("name", FILES)
def test_metadata_and_tensors_equal_gguf_dump(data, cli, name):
    path = data / name
    dump = json.loads(run(cli, "dump", str(path), "--json", "--full-arrays"))
    f = ggufkit.open(path)
    assert f.version == dump["version"]
    assert f.byte_order == dump["byte_order"]
    assert f.alignment == dump["alignment"]
    assert f.data_offset == dump["data_offset"]
    assert list(f.metadata) == [kv["key"] for kv in dump["kv"]]
    for kv in dump["kv"]:
        got = f.metadata[kv["key"]]
        assert f.metadata.type(kv["key"]) == kv["type"]
        if kv["type"] != "array":
            assert same(got, kv["value"]), kv["key"]
            continue
        want = kv["values"]
        if isinstance(got, np.ndarray):
            assert got.dtype.byteorder in ("=", "|")  # host order, whatever the file's
            got = got.tolist()
        assert len(got) == kv["length"]
        if kv["element_type"] == "float32":
            assert np.array_equal(np.asarray(got, np.float32), np.asarray(want, np.float32), equal_nan=True)
        else:
            assert got == want, kv["key"]
    assert [t.name for t in f.tensors] == [t["name"] for t in dump["tensors"]]
    for t, w in zip(f.tensors, dump["tensors"]):
        assert (t.type, list(t.ne), t.offset, t.nbytes) == (w["type"], w["ne"], w["offset"], w["nbytes"])
        assert t.shape == tuple(reversed(t.ne))
        assert t.data.dtype == np.uint8 and t.data.size == t.nbytes


def test_data_is_a_view_of_the_mapping(data):
    f = ggufkit.open(data / "models/stories260K-Q8_0.gguf")
    buf = f.buffer
    base = buf.__array_interface__["data"][0]
    for t in f.tensors:
        d = t.data
        assert not d.flags.writeable and not d.flags.owndata
        assert d.base is f  # the File keeps the mapping alive
        assert d.__array_interface__["data"][0] == base + f.data_offset + t.offset
        assert np.shares_memory(d, buf)
    tokens = f.metadata["tokenizer.ggml.scores"]  # numeric array: a view too (little-endian file)
    assert tokens.base is f and np.shares_memory(tokens, buf)


def test_big_endian_arrays_are_native_copies(data):
    be = ggufkit.open(data / "compat/vocab-llama-spm-be.gguf")
    le = ggufkit.open(data / "vocab/ggml-vocab-llama-spm.gguf")
    assert be.byte_order == "big"
    a, b = be.metadata["tokenizer.ggml.scores"], le.metadata["tokenizer.ggml.scores"]
    assert a.dtype == np.float32 and a.dtype.isnative
    assert np.array_equal(a, b)
    assert be.metadata["tokenizer.ggml.tokens"] == le.metadata["tokenizer.ggml.tokens"]


def test_tensor_lookup_and_errors(data):
    f = ggufkit.open(data / "models/stories260K.gguf")
    t = f.tensor("token_embd.weight")
    assert t.name == "token_embd.weight" and t.type == "f32"
    with pytest.raises(ggufkit.GGUFError) as e:
        f.tensor("no.such.tensor")
    assert e.value.code == "tensor_not_found" and e.value.tensor == "no.such.tensor"
    with pytest.raises(KeyError):
        f.metadata["no.such.key"]


@pytest.mark.parametrize("name,code", [("compat/invalid-draft-format.gguf", None),
                                       ("compat/invalid-reversed-magic-v1.gguf", "bad_magic"),
                                       ("compat/invalid-value-type-13.gguf", "invalid_value_type")])
def test_invalid_files_raise_gguf_error(data, cli, name, code):
    import subprocess
    r = subprocess.run([str(cli), "info", str(data / name)], capture_output=True, text=True)
    assert r.returncode == 1
    with pytest.raises(ggufkit.GGUFError) as e:
        ggufkit.open(data / name)
    assert r.stderr.strip() == f"gguf: {e.value}"  # the CLI's message, which names the file too
    if code:
        assert e.value.code == code
    assert e.value.offset is None or e.value.offset >= 0
    with pytest.raises(ggufkit.GGUFError) as e:
        ggufkit.open(data / "no-such-file.gguf")
    assert e.value.code == "io_error"



def test_paths_as_open_takes_them(data, tmp_path):
    # bytes paths were read as the text "b'...'" (no such file); a NUL cut the path short
    # and opened another file; open() raises ValueError for it
    p = data / "models/stories260K.gguf"
    assert len(ggufkit.open(bytes(p)).tensors) == len(ggufkit.open(p).tensors) == len(ggufkit.open(str(p)).tensors)
    assert ggufkit.Vocab(bytes(data / "vocab/ggml-vocab-llama-spm.gguf")).n_tokens == 32000
    for bad in (str(p) + "\0junk", bytes(p) + b"\0junk"):
        with pytest.raises(ValueError, match="embedded null byte"):
            ggufkit.open(bad)
    out = tmp_path / "o.gguf"
    ggufkit.edit(p, set={"general.name": "x"}, out=bytes(out))
    assert ggufkit.open(out).metadata["general.name"] == "x"


def test_metadata_equality(data):
    """Metadata compares as a Mapping does, its numeric arrays element by element (not
    numpy's "truth value of an array is ambiguous")."""
    path = str(data / "vocab" / "ggml-vocab-llama-spm.gguf")
    a, b = ggufkit.open(path).metadata, ggufkit.open(path).metadata
    assert a == a and a == b and not (a != b)
    as_dict = {k: a[k] for k in a}
    assert a == as_dict and as_dict == a
    scores = next(k for k in a if a.type(k) == "array" and hasattr(a[k], "shape"))
    changed = dict(as_dict)
    changed[scores] = a[scores].copy()
    changed[scores][0] += 1
    assert a != changed
    changed[scores] = list(a[scores])  # a list of the same numbers is equal
    assert a == changed
    del changed[scores]
    assert a != changed
    assert a != ggufkit.open(str(data / "models" / "stories260K.gguf")).metadata
    assert (a == 5) is False
    with pytest.raises(TypeError):
        hash(a)
