"""Tensor.dequantize() equals `gguf dequantize` (and ggml's own dequantization stored in
the fixture) for the 27 types of quant/quant-fixture.gguf."""
import numpy as np
import pytest

import ggufkit
from conftest import DATA, run


def fixture_types():
    if not (DATA / "quant/quant-fixture.gguf").is_file():
        return []
    f = ggufkit.open(DATA / "quant/quant-fixture.gguf")
    return [t.name[2:] for t in f.tensors if t.name.startswith("q.")]


def test_fixture_has_27_types(data):
    assert len(fixture_types()) == 27


@pytest.mark.parametrize("qtype", fixture_types())
def test_dequantize_equals_cli_and_ggml(data, cli, qtype):
    path = data / "quant/quant-fixture.gguf"
    f = ggufkit.open(path)
    t = f.tensor("q." + qtype)
    got = t.dequantize()
    assert got.dtype == np.float32 and got.shape == t.shape
    want = np.frombuffer(run(cli, "dequantize", str(path), "q." + qtype), dtype="<f4").reshape(t.shape)
    assert got.tobytes() == want.tobytes()  # bit for bit
    ggml = f.tensor("deq." + qtype).dequantize()
    assert got.tobytes() == ggml.tobytes()
