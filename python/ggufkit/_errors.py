"""GGUFError: every error of the gguf library, as a Python exception."""
from __future__ import annotations

from typing import Optional


class GGUFError(Exception):
    """An error of the gguf library (a malformed file, a failed lookup, an edit refused).

    Attributes:
        code: the error code's stable name, e.g. ``"bad_magic"``, ``"truncated"``,
            ``"key_not_found"`` (the library's ``gguf::errc``; docs/errors.md).
        offset: the byte offset in the file where the problem is, or None.
        key: the metadata key concerned, or None.
        tensor: the tensor concerned, or None.
        detail: what exactly is wrong, without the location.
    ``str(e)`` is the message the ``gguf`` command prints: ``detail (at byte N, key K)``.
    """

    def __init__(self, message: str, code: str = "", offset: Optional[int] = None,
                 key: Optional[str] = None, tensor: Optional[str] = None, detail: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.offset = offset
        self.key = key
        self.tensor = tensor
        self.detail = detail or message

    def __reduce__(self) -> tuple[type[GGUFError], tuple[str, str, Optional[int], Optional[str], Optional[str], str]]:
        return (type(self), (str(self), self.code, self.offset, self.key, self.tensor, self.detail))


class GGUFValueError(GGUFError, ValueError):
    """A GGUFError for a file that is not valid GGUF (raised by compat.GGUFReader, where
    gguf-py raises ValueError: existing ``except ValueError`` clauses keep working)."""


class GGUFFileNotFoundError(GGUFError, FileNotFoundError):
    """A GGUFError for a file that does not exist (compat.GGUFReader; gguf-py raises
    FileNotFoundError)."""
