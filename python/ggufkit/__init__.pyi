from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Iterable, Iterator, Optional, Union

from ._core import File as File, Model as Model, Tensor as Tensor, Vocab as Vocab
from ._core import can_quantize as can_quantize, quantize_requires_imatrix as quantize_requires_imatrix
from ._core import quantize_rows as quantize_rows
from ._errors import GGUFError as GGUFError

__version__: str

class Metadata(Mapping[str, Any]):
    """Read-only mapping key -> value of a File's metadata (int, float, bool, str; numeric
    arrays as numpy arrays, zero-copy in host byte order; string arrays as list[str];
    arrays of arrays as lists)."""
    def __init__(self, file: File) -> None: ...
    def __getitem__(self, key: str) -> Any: ...
    def __iter__(self) -> Iterator[str]: ...
    def __len__(self) -> int: ...
    def type(self, key: str) -> str: ...

def open(path_or_url: Union[str, os.PathLike[str]], *,
         headers: Optional[Union[Iterable[str], Mapping[str, str]]] = None, timeout: float = 30,
         retries: int = 3, cache_dir: Optional[Union[str, os.PathLike[str]]] = None,
         first_request: Optional[int] = None) -> File:
    """Maps, parses and validates a GGUF file, or reads an http(s):// URL with range
    requests (metadata on open; a tensor's bytes when Tensor.data / dequantize() reads
    them). The keyword options apply to URLs: request headers ("Name: value" strings or
    a mapping; HF_TOKEN is sent to huggingface.co when no Authorization is given),
    timeout (seconds to connect / a transfer may stall), retries (after 429, 5xx, a
    broken connection), cache_dir (metadata cached by URL + ETag), first_request (bytes).
    Raises GGUFError ("io_error" for an unreadable file or a failed transfer)."""

def default_tokenizer_cache_dir() -> str:
    """The command-line tool's tokenizer cache folder (for Vocab(..., cache_dir=...)):
    $GGUF_CACHE_DIR, else $XDG_CACHE_HOME/gguf, else ~/.cache/gguf; "" when GGUF_CACHE_DIR
    is "" or "0"."""
def edit(path: Union[str, os.PathLike[str]], set: Optional[Mapping[str, Any]] = None,
         remove: Optional[Union[str, Iterable[str]]] = None, out: Optional[Union[str, os.PathLike[str]]] = None,
         in_place: bool = True, force: bool = False, break_links: bool = False) -> dict[str, Any]:
    """Metadata edits written atomically to `out` or over `path`. Raises GGUFError."""
def quantize(inp: Union[str, os.PathLike[str]], out: Union[str, os.PathLike[str]], type: str, *,
             nthread: int = 0, allow_requantize: bool = False, leave_output_tensor: bool = False,
             pure: bool = False, imatrix: Optional[Union[str, os.PathLike[str]]] = None,
             include_weights: Union[str, Iterable[str]] = (), exclude_weights: Union[str, Iterable[str]] = (),
             output_tensor_type: Optional[str] = None, token_embedding_type: Optional[str] = None,
             tensor_types: Iterable[Any] = (), prune_layers: Iterable[int] = (), keep_split: bool = False,
             override_kv: Union[str, Iterable[str]] = (), dry_run: bool = False, force: bool = False) -> dict[str, Any]:
    """A model quantized as llama-quantize v0.5.0 does it (byte-identical). Raises GGUFError."""
