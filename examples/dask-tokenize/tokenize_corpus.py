"""Tokenize a sharded text corpus on a Dask cluster with ggufkit.

Each shard is a text file, one document per line (empty lines skipped). Every task opens
the vocabulary by path on its worker (once per worker process: the Vocab is cached) and
tokenizes its shard with Vocab.encode_batch; the result is the token ids of every line of
every shard, in shard and line order, identical to a serial run.

    python3 tokenize_corpus.py --vocab model.gguf --workers 4 --out ids.jsonl shard*.txt
    python3 tokenize_corpus.py --vocab model.gguf --scheduler tcp://host:8786 shard*.txt

Needs Debian's python3-distributed (dask.distributed) and ggufkit installed.
"""
from __future__ import annotations

import argparse
import functools
import json
import sys
from typing import Sequence

import ggufkit


@functools.lru_cache(maxsize=4)
def worker_vocab(path: str) -> ggufkit.Vocab:
    """The vocabulary at `path`, opened once per worker process."""
    return ggufkit.Vocab(path)


def read_shard(path: str) -> list[str]:
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f if line.strip()]


def tokenize_shard(vocab_path: str, shard_path: str, add_special: bool = True, threads: int = 1) -> list[list[int]]:
    """Token ids of every non-empty line of one shard (runs on a worker)."""
    return worker_vocab(vocab_path).encode_batch(read_shard(shard_path), add_special=add_special, threads=threads)


def tokenize_corpus(client, vocab_path: str, shards: Sequence[str], add_special: bool = True) -> list[list[list[int]]]:
    """Ids per shard, per line, tokenized by the cluster behind `client` (order kept).
    This file is sent to the workers first (client.upload_file), so that they can import
    tokenize_shard wherever the example lives."""
    client.upload_file(__file__)
    futures = client.map(tokenize_shard, [vocab_path] * len(shards), list(shards), [add_special] * len(shards),
                         pure=False)
    return client.gather(futures)


def tokenize_serial(vocab_path: str, shards: Sequence[str], add_special: bool = True) -> list[list[list[int]]]:
    """The same result on this process, one encode call per line (the reference)."""
    v = ggufkit.Vocab(vocab_path)
    return [[v.encode(line, add_special=add_special) for line in read_shard(s)] for s in shards]


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("shards", nargs="+", help="text files, one document per line")
    p.add_argument("--vocab", required=True, help="GGUF file with the tokenizer (a path every worker can open)")
    p.add_argument("--workers", type=int, default=2, help="local worker processes (without --scheduler)")
    p.add_argument("--scheduler", help="address of a running Dask scheduler instead of a local cluster")
    p.add_argument("--no-add-special", action="store_true", help="do not add BOS/EOS")
    p.add_argument("--out", help="write one JSON array of ids per line here (default: a summary only)")
    args = p.parse_args(argv)

    from dask.distributed import Client, LocalCluster

    if args.scheduler:
        client = Client(args.scheduler)
    else:
        client = Client(LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True))
    with client:
        result = tokenize_corpus(client, args.vocab, args.shards, not args.no_add_special)
    n_lines = sum(len(s) for s in result)
    n_tokens = sum(len(ids) for s in result for ids in s)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            for shard in result:
                for ids in shard:
                    f.write(json.dumps(ids, separators=(",", ":")) + "\n")
    print(f"{len(args.shards)} shards, {n_lines} lines, {n_tokens} tokens", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
