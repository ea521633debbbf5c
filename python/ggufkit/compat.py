"""gguf-py's reader interface over ggufkit: scripts written for ``gguf.GGUFReader`` run
unchanged on ``ggufkit.compat.GGUFReader``.

Same attributes and types as gguf-py (gguf/gguf_reader.py of llama.cpp): ``fields`` (an
OrderedDict name -> ReaderField with ``offset, name, parts, data, types`` and
``contents()``), ``tensors`` (ReaderTensor with ``name, tensor_type, shape, n_elements,
n_bytes, data_offset, data, field``), ``get_field``, ``get_tensor``, ``byte_order``,
``endianess``, ``alignment``, ``data_offset``, ``data``; the enums GGUFValueType,
GGMLQuantizationType and GGUFEndian with gguf-py's names and values.

What differs: the file is validated by the gguf library when opened (GGUFError instead of
ValueError / KeyError for a malformed file), and a field's ``parts`` and ``data`` are built
on first use instead of for every field at open time, while ``contents()`` reads the
value straight from the library: opening a 256k-token vocabulary and reading every field
takes a fraction of gguf-py's time.
"""
from __future__ import annotations

import os
import sys
from collections import OrderedDict
from enum import IntEnum
from typing import Any, Literal, NamedTuple, Union

import numpy as np
import numpy.typing as npt

from . import _core
from ._errors import GGUFError, GGUFFileNotFoundError, GGUFValueError

__all__ = ["GGUFReader", "ReaderField", "ReaderTensor", "GGUFValueType", "GGMLQuantizationType", "GGUFEndian",
           "GGML_QUANT_SIZES", "GGUFError"]


class GGUFValueType(IntEnum):
    UINT8 = 0
    INT8 = 1
    UINT16 = 2
    INT16 = 3
    UINT32 = 4
    INT32 = 5
    FLOAT32 = 6
    BOOL = 7
    STRING = 8
    ARRAY = 9
    UINT64 = 10
    INT64 = 11
    FLOAT64 = 12


class GGUFEndian(IntEnum):
    LITTLE = 0
    BIG = 1


# ggml's type ids with gguf-py's member names (the ggml spelling, upper-cased).
_TYPES = _core.ggml_types()
# Built from the library's table, so its members are known at run time only (Any to a type checker).
_IntEnum: Any = IntEnum  # (the functional API with members computed at run time)
GGMLQuantizationType: Any = _IntEnum("GGMLQuantizationType", [(name.upper(), tid) for tid, name, _, _ in _TYPES])
GGMLQuantizationType.__module__ = __name__
GGML_QUANT_SIZES: dict[Any, tuple[int, int]] = {GGMLQuantizationType(tid): (blck, size) for tid, _, blck, size in _TYPES}

_SCALAR_NP = {
    GGUFValueType.UINT8: np.uint8, GGUFValueType.INT8: np.int8, GGUFValueType.UINT16: np.uint16,
    GGUFValueType.INT16: np.int16, GGUFValueType.UINT32: np.uint32, GGUFValueType.INT32: np.int32,
    GGUFValueType.FLOAT32: np.float32, GGUFValueType.UINT64: np.uint64, GGUFValueType.INT64: np.int64,
    GGUFValueType.FLOAT64: np.float64, GGUFValueType.BOOL: np.bool_,
}
_ELEMENT_NP = {
    GGMLQuantizationType.F16: np.float16, GGMLQuantizationType.F32: np.float32, GGMLQuantizationType.F64: np.float64,
    GGMLQuantizationType.I8: np.int8, GGMLQuantizationType.I16: np.int16, GGMLQuantizationType.I32: np.int32,
    GGMLQuantizationType.I64: np.int64,
}


