"""edit() over the library's gguf::edit: set keeps the key's type and position, new keys
take the value's type, remove drops keys, tensors are unchanged; to `out`, in place
(tensor bytes untouched) or streamed over the file."""
import json
import shutil
import subprocess

import numpy as np
import pytest

import ggufkit


def test_set_remove_out(data, tmp_path):
    src = data / "models/stories260K.gguf"
    out = tmp_path / "edited.gguf"
    before = ggufkit.open(src)
    rep = ggufkit.edit(src, set={"general.name": "edited", "llama.context_length": 4096, "my.flag": True,
                           "my.u16": np.uint16(7), "my.list": [1, 2, 3], "my.names": ["a", "b"]},
                 remove=["tokenizer.ggml.scores"], out=out)
    assert rep["target"] == str(out) and not rep["in_place"]
    f = ggufkit.open(out)
    keys = list(f.metadata)
    assert "tokenizer.ggml.scores" not in keys
    # kept keys keep their order, new keys are appended in the order given
    assert keys == [k for k in before.metadata if k != "tokenizer.ggml.scores"] + ["my.flag", "my.u16", "my.list",
                                                                                    "my.names"]
    assert f.metadata["general.name"] == "edited"
    assert f.metadata["llama.context_length"] == 4096
    assert f.metadata.type("llama.context_length") == before.metadata.type("llama.context_length")
    assert f.metadata["my.flag"] is True and f.metadata.type("my.flag") == "bool"
    assert f.metadata["my.u16"] == 7 and f.metadata.type("my.u16") == "uint16"
    assert f.metadata["my.list"].tolist() == [1, 2, 3] and f.metadata["my.list"].dtype == np.int32
    assert f.metadata["my.names"] == ["a", "b"]
    for a, b in zip(before.tensors, f.tensors):
        assert (a.name, a.type, a.ne) == (b.name, b.type, b.ne)
        assert a.data.tobytes() == b.data.tobytes()
    assert ggufkit.open(src).metadata["general.name"] == before.metadata["general.name"]  # source untouched


def test_in_place_and_errors(data, tmp_path):
    path = tmp_path / "m.gguf"
    shutil.copyfile(data / "models/stories260K.gguf", path)
    before = ggufkit.open(path)
    offsets = [(t.name, t.offset) for t in before.tensors]
    data_offset = before.data_offset
    del before
    rep = ggufkit.edit(path, set={"general.name": "in place"})
    assert rep["in_place"] and rep["new_size"] == rep["old_size"]
    f = ggufkit.open(path)
    assert f.metadata["general.name"] == "in place"
    assert f.data_offset == data_offset and [(t.name, t.offset) for t in f.tensors] == offsets
    rep = ggufkit.edit(path, set={"general.name": "streamed " * 50}, in_place=False)
    assert not rep["in_place"]
    assert ggufkit.open(path).metadata["general.name"] == "streamed " * 50
    with pytest.raises(ggufkit.GGUFError) as e:
        ggufkit.edit(path, remove=["no.such.key"])
    assert e.value.code == "key_not_found" and e.value.key == "no.such.key"
    with pytest.raises(ggufkit.GGUFError) as e:
        ggufkit.edit(path, set={"llama.context_length": -1})  # uint32 key
    assert e.value.code in ("out_of_range", "invalid_argument")
    assert ggufkit.open(path).metadata["general.name"] == "streamed " * 50  # nothing written


# (value, the type both front ends give a new key): one rule, gguf::untyped_leaves
INFERRED = [
    ("text", "string"), (True, "bool"), (7, "int32"), (-2**31, "int32"), (2**31, "int64"), (-2**40, "int64"),
    (2**63, "uint64"), (2**64 - 1, "uint64"), (0.5, "float32"),
    ([1, 2, 3], "array:int32"), ([1, 2**40], "array:int64"), ([2**63, 1], "array:uint64"), ([1, 2.5], "array:float32"),
    ([True, False], "array:bool"), (["a", "b"], "array:string"),
]
REFUSED = [[], [1, "a"], [True, 1], ["a", False], [-1, 2**63]]
# beyond 64 bits: Python refuses the int (JSON has no such integers: nlohmann reads them as floats)
REFUSED_PY = [2**64, -2**63 - 1, [2**64]]


