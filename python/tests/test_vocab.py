"""Vocab: encode equals the gguf CLI (and llama.cpp's ids) on every tokenizer vector file
in ../shared/data; encode_batch equals a loop of encode on 1 and 2 threads; decode,
token_to_piece, specials, pickling, and the GIL released while tokenizing."""
import json
import pickle
import threading
import time

import pytest

import ggufkit
from conftest import VECTOR_FILES, read_jsonl, run


@pytest.mark.parametrize("name", sorted(VECTOR_FILES))
def test_encode_equals_cli_and_llama_cpp(data, cli, name):
    path = data / VECTOR_FILES[name]
    cases = read_jsonl(data / "tokenizer-vectors" / (name + ".jsonl"))
    texts = [c["text"] for c in cases]
    stdin = "".join(json.dumps(t) + "\n" for t in texts).encode()
    cli_special = [json.loads(line) for line in run(cli, "tokenize", "-m", str(path), "--jsonl", stdin=stdin).splitlines()]
    cli_plain = [json.loads(line) for line in run(cli, "tokenize", "-m", str(path), "--jsonl", "--no-add-special",
                                                  "--no-parse-special", stdin=stdin).splitlines()]
    v = ggufkit.Vocab(path)
    bad = 0
    for i, c in enumerate(cases):
        special = v.encode(c["text"])
        plain = v.encode(c["text"], add_special=False, parse_special=False)
        ok = special == cli_special[i] == c["ids_special"] and plain == cli_plain[i] == c["ids"]
        ok = ok and v.decode(c["ids"]) == c["detok"]
        bad += not ok
    assert len(cases) > 2000 and bad == 0
    assert v.encode_batch(texts, threads=2) == cli_special
    assert v.encode_batch(texts, add_special=False, parse_special=False, threads=1) == cli_plain


def test_vocab_properties_and_pieces(data):
    f = ggufkit.open(data / "vocab/ggml-vocab-llama-bpe.gguf")
    v = ggufkit.Vocab(f)  # from an open File too
    assert v.n_tokens == len(f.metadata["tokenizer.ggml.tokens"])
    assert v.bos == f.metadata["tokenizer.ggml.bos_token_id"]
    assert v.eos == f.metadata["tokenizer.ggml.eos_token_id"]
    ids = v.encode("Hello world", add_special=False)
    assert "".join(v.token_to_piece(i) for i in ids) == "Hello world"
    with pytest.raises(ggufkit.GGUFError) as e:
        v.decode([v.n_tokens])
    assert e.value.code == "out_of_range"


def test_pickle_reopens_by_path(data):
    v = ggufkit.Vocab(data / "vocab/ggml-vocab-gemma-4.gguf")
    w = pickle.loads(pickle.dumps(v))
    assert w.path == v.path and w.n_tokens == v.n_tokens
    assert w.encode("pickled ✓ 123") == v.encode("pickled ✓ 123")


def test_no_tokenizer_is_an_error(data):
    with pytest.raises(ggufkit.GGUFError):
        ggufkit.Vocab(data / "models/superpoint.gguf").encode("x")


def test_encode_batch_releases_the_gil(data):
    v = ggufkit.Vocab(data / "vocab/ggml-vocab-llama-bpe.gguf")
    texts = [line for line in open(data / "corpus/bench.txt", encoding="utf-8").read().splitlines() if line][:40000]
    done = threading.Event()
    ticks = 0

    def work():
        v.encode_batch(texts, threads=1)
        done.set()

    t = threading.Thread(target=work)
    start = time.perf_counter()
    t.start()
    while not done.is_set():  # this thread runs Python while the batch tokenizes
        ticks += 1
        time.sleep(0)
    t.join()
    assert time.perf_counter() - start > 0.05, "batch too small to observe"
    assert ticks > 100


def test_encode_batch_takes_any_iterable_of_str_or_bytes(data):
    v = ggufkit.Vocab(data / "vocab/ggml-vocab-llama-bpe.gguf")
    texts = ["Hello world", "", "naïve café ✓", "<|begin_of_text|>x", "  spaces\tand\nlines "]
    want = [v.encode(t) for t in texts]
    assert want[1] == [v.bos] and want[3][:2] == [v.bos, v.bos]  # parse_special on
    assert v.encode_batch(texts) == want
    assert v.encode_batch(tuple(texts), threads=2) == want
    assert v.encode_batch(t for t in texts) == want  # a generator
    assert v.encode_batch([t.encode() for t in texts]) == want  # bytes: UTF-8 as is
    assert v.encode_batch([]) == []
    assert v.encode("naïve".encode()) == v.encode("naïve")
    big = v.encode_batch(["word " * 50] * 3000, threads=2)  # ids above the small-int cache
    assert len(big) == 3000 and all(ids == big[0] for ids in big) and max(big[0]) > 256
    big[0].append(big[0])  # the lists are ordinary, collectable lists
    with pytest.raises(TypeError):
        v.encode_batch(["ok", 3])
    with pytest.raises(TypeError):
        v.encode_batch(5)
    with pytest.raises(UnicodeEncodeError):
        v.encode_batch(["\ud800"])  # a lone surrogate has no UTF-8


def test_encode_batch_errors_name_the_text(data):
    v = ggufkit.Vocab(data / "models/superpoint.gguf")
    with pytest.raises(ggufkit.GGUFError) as e:
        v.encode_batch(["a", "b"], threads=2)
    assert e.value.code == "unsupported" and "text 0" in str(e.value)


def test_tokenizer_cache_gives_the_same_ids(data, tmp_path):
    """Vocab(cache_dir=...): the first load writes the compiled tables, the next maps them
    (from_cache), with the same ids; pickling keeps the folder."""
    text = "Hello world <|endoftext|> 12345 ~~ 你好 " * 3
    for name in ("ggml-vocab-llama-bpe.gguf", "ggml-vocab-bert-bge.gguf", "ggml-vocab-nomic-bert-moe.gguf"):
        path = str(data / "vocab" / name)
        plain = ggufkit.Vocab(path)
        assert plain.cache_dir is None and not plain.from_cache
        first = ggufkit.Vocab(path, cache_dir=tmp_path)
        assert not first.from_cache and first.cache_dir == str(tmp_path)
        second = ggufkit.Vocab(path, cache_dir=tmp_path)
        assert second.from_cache
        for add, parse in ((False, False), (False, True), (True, True)):
            want = plain.encode(text, add_special=add, parse_special=parse)
            assert first.encode(text, add_special=add, parse_special=parse) == want
            assert second.encode(text, add_special=add, parse_special=parse) == want
        again = pickle.loads(pickle.dumps(second))
        assert again.from_cache and again.cache_dir == str(tmp_path)
        assert again.encode(text) == plain.encode(text)
    assert len(list(tmp_path.glob("vocab-*.bin"))) == 3
    assert isinstance(ggufkit.default_tokenizer_cache_dir(), str)