class ReaderField:
    """One metadata field (or a tensor info), as gguf-py's ReaderField.

    ``parts``: the numpy views of the field's bytes (key length, key, type, then the
    value's pieces); ``data``: indices of ``parts`` holding the value; ``types``: the value
    type, then for arrays the first element's types. ``parts`` and ``data`` are built on
    first use.
    """

    __slots__ = ("offset", "name", "types", "_reader", "_value_offset", "_parts", "_data", "_key")

    def __init__(self, offset: int, name: str, parts: list[npt.NDArray[Any]] | None = None,
                 data: list[int] | None = None, types: list[GGUFValueType] | None = None, *, reader: GGUFReader | None = None, value_offset: int = -1,
                 key: str | None = None) -> None:
        self.offset = offset
        self.name = name
        self.types = types if types is not None else []
        self._parts = parts
        self._data = data
        self._reader = reader
        self._value_offset = value_offset
        self._key = key

    @property
    def parts(self) -> list[npt.NDArray[Any]]:
        if self._parts is None:
            self._parts, self._data = self._build()
        return self._parts

    @property
    def data(self) -> list[int]:
        if self._data is None:
            self._parts, self._data = self._build()
        return self._data

    def _build(self) -> tuple[list[npt.NDArray[Any]], list[int]]:
        r = self._reader
        assert r is not None, "a field made by hand has its parts"
        klen, kdata = r._get_str(self.offset)
        raw_type = r._get(self._value_offset - 4, np.uint32)
        parts = [klen, kdata, raw_type]
        _, vparts, vidx = r._value_parts(self._value_offset, int(raw_type[0]))
        data = [i + len(parts) for i in vidx]
        parts += vparts
        return parts, data

    def contents(self, index_or_slice: Union[int, slice] = slice(None)) -> Any:
        """The value: a Python scalar or str; for arrays the list of elements (flattened
        for arrays of arrays), or one element for an int index — as gguf-py's contents()."""
        if not self.types:
            return None
        main = self.types[0]
        nested = main == GGUFValueType.ARRAY and len(self.types) > 1 and self.types[1] == GGUFValueType.ARRAY
        if self._key is not None and self._reader is not None and not nested:
            value = self._reader._file._value(self._key)
            if main != GGUFValueType.ARRAY:
                return value
            if isinstance(value, list):  # strings
                return value[index_or_slice]
            return value[index_or_slice].tolist()
        # arrays of arrays (and fields made by hand): gguf-py's walk over the parts
        if main == GGUFValueType.ARRAY:
            sub = self.types[-1]
            if isinstance(index_or_slice, int):
                one = self.parts[self.data[index_or_slice]]
                return str(one.tobytes(), encoding="utf-8") if sub == GGUFValueType.STRING else one.tolist()[0]
            idxs = self.data[index_or_slice]
            if sub == GGUFValueType.STRING:
                return [str(self.parts[i].tobytes(), encoding="utf-8") for i in idxs]
            return [v for i in idxs for v in self.parts[i].tolist()]
        if main == GGUFValueType.STRING:
            return str(self.parts[-1].tobytes(), encoding="utf-8")
        return self.parts[-1].tolist()[0]

    def __repr__(self) -> str:
        return f"ReaderField(offset={self.offset}, name={self.name!r}, types={self.types!r})"


class ReaderTensor(NamedTuple):
    name: str
    tensor_type: GGMLQuantizationType
    shape: npt.NDArray[np.uint64]
    n_elements: int
    n_bytes: int
    data_offset: int
    data: npt.NDArray[Any]
    field: ReaderField


