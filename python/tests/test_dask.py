"""examples/dask-tokenize: a sharded corpus tokenized on a Dask LocalCluster (worker
processes, each opening the vocabulary by path) equals the serial run, shard for shard
and line for line."""
import importlib.util
import logging
import sys

import pytest

from conftest import ROOT

distributed = pytest.importorskip("distributed", reason="python3-distributed is a dependency: scripts/bootstrap.sh")


def load_example():
    spec = importlib.util.spec_from_file_location("tokenize_corpus", ROOT / "examples/dask-tokenize/tokenize_corpus.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["tokenize_corpus"] = mod  # pickled by reference; the workers get the file (upload_file)
    spec.loader.exec_module(mod)
    return mod


def test_local_cluster_equals_serial(data, tmp_path):
    ex = load_example()
    lines = [l for l in (data / "corpus/bench.txt").read_text(encoding="utf-8").splitlines() if l.strip()][:6000]
    shards = []
    for i in range(6):
        p = tmp_path / f"shard{i}.txt"
        p.write_text("\n".join(lines[i::6]) + "\n", encoding="utf-8")
        shards.append(str(p))
    vocab = str(data / "vocab/ggml-vocab-llama-bpe.gguf")
    serial = ex.tokenize_serial(vocab, shards)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=logging.ERROR) as cluster, distributed.Client(cluster) as client:
        got = ex.tokenize_corpus(client, vocab, shards)
        pids = client.run(lambda: __import__("os").getpid())
    assert len(pids) == 2
    assert [len(s) for s in got] == [len(s) for s in serial] and sum(len(s) for s in got) == 6000
    assert got == serial
