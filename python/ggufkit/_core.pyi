"""Type stubs of ggufkit's extension module (see the ggufkit package for the API)."""
from __future__ import annotations

import os
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

from . import Metadata

_Path = Union[str, os.PathLike[str]]

__version__: str  # the gguf library's version (CMakeLists.txt's project version)

class File:
    """An opened, validated GGUF file (memory-mapped, or read over HTTP: see
    ggufkit.open; zero-copy views keep it alive).

    Raises GGUFError when the file is unreadable (code "io_error") or malformed (the
    format error, with its byte offset and key or tensor)."""
    def __init__(self, path: _Path) -> None:
        """A path, or an http(s):// URL read with the default options."""
    @property
    def path(self) -> str:
        """The path (or URL) the file was opened from."""
    @property
    def version(self) -> int:
        """GGUF version: 1, 2 or 3."""
    @property
    def byte_order(self) -> str:
        """"little" or "big"."""
    @property
    def alignment(self) -> int:
        """general.alignment, or 32."""
    @property
    def data_offset(self) -> int:
        """Absolute byte offset of the tensor data section."""
    @property
    def size(self) -> int:
        """File size in bytes."""
    @property
    def is_remote(self) -> bool:
        """True for a file read over HTTP."""
    @property
    def transfer(self) -> dict[str, int]:
        """{"requests", "bytes"}: HTTP requests sent (retries and 304s included) and body
        bytes received so far; zeros for a local file."""
    @property
    def buffer(self) -> npt.NDArray[np.uint8]:
        """The whole file: a read-only uint8 view (base: this File). A remote file is
        fetched whole first (GGUFError "io_error" if that fails)."""
    @property
    def metadata(self) -> Metadata:
        """Read-only Mapping key -> value (ggufkit.Metadata)."""
    @property
    def tensors(self) -> list[Tensor]:
        """Tensor infos in file order."""
    def tensor(self, name: str) -> Tensor:
        """The tensor named `name`; GGUFError "tensor_not_found" if absent."""
    def _keys(self) -> list[str]: ...
    def _value(self, key: str) -> Any: ...
    def _type(self, key: str) -> str: ...
    def _types(self, key: str) -> list[int]: ...
    def _kv_layout(self) -> list[tuple[str, int, int, int]]: ...
    def _tensor_layout(self) -> list[tuple[str, int, int, int, int]]: ...

def _open_url(url: str, headers: list[str], timeout: float, retries: int, cache_dir: str,
              first_request: Optional[int], hf_token: str = ...) -> File: ...

class Tensor:
    """One tensor of a File (File.tensor, File.tensors; it has no constructor)."""
    @property
    def name(self) -> str:
        """The tensor's name (bytes that are not UTF-8 as lone surrogates)."""
    @property
    def type(self) -> str:
        """ggml type name, ggml's spelling: "f32", "q4_K", "iq2_xxs", ..."""
    @property
    def ne(self) -> tuple[int, ...]:
        """Elements per dimension, ggml order (ne[0] contiguous)."""
    @property
    def shape(self) -> tuple[int, ...]:
        """numpy order: reversed ne."""
    @property
    def n_elements(self) -> int:
        """Number of elements: the product of ne."""
    @property
    def offset(self) -> int:
        """Byte offset relative to File.data_offset."""
    @property
    def nbytes(self) -> int:
        """Size of the tensor's data in bytes."""
    @property
    def data(self) -> npt.NDArray[np.uint8]:
        """The tensor's bytes as stored: a zero-copy, read-only uint8 view of the mapping
        (nbytes elements; base: the File). A remote file fetches the tensor's bytes first
        (once; releases the GIL; GGUFError "io_error" if the transfer fails)."""
    def dequantize(self) -> npt.NDArray[np.float32]:
        """float32 array of `shape`, ggml's dequantization bit for bit (releases the GIL;
        a remote file fetches the tensor's bytes first).
        GGUFError "unsupported" for q8_1 / q8_K and for types without a big-endian layout
        in a big-endian file."""
    def quantize(self, type: Union[str, int], imatrix: Optional[npt.ArrayLike] = None) -> npt.NDArray[np.uint8]:
        """The tensor dequantized (bit for bit as ggml) and its rows of ne[0] quantized to
        `type` as ggufkit.quantize_rows does: uint8 of shape shape[:-1] + (row bytes,).
        imatrix: None or ne[0] weights. Errors: those of dequantize and quantize_rows."""