class GGUFReader:
    """gguf-py's GGUFReader over ggufkit (see the module's docstring)."""

    byte_order: Literal["I", "S"] = "I"
    alignment: int = 32
    data_offset: int
    gguf_scalar_to_np = _SCALAR_NP

    def __init__(self, path: Any, mode: Literal["r", "r+", "c"] = "r") -> None:
        # gguf-py raises FileNotFoundError for a missing file and ValueError for one that is
        # not GGUF: the errors here are both GGUFError and those (issue 29, item 18)
        try:
            self._file = _core.File(path)
        except GGUFError as e:
            if e.code == "io_error" and not os.path.exists(os.fspath(path)):
                raise GGUFFileNotFoundError(str(e), e.code, e.offset, e.key, e.tensor, e.detail) from None
            if e.code != "io_error":
                raise GGUFValueError(str(e), e.code, e.offset, e.key, e.tensor, e.detail) from None
            raise
        f = self._file
        if f.version < 2:  # 32-bit counts and lengths: gguf-py reads versions 2 and 3 only
            raise GGUFValueError(f"{f.path}: GGUF version {f.version}: GGUFReader reads versions 2 and 3",
                                 "unsupported_version")
        self.data = f.buffer if mode == "r" else np.memmap(f.path, mode=mode)
        host_little = sys.byteorder == "little"
        file_little = f.byte_order == "little"
        self.byte_order = "I" if host_little == file_little else "S"
        self.endianess = GGUFEndian.LITTLE if file_little else GGUFEndian.BIG
        self.alignment = f.alignment
        self.data_offset = f.data_offset
        self.fields: OrderedDict[str, ReaderField] = OrderedDict()
        self.tensors: list[ReaderTensor] = []
        version = self._get(4, np.uint32)
        counts = self._get(8, np.uint64, 2)
        self.fields["GGUF.version"] = ReaderField(4, "GGUF.version", [version], [0], [GGUFValueType.UINT32])
        self.fields["GGUF.tensor_count"] = ReaderField(8, "GGUF.tensor_count", [counts[:1]], [0], [GGUFValueType.UINT64])
        self.fields["GGUF.kv_count"] = ReaderField(16, "GGUF.kv_count", [counts[1:]], [0], [GGUFValueType.UINT64])
        for key, koff, _vtype, voff in f._kv_layout():
            self.fields[key] = ReaderField(koff, key, None, None, [GGUFValueType(t) for t in f._types(key)],
                                           reader=self, value_offset=voff, key=key)
        for name, info_off, type_id, rel, nbytes in f._tensor_layout():
            self.tensors.append(self._tensor(name, info_off, GGMLQuantizationType(type_id), rel, nbytes))

    def get_field(self, key: str) -> Union[ReaderField, None]:
        """The field named `key`, or None."""
        return self.fields.get(key, None)

    def get_tensor(self, idx: int) -> ReaderTensor:
        """Tensor number `idx` (file order)."""
        return self.tensors[idx]

    def _get(self, offset: int, dtype: Any, count: int = 1,
             override_order: None | Literal["I", "S", "<"] = None) -> npt.NDArray[Any]:
        count = int(count)
        itemsize = int(np.empty([], dtype=dtype).itemsize)
        arr = self.data[offset:offset + itemsize * count].view(dtype=dtype)[:count]
        return arr.view(arr.dtype.newbyteorder(self.byte_order if override_order is None else override_order))

    def _get_str(self, offset: int) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
        slen = self._get(offset, np.uint64)
        return slen, self._get(offset + 8, np.uint8, slen[0])

    def _value_parts(self, offset: int, raw_type: int) -> tuple[int, list[npt.NDArray[Any]], list[int]]:
        """(size in bytes, parts, data indices) of a value of type `raw_type` at `offset`."""
        t = GGUFValueType(raw_type)
        if t == GGUFValueType.STRING:
            strs = list(self._get_str(offset))
            return sum(int(p.nbytes) for p in strs), strs, [1]
        np_type = _SCALAR_NP.get(t)
        if np_type is not None:
            v = self._get(offset, np_type)
            return int(v.nbytes), [v], [0]
        itype = self._get(offset, np.uint32)
        alen = self._get(offset + 4, np.uint64)
        pos = offset + 12
        parts: list[npt.NDArray[Any]] = [itype, alen]
        idxs: list[int] = []
        for _ in range(int(alen[0])):
            size, sub, sub_idx = self._value_parts(pos, int(itype[0]))
            idxs += [i + len(parts) for i in sub_idx]
            parts += sub
            pos += size
        return pos - offset, parts, idxs

    def _tensor(self, name: str, info_off: int, ggml_type: Any, rel: int, n_bytes: int) -> ReaderTensor:
        name_len, name_data = self._get_str(info_off)
        pos = info_off + 8 + int(name_len[0])
        n_dims = self._get(pos, np.uint32)
        dims = self._get(pos + 4, np.uint64, n_dims[0])
        pos += 4 + int(dims.nbytes)
        raw_dtype = self._get(pos, np.uint32)
        offset_tensor = self._get(pos + 4, np.uint64)
        field = ReaderField(info_off, name, [name_len, name_data, n_dims, dims, raw_dtype, offset_tensor], [1, 3, 4, 5])
        n_elems = 1
        for d in dims.tolist():
            n_elems *= int(d)
        np_dims = tuple(reversed(dims.tolist()))
        data_offs = int(self.data_offset + rel)
        item = _ELEMENT_NP.get(ggml_type)
        if item is not None:
            data = self._get(data_offs, item, n_elems)
        else:
            block, size = GGML_QUANT_SIZES[ggml_type]
            np_dims = (*np_dims[:-1], np_dims[-1] // block * size)
            data = self._get(data_offs, np.uint8, n_bytes)
        return ReaderTensor(name=name, tensor_type=ggml_type, shape=dims, n_elements=n_elems, n_bytes=n_bytes,
                            data_offset=data_offs, data=data.reshape(np_dims), field=field)
