"""Model: hparams equal `gguf info --json`; embed equals ggml's token embeddings recorded
in ../shared/data/models/embeddings (llama.cpp's get_rows), bit for bit."""
import json

import numpy as np
import pytest

import ggufkit
from conftest import DATA, read_jsonl, run

MODELS = sorted(p.stem for p in (DATA / "models/embeddings").glob("*.jsonl")) if DATA.is_dir() else []


@pytest.mark.parametrize("name", MODELS)
def test_embed_and_hparams(data, cli, name):
    path = data / "models" / (name + ".gguf")
    m = ggufkit.Model(path)
    info = json.loads(run(cli, "info", str(path), "--json"))
    assert m.hparams == info["hparams"]
    for case in read_jsonl(data / "models/embeddings" / (name + ".jsonl")):
        want = np.asarray(case["embeddings"], dtype=np.float32)
        by_text = m.embed(case["text"])
        by_ids = m.embed(case["ids"])
        assert by_text.dtype == np.float32 and by_text.shape == want.shape
        assert by_text.tobytes() == want.tobytes() == by_ids.tobytes()


def test_embed_errors(data):
    m = ggufkit.Model(data / "models/stories260K.gguf")
    with pytest.raises(ggufkit.GGUFError) as e:
        m.embed([10**6])
    assert e.value.code == "out_of_range"


def test_first_embeds_from_many_threads(data):
    """The first embed of a text loads the vocabulary with the GIL released: threads that
    make it together load it once and all get the single-thread result."""
    import threading
    path = data / "models/stories260K.gguf"
    want = ggufkit.Model(path).embed("Hello world").tobytes()
    for _ in range(10):
        m = ggufkit.Model(path)
        start = threading.Barrier(8)
        got = [None] * 8

        def first(i):
            start.wait()
            got[i] = m.embed("Hello world").tobytes()

        threads = [threading.Thread(target=first, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert got == [want] * 8
