"""ggufkit.compat.GGUFReader gives the same fields (names, types, parts, data indices,
contents) and tensors as gguf-py's own GGUFReader, on every file of ../shared/data that
gguf-py can read. gguf-py is the reference: it comes from the llama.cpp source tree
(GGUF_REF_DIR/llsrc/gguf-py, GGUF_REF_DIR defaulting to ~/.cache/gguf-ref); the tests skip
with a message where it is absent."""
import importlib
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import DATA
from ggufkit import compat

REF = Path(os.environ.get("GGUF_REF_DIR", Path.home() / ".cache" / "gguf-ref")) / "llsrc" / "gguf-py"


@pytest.fixture(scope="module")
def gguf_py():
    if not (REF / "gguf" / "gguf_reader.py").is_file():
        pytest.skip(f"gguf-py (the reference) not found at {REF}: set GGUF_REF_DIR")
    sys.path.insert(0, str(REF))
    try:
        return importlib.import_module("gguf.gguf_reader")
    finally:
        sys.path.remove(str(REF))


def all_files():
    """Every .gguf of the data folder with GGUF_COMPAT_FILES=all; by default the files up to
    1.2 MB and the quant fixture (every tensor type): gguf-py itself takes minutes over the
    big vocabularies."""
    if not DATA.is_dir():
        return []
    files = sorted(DATA.rglob("*.gguf"))
    if os.environ.get("GGUF_COMPAT_FILES") != "all":
        files = [p for p in files if p.stat().st_size <= 1_200_000 or p.name == "quant-fixture.gguf"]
    return [str(p.relative_to(DATA)) for p in files]


PARTS_LIMIT = 20000  # compare every part of fields up to this many parts (all but the big vocabularies)


@pytest.mark.parametrize("name", all_files())
def test_same_fields_and_tensors_as_gguf_py(data, gguf_py, name):
    path = data / name
    try:
        want = gguf_py.GGUFReader(path)
    except Exception as e:  # noqa: BLE001 - the files gguf-py cannot read are not compared
        pytest.skip(f"gguf-py cannot read {name}: {type(e).__name__}: {e}")
    got = compat.GGUFReader(path)
    assert (got.byte_order, got.alignment, got.data_offset) == (want.byte_order, want.alignment, want.data_offset)
    assert int(got.endianess) == int(want.endianess)
    assert list(got.fields) == list(want.fields)
    for key, w in want.fields.items():
        g = got.get_field(key)
        assert (g.name, g.offset) == (w.name, w.offset), key
        assert [int(t) for t in g.types] == [int(t) for t in w.types], key
        assert [t.name for t in g.types] == [t.name for t in w.types], key
        assert g.contents() == w.contents(), key
        if w.types and w.types[0] == compat.GGUFValueType.ARRAY and len(w.data) > 2:
            assert g.contents(1) == w.contents(1), key
            assert g.contents(slice(1, 3)) == w.contents(slice(1, 3)), key
        if len(w.parts) <= PARTS_LIMIT:
            assert g.data == w.data, key
            assert len(g.parts) == len(w.parts), key
            for a, b in zip(g.parts, w.parts):
                assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), key
    assert len(got.tensors) == len(want.tensors)
    for g, w in zip(got.tensors, want.tensors):
        assert (g.name, int(g.tensor_type), g.tensor_type.name) == (w.name, int(w.tensor_type), w.tensor_type.name)
        assert g.shape.tolist() == w.shape.tolist() and g.shape.dtype == w.shape.dtype
        assert (g.n_elements, g.n_bytes, g.data_offset) == (w.n_elements, w.n_bytes, w.data_offset)
        assert g.data.shape == w.data.shape and g.data.dtype == w.data.dtype
        assert np.array_equal(g.data, w.data) or g.data.tobytes() == w.data.tobytes()
        assert (g.field.name, g.field.offset, g.field.data) == (w.field.name, w.field.offset, w.field.data)
        assert all(a.tobytes() == b.tobytes() for a, b in zip(g.field.parts, w.field.parts))
    if want.tensors:
        assert got.get_tensor(0).name == want.get_tensor(0).name


def test_compat_refuses_invalid_files(data):
    with pytest.raises(compat.GGUFError):
        compat.GGUFReader(data / "compat/invalid-value-type-13.gguf")