class Vocab:
    """llama.cpp's tokenizer built from a GGUF file's tokenizer.ggml.* keys: ids equal to
    llama_tokenize, text equal to llama_detokenize. Picklable (reopened by path), so it
    can be sent to multiprocessing and Dask workers. Thread-safe."""
    def __init__(self, path_or_file: Union[_Path, File], cache_dir: Optional[_Path] = None) -> None:
        """From a path, an http(s):// URL (read with ggufkit.open's defaults; pass a File
        from ggufkit.open for other options) or a File. cache_dir: folder of the compiled
        tokenizer cache (the tables a load builds, saved once and mapped back by later
        loads of the same vocabulary; keyed by the file's metadata bytes; docs/tokenizers.md),
        e.g. ggufkit.default_tokenizer_cache_dir(); None (default): no cache. The cache
        never changes an id and never fails a load."""
    @property
    def cache_dir(self) -> Optional[str]:
        """The cache folder given, or None."""
    @property
    def from_cache(self) -> bool:
        """True when the tables were mapped from the cache (a hit)."""
    def apply_chat_template(self, messages: Sequence[dict[str, Any]], tools: Optional[Sequence[dict[str, Any]]] = None,
                            add_generation_prompt: bool = False, tokenize: bool = False, server: bool = False,
                            **kwargs: Any) -> Union[str, list[int]]:
        """The prompt of a conversation under the file's chat template (tokenizer.chat_template;
        its tool_use variant when tools are given; chatml when the file has none), with
        transformers' argument names: as transformers' tokenizer.apply_chat_template renders it
        (default), or as llama-server v0.5.0 builds it for a chat request (server=True).
        kwargs become template variables (e.g. enable_thinking=False); chat_template= gives a
        template text or a built-in name (llama.cpp's: chatml, llama3, ...) instead. tokenize:
        the token ids instead (transformers: add_special off; server: as llama-server
        tokenizes a prompt). GGUFError "template_error" when the template raises,
        "invalid_template" when it does not parse, "invalid_argument" for a request
        llama-server refuses. docs/chat.md."""
    @property
    def chat_template_caps(self) -> Optional[dict[str, bool]]:
        """llama.cpp's nine capabilities of the file's template (supports_system_role,
        supports_tools, ...) and supports_enable_thinking; None when it does not parse."""
    def encode(self, text: Union[str, bytes], add_special: bool = True, parse_special: bool = True) -> list[int]:
        """Token ids of `text` (releases the GIL). add_special: BOS/EOS/SEP as the model
        is configured; parse_special: control-token text becomes those tokens.
        GGUFError "unsupported" for a file without a tokenizer, "invalid_vocab" when the
        text needs a token the vocabulary lacks."""
    def encode_batch(self, texts: Iterable[Union[str, bytes]], add_special: bool = True, parse_special: bool = True,
                     threads: int = 0) -> list[list[int]]:
        """encode() of every text (any iterable of str, taken as UTF-8, or bytes, taken as
        they are; TypeError for anything else, and for a single str or bytes: that is one
        text, for encode()), on `threads` threads (0 = every core; ValueError if negative),
        results in input order. The GIL is released while the texts are tokenized; the
        lists are built afterwards with the collector paused (one pass over them later
        instead of one every 700 lists). GGUFError as encode() for the first text that
        fails (its index in the detail)."""
    def decode(self, ids: Sequence[int], remove_special: bool = False, unparse_special: bool = False) -> str:
        """Text of `ids` (invalid UTF-8 replaced by U+FFFD). GGUFError "out_of_range" for an
        id outside [0, n_tokens) (however large); TypeError for an id that is not an int
        (numpy integers are) and for a str or bytes in place of the sequence. The message
        names the id."""
    def token_to_piece(self, id: int) -> str:
        """The text of one token (special tokens rendered). Raises GGUFError out_of_range for an
        id outside the vocabulary, TypeError for an id that is not an int; the message names
        the id."""
    @property
    def n_tokens(self) -> int:
        """Number of tokens in the vocabulary (ids are 0 .. n_tokens-1)."""
    @property
    def bos(self) -> Optional[int]:
        """BOS id, or None if the model has none."""
    @property
    def eos(self) -> Optional[int]:
        """EOS id, or None if the model has none."""
    @property
    def type(self) -> str:
        """"spm", "bpe", "wpm", "ugm", "rwkv" or "none"."""
    @property
    def path(self) -> str:
        """The path (or URL) of the file the vocabulary was read from."""