def test_inferred_types_match_the_command_line(data, cli, tmp_path):
    src = data / "models/stories260K.gguf"
    via_py, via_cli = tmp_path / "py.gguf", tmp_path / "cli.gguf"
    ggufkit.edit(src, set={f"my.k{i}": v for i, (v, _) in enumerate(INFERRED)}, out=via_py)
    args = [str(cli), "edit", str(src), "-o", str(via_cli), "-q"]
    for i, (v, _) in enumerate(INFERRED):
        args += ["--set-json", f"my.k{i}={json.dumps(v)}"]
    r = subprocess.run(args, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    def type_of(f, key):
        t = f.metadata.type(key)
        if t != "array":
            return t
        m = f.metadata[key]
        return "array:" + ("string" if isinstance(m, list) else "bool" if m.dtype == np.bool_ else str(m.dtype))

    made_by_py, made_by_cli = ggufkit.open(via_py), ggufkit.open(via_cli)
    for i, (v, want) in enumerate(INFERRED):
        assert type_of(made_by_py, f"my.k{i}") == want, v
        assert type_of(made_by_cli, f"my.k{i}") == want, v
        assert np.array_equal(np.asarray(made_by_py.metadata[f"my.k{i}"]), np.asarray(v)), v
    for v in REFUSED:
        with pytest.raises(ggufkit.GGUFError):
            ggufkit.edit(src, set={"my.bad": v}, out=tmp_path / "bad.gguf")
        r = subprocess.run([str(cli), "edit", str(src), "-o", str(tmp_path / "bad.gguf"), "--force", "--set-json",
                            f"my.bad={json.dumps(v)}"], capture_output=True, text=True)
        assert r.returncode != 0, (v, r.stdout)
    for v in REFUSED_PY:
        with pytest.raises(ggufkit.GGUFError):
            ggufkit.edit(src, set={"my.bad": v}, out=tmp_path / "bad.gguf")


def test_numpy_scalars_keep_their_value_and_dtype(data, tmp_path):
    # the scalar's item() was held by a borrowed handle and freed before use: np.str_ was
    # stored as 'generic', np.uint32(100000) crashed the interpreter (small ints only survived)
    out = tmp_path / "s.gguf"
    ggufkit.edit(data / "models/stories260K.gguf", out=out,
                 set={"my.s": np.str_("hello"), "my.f": np.float32(2.5), "my.d": np.float64(1.5),
                      "my.u": np.uint32(100000), "my.i": np.int64(-(2**40))})
    md = ggufkit.open(out).metadata
    assert md["my.s"] == "hello" and md.type("my.s") == "string"
    assert md["my.f"] == 2.5 and md.type("my.f") == "float32"
    assert md["my.d"] == 1.5 and md.type("my.d") == "float64"
    assert md["my.u"] == 100000 and md.type("my.u") == "uint32"
    assert md["my.i"] == -(2**40) and md.type("my.i") == "int64"


@pytest.mark.parametrize("elements, why", [
    ([None], "takes numbers, not NoneType"),          # crashed (numpy's cast returned no array)
    (["1"], "takes numbers"),
    ([3.7], "not fractions"),                          # was cut to 3
    ([float("nan")], "not fractions"),
    ([2**40], "outside int32"),                        # wrapped
    ([2**70], "outside int32"),
    ([-(2**31) - 1], "outside int32"),
])
def test_array_elements_are_checked_as_single_values(data, tmp_path, elements, why):
    src = tmp_path / "v.gguf"
    shutil.copy(data / "vocab/ggml-vocab-llama-spm.gguf", src)
    src.chmod(0o644)
    before = src.read_bytes()
    n = len(ggufkit.open(src).metadata["tokenizer.ggml.token_type"])
    with pytest.raises(ggufkit.GGUFError, match=why) as e:
        ggufkit.edit(src, set={"tokenizer.ggml.token_type": elements + [1] * (n - 1)})
    assert e.value.key == "tokenizer.ggml.token_type"
    assert src.read_bytes() == before


def test_float_array_elements_stay_finite(data, tmp_path):
    src = tmp_path / "v.gguf"
    shutil.copy(data / "vocab/ggml-vocab-llama-spm.gguf", src)
    src.chmod(0o644)
    n = len(ggufkit.open(src).metadata["tokenizer.ggml.scores"])
    with pytest.raises(ggufkit.GGUFError, match="outside float32"):
        ggufkit.edit(src, set={"tokenizer.ggml.scores": [1e300] + [0.0] * (n - 1)})  # was inf
    # in range (and inf given as inf, integers for floats) is taken
    ggufkit.edit(src, set={"tokenizer.ggml.scores": [float("-inf"), 2] + [0.5] * (n - 2)})
    s = ggufkit.open(src).metadata["tokenizer.ggml.scores"]
    assert s[0] == float("-inf") and s[1] == 2.0 and s[2] == 0.5
    # a numpy array keeps working (the dtype converted when the values fit)
    ggufkit.edit(src, set={"tokenizer.ggml.token_type": np.ones(n, dtype=np.int64)})
    assert ggufkit.open(src).metadata["tokenizer.ggml.token_type"].tolist() == [1] * n
