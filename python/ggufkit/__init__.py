"""ggufkit: GGUF model files from Python, over the gguf C++ library.

    import ggufkit
    f = ggufkit.open("model.gguf")                  # mapped, parsed and validated
    f = ggufkit.open("https://host/model.gguf")     # over HTTP: metadata now, tensors when read
    f.metadata["general.architecture"]               # 'llama'
    t = f.tensor("token_embd.weight")                # t.type 'q4_K', t.ne, t.shape
    t.data                                           # zero-copy uint8 view of the mapping
    t.dequantize()                                   # float32 array of t.shape
    t.quantize("q4_K", imatrix=None)                 # its rows quantized: uint8 [..., row bytes]
    ggufkit.quantize_rows(rows, "q8_0")              # float32 rows -> ggml blocks, as ggml writes them
    v = ggufkit.Vocab("model.gguf")                  # llama.cpp's tokenizer, exact ids
    v.encode("Hello"), v.encode_batch(texts, threads=0), v.decode(ids)
    ggufkit.Model("model.gguf").embed("Hello")       # token embeddings [n_tokens, n_embd]
    ggufkit.edit("model.gguf", set={"general.name": "x"}, remove=["general.url"])
    from ggufkit.compat import GGUFReader            # gguf-py's reader interface

Errors are GGUFError (code, offset, key, tensor). Calls that do real work release the GIL.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Iterable, Iterator, Union

from . import _core
from ._core import File, Model, Tensor, Vocab
from ._errors import GGUFError

__all__ = ["open", "File", "Tensor", "Metadata", "Vocab", "Model", "edit", "quantize", "GGUFError", "default_tokenizer_cache_dir",
           "quantize_rows", "can_quantize", "quantize_requires_imatrix"]

default_tokenizer_cache_dir = _core.default_tokenizer_cache_dir
quantize_rows = _core.quantize_rows
can_quantize = _core.can_quantize
quantize_requires_imatrix = _core.quantize_requires_imatrix
__version__: str = _core.__version__  # one source: CMakeLists.txt (gguf/version.h)

PathLike = Union[str, "os.PathLike[str]"]


class Metadata(Mapping[str, Any]):
    """Read-only mapping key -> value of a File's metadata, in file order.

    Values: int, float, bool, str; numeric arrays as 1-D numpy arrays (read-only views of
    the mapping when the file's byte order is the host's, copies otherwise); string
    arrays as list[str]; arrays of arrays as lists. Strings that are not valid UTF-8 keep
    their bytes as lone surrogates (``s.encode("utf-8", "surrogateescape")``).
    Values are converted on each lookup (keep the result to reuse a large array).
    A key that is not in the file, whatever its type (1, b"key", None), raises KeyError, as
    for any Mapping: ``m.get(1, d)`` is d, ``1 in m`` is False.
    """

    __slots__ = ("_file", "_keys", "_key_set")

    def __init__(self, file: File) -> None:
        self._file = file
        self._keys = file._keys()
        self._key_set = frozenset(self._keys)

    def __getitem__(self, key: str) -> Any:
        # a key of another type is absent, as in a dict (File._value takes only str)
        if key not in self._key_set:
            raise KeyError(key)
        return self._file._value(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._key_set

    def type(self, key: str) -> str:
        """The GGUF value type of `key`: "uint32", "string", "array", ... (KeyError if absent)."""
        if key not in self._key_set:
            raise KeyError(key)
        return self._file._type(key)

    def __eq__(self, other: object) -> bool:
        """Equal to a Mapping with the same keys and equal values, as dicts compare (key
        order aside); numeric arrays compare element by element (numpy.array_equal: same
        shape and values; a NaN equals nothing), against an array or a list alike."""
        if self is other:
            return True
        if not isinstance(other, Mapping):
            return NotImplemented
        if len(self) != len(other) or any(k not in other for k in self._keys):
            return False
        return all(_values_equal(self[k], other[k]) for k in self._keys)

    __hash__ = None  # type: ignore[assignment]  # mutable-looking, as Mapping: unhashable

    def __repr__(self) -> str:
        return f"<ggufkit.Metadata of {self._file.path!r}: {len(self)} keys>"


def _values_equal(a: Any, b: Any) -> bool:
    """Metadata.__eq__ of two values: arrays element-wise, lists item by item."""
    if hasattr(a, "__array__") or hasattr(b, "__array__"):
        import numpy as np
        return bool(np.array_equal(np.asarray(a), np.asarray(b)))
    if isinstance(a, list) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_values_equal(x, y) for x, y in zip(a, b))
    return bool(a == b)


# File (the extension module) gets its metadata property here, where Metadata is defined
setattr(File, "metadata", property(Metadata, doc="The file's metadata as a read-only Mapping (see Metadata)."))


def open(path_or_url: PathLike, *, headers: Iterable[str] | Mapping[str, str] | None = None,  # noqa: A001
         timeout: float = 30, retries: int = 3, cache_dir: PathLike | None = None,
         first_request: int | None = None, hf_token: str | None = None) -> File:
    """Maps and parses a GGUF file, or reads an http:// / https:// URL or a hub name
    (hf://OWNER/REPO/FILE.gguf, hf://OWNER/REPO:QUANT, hf://OWNER/REPO@REV...: the file
    llama-server -hf would pick, docs/remote.md) with range requests; every rule of the
    format is checked before use.

    A URL costs one or two requests for the metadata of most models (a first request of
    `first_request` bytes, default 64 KiB, then the rest the reader estimates), then only
    the missing bytes; tensor data is fetched when it is read:
    ``Tensor.data`` fetches that tensor's bytes, ``Tensor.dequantize()`` too,
    ``File.buffer`` the whole file. Every response is checked (status 206, Content-Range,
    length, the same ETag throughout). Options, for URLs only:

    - headers: request headers, "Name: value" strings or a {name: value} mapping (e.g.
      {"Authorization": "Bearer TOKEN"}); HF_TOKEN (environment) is sent to
      huggingface.co / hf.co / $HF_ENDPOINT when no Authorization header is given;
    - timeout: seconds to connect, and seconds a transfer may stall (under 1 KiB/s);
    - retries: retries after 429, 5xx or a broken connection (backoff 0.25 s, doubling);
    - cache_dir: a directory of cached metadata keyed by URL + ETag (a second open is one
      conditional request);
    - first_request: bytes of the first request;
    - hf_token: token of the Hugging Face hub (default: HF_TOKEN); the hub is
      GGUF_HF_ENDPOINT, else HF_ENDPOINT, else https://huggingface.co.

    Raises GGUFError: code "io_error" for an unreadable file or a failed transfer (the
    message names the cause: HTTP status, timeout, a response that does not answer the
    request), else the format error with its byte offset and key / tensor.
    """
    s = os.fspath(path_or_url)
    if isinstance(s, str) and s[:8].lower().startswith(("http://", "https://", "hf://")):
        if isinstance(headers, Mapping):
            hs = [f"{k}: {v}" for k, v in headers.items()]
        else:
            hs = [str(h) for h in headers or ()]
        return _core._open_url(s, hs, float(timeout), int(retries),
                               os.fspath(cache_dir) if cache_dir is not None else "",
                               None if first_request is None else int(first_request),
                               hf_token or "")
    return File(s)


def edit(path: PathLike, set: Mapping[str, Any] | None = None, remove: str | Iterable[str] | None = None,  # noqa: A002
         out: PathLike | None = None, in_place: bool = True, force: bool = False,
         break_links: bool = False) -> dict[str, Any]:
    """Edits metadata with the library's gguf::edit: keys of `remove` dropped, then keys of
    `set` replaced (keeping their position and their GGUF type) or appended; tensor data
    unchanged. Over `path`: in place when the new metadata fits in the old metadata region
    (journaled, tensor bytes untouched; in_place=False forbids it, e.g. for a file other
    processes have mapped; a File of `path` open in this process gets a streamed rewrite too,
    so that it keeps reading the old file), else a streamed atomic rewrite (temporary file +
    rename). `remove` is a key (str) or an iterable of keys. With `out`, the result is
    written there and `path` is only read; an existing `out` other than `path` is replaced
    only with force=True. An edit that makes the file invalid (new `gguf validate` errors,
    e.g. removing general.architecture) is refused unless force=True, as the command line
    refuses it without --force. break_links=True lets a rewrite replace a file with other
    hard links (they keep the old content). Returns what was done:
    {"target", "in_place", "old_size", "new_size"}.

    New keys take their type from the value: numpy scalars their dtype (np.uint32(5)),
    bool -> bool, int -> int32 (int64 / uint64 when out of range), float -> float32,
    str -> string, a list of str -> string array, other sequences / numpy arrays -> arrays
    of their dtype (Python ints -> int32 when they fit, floats -> float32).
    Raises GGUFError: key_not_found (a key of `remove` absent), out_of_range /
    invalid_argument (a value that does not fit the key's type), invalid_key, io_error
    (unwritable, or another process is editing the file). On error the file is unchanged.
    """
    return _core.edit(path, set, remove, out, in_place, force, break_links)


def quantize(inp: PathLike, out: PathLike, type: str, *, nthread: int = 0,  # noqa: A002
             allow_requantize: bool = False, leave_output_tensor: bool = False, pure: bool = False,
             imatrix: PathLike | None = None, include_weights: str | Iterable[str] = (),
             exclude_weights: str | Iterable[str] = (), output_tensor_type: str | None = None,
             token_embedding_type: str | None = None, tensor_types: Iterable[str | tuple[str, str]] = (),
             prune_layers: Iterable[int] = (), keep_split: bool = False, override_kv: str | Iterable[str] = (),
             dry_run: bool = False, force: bool = False) -> dict[str, Any]:
    """Quantizes the model `inp` (a file, any shard of a split model, or a URL) to `out` as
    llama.cpp's llama-quantize v0.5.0 does, byte for byte: `type` is one of its file types
    ("Q4_K_M", "IQ4_XS", "Q8_0", "COPY", ... or the number, e.g. "15"); the keyword options are
    its options (imatrix: a GGUF imatrix or legacy .dat; tensor_types: (regex, ggml type)
    pairs or "regex=type" strings; override_kv: "KEY=TYPE:VALUE" strings; keep_split: `out`
    is then the prefix of the shards). The output is written atomically (temporary file,
    fsync, rename); an existing `out` is replaced only with force=True. nthread=0 uses every
    core; the bytes never depend on it. dry_run=True writes nothing.
    Returns the plan: {"file_type", "tensors": [{"name", "type_in", "type", "size_in",
    "size", "fallback"}], "size_in", "size", "file_sizes", "paths", "n_fallback",
    "needs_imatrix"}. Raises GGUFError naming the reason (an imatrix required or of another
    model, requantizing without allow_requantize, an unknown type, io_error).
    """
    pairs = []
    for t in tensor_types:
        if isinstance(t, str):
            name, sep, ty = t.partition("=")
            if not sep:
                raise GGUFError(f"malformed tensor type {t!r} (expected PATTERN=TYPE)", "invalid_argument")
            pairs.append((name, ty))
        else:
            pairs.append((str(t[0]), str(t[1])))
    return _core.quantize(os.fspath(inp), os.fspath(out), str(type), int(nthread), bool(allow_requantize),
                          bool(leave_output_tensor), bool(pure),
                          None if imatrix is None else os.fspath(imatrix),
                          [include_weights] if isinstance(include_weights, str) else list(include_weights),
                          [exclude_weights] if isinstance(exclude_weights, str) else list(exclude_weights),
                          output_tensor_type, token_embedding_type, pairs, [int(x) for x in prune_layers],
                          bool(keep_split), [override_kv] if isinstance(override_kv, str) else list(override_kv),
                          bool(dry_run), bool(force))