class Model:
    """A model file's architecture, hparams and token embeddings. Picklable (by path)."""
    def __init__(self, path_or_file: Union[_Path, File]) -> None:
        """From a path, an http(s):// URL or a File (as Vocab); embed() of a remote file
        fetches only the rows of its tokens."""
    @property
    def architecture(self) -> str:
        """general.architecture, e.g. "llama"."""
    @property
    def hparams(self) -> dict[str, Any]:
        """hparams in llama.cpp's names (n_ctx_train, n_embd, n_layer, n_head, ...), as
        `gguf info --json` prints them."""
    def embed(self, text_or_ids: Union[str, bytes, Sequence[int]], add_special: bool = True) -> npt.NDArray[np.float32]:
        """Rows of token_embd.weight for the ids of a text (tokenized with add_special,
        parse_special off) or for the ids given: float32 [n_tokens, n_embd], ggml's
        get_rows bit for bit. GGUFError "tensor_not_found" without token_embd.weight,
        "out_of_range" for an id outside [0, n_vocab); TypeError for an id that is not an
        int. The message names the id."""

def default_tokenizer_cache_dir() -> str:
    """The command-line tool's tokenizer cache folder: $GGUF_CACHE_DIR, else
    $XDG_CACHE_HOME/gguf, else ~/.cache/gguf; "" when GGUF_CACHE_DIR is "" or "0"."""
def edit(path: _Path, set: Optional[Mapping[str, Any]] = None, remove: Optional[Union[str, Iterable[str]]] = None,
         out: Optional[_Path] = None, in_place: bool = True, force: bool = False,
         break_links: bool = False) -> dict[str, Any]:
    """Metadata edits (see ggufkit.edit, which calls this)."""
def quantize(inp: str, out: str, type: str, nthread: int, allow_requantize: bool, leave_output_tensor: bool,
             pure: bool, imatrix: Optional[str], include_weights: list[str], exclude_weights: list[str],
             output_tensor_type: Optional[str], token_embedding_type: Optional[str],
             tensor_types: list[tuple[str, str]], prune_layers: list[int], keep_split: bool, override_kv: list[str],
             dry_run: bool, force: bool) -> dict[str, Any]:
    """llama-quantize over a model (see ggufkit.quantize)."""
def quantize_rows(array: npt.ArrayLike, type: Union[str, int],
                  imatrix: Optional[npt.ArrayLike] = None) -> npt.NDArray[np.uint8]:
    """Quantizes rows of float32 (the last axis is a row of n_per_row values; other dtypes
    are converted) to the ggml type `type` (name, case-insensitive, e.g. "q4_K", or id),
    byte for byte as ggml's ggml_quantize_chunk (v0.5.0) writes them. imatrix: None or
    n_per_row importance weights (llama-imatrix's per-column values, >= 0). Returns uint8
    of the same leading shape, the last axis ggml_row_size(type, n_per_row) bytes.
    Raises GGUFError: "invalid_ggml_type" (unknown name or id), "unsupported" (a type
    ggml does not quantize to: q8_1, q8_K, f64, integers), "partial_block" (n_per_row not
    a multiple of the block size), "invalid_argument" (iq2_xxs, iq2_xs, iq1_s without an
    imatrix); ValueError for an imatrix of the wrong shape. Releases the GIL."""
def can_quantize(type: Union[str, int]) -> bool:
    """True when quantize_rows writes `type`."""
def quantize_requires_imatrix(type: Union[str, int]) -> bool:
    """True for iq2_xxs, iq2_xs, iq1_s (ggml_quantize_requires_imatrix)."""
def ggml_types() -> list[tuple[int, str, int, int]]:
    """(id, name, blck_size, type_size) of every ggml type."""
