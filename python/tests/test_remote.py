"""ggufkit over HTTP against a real nginx serving ../shared/data on a free loopback port:
open(url), Tensor.data, Tensor.dequantize(), Vocab(url) and Model(url) give what the
local file gives; tensor bytes are fetched only when read; headers, HF_TOKEN, the
metadata cache and HTTP errors."""
import json
import os
import pickle
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

import ggufkit
from conftest import read_jsonl

MODEL = "models/synth-llama-256-Q4_K_M.gguf"  # 13 MB: more than the metadata's requests
FILES = [MODEL, "models/stories260K.gguf", "vocab/ggml-vocab-llama-bpe.gguf", "quant/quant-fixture.gguf",
         "compat/stories260K-be.gguf"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def nginx_config(d: Path, root: Path, port: int) -> str:
    temps = "".join(f"  {t}_temp_path {d}/tmp;\n" for t in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    return (f"daemon off;\nworker_processes 1;\npid {d}/nginx.pid;\nerror_log {d}/error.log;\n"
            "events { worker_connections 64; }\n"
            "http {\n"
            f"  access_log {d}/access.log;\n{temps}"
            "  default_type application/octet-stream;\n"
            "  server {\n"
            f"    listen 127.0.0.1:{port};\n"
            f"    location /data/ {{ alias {root}/; }}\n"
            "    location /auth/ {\n"
            f"      alias {root}/;\n"
            "      if ($http_authorization != \"Bearer test-token\") { return 401; }\n"
            "    }\n"
            f"    location /slow/ {{ alias {root}/; limit_rate 64; }}\n"
            # a mimic of the Hugging Face hub: the model API's answers under d/hub/api, files
            # resolved by a redirect to /data/models on another host name
            f"    location /hub/api/ {{ alias {d}/hub/api/; default_type application/json; }}\n"
            "    location ~ ^/hub/gated/([^/]+)/resolve/[^/]+/(.*)$ {\n"
            "      if ($http_authorization != \"Bearer test-token\") { return 401; }\n"
            f"      return 302 http://localhost:{port}/data/models/$2;\n"
            "    }\n"
            f"    location ~ ^/hub/([^/]+)/([^/]+)/resolve/[^/]+/(.*)$ {{ return 302 http://localhost:{port}/data/models/$3; }}\n"
            "  }\n}\n")


@pytest.fixture(scope="module")
def server(data):
    """Base URL of an nginx serving the test data (nginx: installed by scripts/bootstrap.sh)."""
    nginx = next((p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx") if os.access(p, os.X_OK)),
                 None)
    if nginx is None:
        pytest.fail("nginx is not installed (scripts/bootstrap.sh installs it)")
    d = Path(tempfile.mkdtemp(prefix="ggufkit-nginx-"))
    os.chmod(d, 0o755)  # the worker may run as another user
    (d / "tmp").mkdir()
    for repo in ("test/tiny-GGUF", "gated/tiny-GGUF"):
        api = d / "hub/api/models" / repo / "revision"
        api.mkdir(parents=True)
        files = ["stories260K-Q4_0.gguf", "stories260K-Q8_0.gguf", "stories260K-F16.gguf"]
        (api / "main").write_text(json.dumps({"sha": "1" * 40, "siblings": [{"rfilename": f} for f in files]}))
    for p in (d / "hub", d / "hub/api", d / "hub/api/models"):
        os.chmod(p, 0o755)
    proc = None
    try:
        for _ in range(5):  # another process may take the port between bind and listen
            port = free_port()
            (d / "nginx.conf").write_text(nginx_config(d, data.resolve(), port))
            proc = subprocess.Popen([nginx, "-p", f"{d}/", "-c", str(d / "nginx.conf"), "-e", str(d / "error.log")],
                                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for _ in range(100):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if proc.poll() is not None:
                        break
                    time.sleep(0.05)
            else:
                proc.kill()
                proc.wait()
                proc = None
                continue
            if proc.poll() is None:
                break
            proc = None
        if proc is None:
            log = (d / "error.log").read_text() if (d / "error.log").exists() else ""
            pytest.fail("nginx did not start: " + log)
        yield f"http://127.0.0.1:{port}"
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait()
        shutil.rmtree(d, ignore_errors=True)


def same_value(a, b) -> bool:
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and a != a:
        return isinstance(b, float) and b != b
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("name", FILES)
def test_url_reads_as_the_local_file(data, server, name):
    local = ggufkit.open(data / name)
    remote = ggufkit.open(f"{server}/data/{name}")
    assert remote.is_remote and not local.is_remote
    assert remote.path == f"{server}/data/{name}"
    for attr in ("version", "byte_order", "alignment", "data_offset", "size"):
        assert getattr(remote, attr) == getattr(local, attr), attr
    assert list(remote.metadata) == list(local.metadata)
    for key in local.metadata:
        assert remote.metadata.type(key) == local.metadata.type(key), key
        assert same_value(remote.metadata[key], local.metadata[key]), key
    assert [t.name for t in remote.tensors] == [t.name for t in local.tensors]
    for r, l in zip(remote.tensors, local.tensors):
        assert (r.type, r.ne, r.shape, r.offset, r.nbytes) == (l.type, l.ne, l.shape, l.offset, l.nbytes)
        d = r.data
        assert d.dtype == np.uint8 and not d.flags.writeable and d.base is remote
        assert d.tobytes() == l.data.tobytes(), r.name
        try:
            want = l.dequantize()
        except ggufkit.GGUFError as e:  # q8_1 / q8_K and the like: the same error remotely
            with pytest.raises(ggufkit.GGUFError) as got:
                r.dequantize()
            assert got.value.code == e.code
            continue
        assert r.dequantize().tobytes() == want.tobytes(), r.name  # bit for bit


def test_tensor_bytes_are_fetched_only_when_read(data, server):
    f = ggufkit.open(f"{server}/data/{MODEL}")
    opened = f.transfer
    assert opened["requests"] <= 2 and opened["bytes"] < f.size / 10  # the metadata, not all the tensors
    dict(f.metadata.items())
    assert f.transfer == opened  # metadata reads nothing more
    last = max(f.tensors, key=lambda t: t.offset)  # beyond the first request
    assert f.data_offset + last.offset >= opened["bytes"]
    d = last.data
    after = f.transfer
    assert after["requests"] == opened["requests"] + 1
    assert last.nbytes <= after["bytes"] - opened["bytes"] <= last.nbytes + (64 << 10)
    assert d.tobytes() == ggufkit.open(data / MODEL).tensor(last.name).data.tobytes()
    last.data, last.dequantize()
    assert f.transfer == after  # fetched once
    assert f.buffer.tobytes() == (data / MODEL).read_bytes()  # buffer: the whole file


def test_vocab_over_url_encodes_as_local(data, server):
    name = "vocab/ggml-vocab-llama-bpe.gguf"
    local, remote = ggufkit.Vocab(data / name), ggufkit.Vocab(f"{server}/data/{name}")
    texts = [c["text"] for c in read_jsonl(data / "tokenizer-vectors/llama-bpe.jsonl")]
    assert remote.n_tokens == local.n_tokens and (remote.bos, remote.eos) == (local.bos, local.eos)
    assert [remote.encode(t) for t in texts] == [local.encode(t) for t in texts]
    assert remote.encode_batch(texts, threads=2) == local.encode_batch(texts, threads=2)
    assert remote.decode(local.encode(texts[0])) == local.decode(local.encode(texts[0]))
    again = pickle.loads(pickle.dumps(remote))  # reopened by URL
    assert again.path == remote.path and again.encode(texts[-1]) == local.encode(texts[-1])
    assert ggufkit.Vocab(ggufkit.open(f"{server}/data/{name}")).encode(texts[0]) == local.encode(texts[0])


def test_model_over_url_embeds_as_local(data, server):
    for name in ("models/stories260K-Q8_0.gguf", MODEL):
        local, remote = ggufkit.Model(data / name), ggufkit.Model(f"{server}/data/{name}")
        assert remote.hparams == local.hparams
        for text in ("Hello world", "Once upon a time, there was a little girl"):
            assert remote.embed(text).tobytes() == local.embed(text).tobytes()
        assert remote.embed([1, 2, 3]).tobytes() == local.embed([1, 2, 3]).tobytes()


def test_headers_and_hf_token(data, server, monkeypatch):
    url = f"{server}/auth/vocab/ggml-vocab-llama-spm.gguf"
    monkeypatch.delenv("HF_TOKEN", raising=False)
    with pytest.raises(ggufkit.GGUFError) as e:
        ggufkit.open(url)
    assert e.value.code == "io_error" and "401" in str(e.value)
    want = ggufkit.open(data / "vocab/ggml-vocab-llama-spm.gguf").metadata["tokenizer.ggml.tokens"]
    for headers in (["Authorization: Bearer test-token"], {"Authorization": "Bearer test-token"}):
        assert ggufkit.open(url, headers=headers).metadata["tokenizer.ggml.tokens"] == want
    # HF_TOKEN goes to the host of HF_ENDPOINT when no Authorization is given
    monkeypatch.setenv("HF_ENDPOINT", server)
    monkeypatch.setenv("HF_TOKEN", "test-token")
    assert ggufkit.open(url).metadata["tokenizer.ggml.tokens"] == want
    assert ggufkit.Vocab(url).n_tokens == len(want)
    with pytest.raises(ggufkit.GGUFError):
        ggufkit.open(url, headers={"Authorization": "Bearer wrong"})  # a given header wins


def test_cache_dir_makes_a_second_open_one_conditional_request(data, server, tmp_path):
    url = f"{server}/data/{MODEL}"
    first = ggufkit.open(url, cache_dir=tmp_path)
    assert first.transfer["bytes"] > 0
    second = ggufkit.open(url, cache_dir=tmp_path)
    assert second.transfer == {"requests": 1, "bytes": 0}  # 304 Not Modified
    assert list(second.metadata) == list(first.metadata)
    t = second.tensors[-1]
    assert t.data.tobytes() == ggufkit.open(data / MODEL).tensor(t.name).data.tobytes()


def test_first_request_size(server):
    f = ggufkit.open(f"{server}/data/vocab/ggml-vocab-llama-bpe.gguf", first_request=1 << 20)
    assert f.transfer["requests"] > 1 and f.transfer["bytes"] == f.size  # a vocabulary is all metadata
    assert len(f.metadata["tokenizer.ggml.tokens"]) == 128256


def test_http_errors_raise_gguf_error(server):
    with pytest.raises(ggufkit.GGUFError) as e:
        ggufkit.open(f"{server}/data/no-such-file.gguf")
    assert e.value.code == "io_error" and "404" in str(e.value)
    with pytest.raises(ggufkit.GGUFError) as e:
        ggufkit.Vocab(f"{server}/data/no-such-file.gguf")
    assert e.value.code == "io_error"
    t0 = time.monotonic()
    with pytest.raises(ggufkit.GGUFError) as e:
        ggufkit.open(f"{server}/slow/models/stories260K.gguf", timeout=1, retries=0)
    assert e.value.code == "io_error" and "stalled" in str(e.value)
    assert time.monotonic() - t0 < 10


def test_hub_names(server, data, monkeypatch):
    monkeypatch.setenv("GGUF_HF_ENDPOINT", server + "/hub")
    monkeypatch.delenv("HF_TOKEN", raising=False)
    for name, local in (("hf://test/tiny-GGUF:q4_0", "stories260K-Q4_0.gguf"),
                        ("hf://test/tiny-GGUF", "stories260K-Q8_0.gguf"),  # no Q4_K_M: Q8_0, as llama-server
                        ("hf://test/tiny-GGUF/stories260K-F16.gguf", "stories260K-F16.gguf")):
        f, want = ggufkit.open(name), ggufkit.open(data / "models" / local)
        assert f.metadata["general.file_type"] == want.metadata["general.file_type"], name
        assert [t.name for t in f.tensors] == [t.name for t in want.tensors], name
    with pytest.raises(ggufkit.GGUFError) as e:
        ggufkit.open("hf://test/tiny-GGUF:Q5_K_M")
    assert e.value.code == "io_error"
    assert "no file for quant Q5_K_M in test/tiny-GGUF; its quants: F16, Q4_0, Q8_0" in str(e.value)
    with pytest.raises(ggufkit.GGUFError) as e:
        ggufkit.open("hf://gated/tiny-GGUF:Q8_0")
    assert "access denied (HTTP 401)" in str(e.value)
    f = ggufkit.open("hf://gated/tiny-GGUF:Q8_0", hf_token="test-token")
    assert f.metadata["general.file_type"] == ggufkit.open(data / "models/stories260K-Q8_0.gguf").metadata["general.file_type"]
