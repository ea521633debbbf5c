from __future__ import annotations

from collections import OrderedDict
from enum import IntEnum
from typing import Any, Literal, NamedTuple, Union

import numpy as np
import numpy.typing as npt

from ._errors import GGUFError as GGUFError

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

GGMLQuantizationType: Any  # IntEnum of ggml's type ids, gguf-py's member names (F32, Q4_K, ...)
GGML_QUANT_SIZES: dict[Any, tuple[int, int]]

class ReaderField:
    offset: int
    name: str
    types: list[GGUFValueType]
    @property
    def parts(self) -> list[npt.NDArray[Any]]: ...
    @property
    def data(self) -> list[int]: ...
    def contents(self, index_or_slice: Union[int, slice] = ...) -> Any: ...

class ReaderTensor(NamedTuple):
    name: str
    tensor_type: Any
    shape: npt.NDArray[np.uint64]
    n_elements: int
    n_bytes: int
    data_offset: int
    data: npt.NDArray[Any]
    field: ReaderField

class GGUFReader:
    byte_order: Literal["I", "S"]
    alignment: int
    data_offset: int
    endianess: GGUFEndian
    data: npt.NDArray[np.uint8]
    fields: OrderedDict[str, ReaderField]
    tensors: list[ReaderTensor]
    def __init__(self, path: Any, mode: Literal["r", "r+", "c"] = "r") -> None: ...
    def get_field(self, key: str) -> Union[ReaderField, None]: ...
    def get_tensor(self, idx: int) -> ReaderTensor: ...
