"""edit() over the library's gguf::edit: set keeps the key's type and position, new keys
take the value's type, remove drops keys, tensors are unchanged; to `out`, in place
(tensor bytes untouched) or streamed over the file."""
import shutil

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
