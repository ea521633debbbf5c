"""The Python package's defect hunt (notes/hunt-py.md), items 4, 7, 9, 10, 11, 12, 13: each
test failed before its fix (a crash, pybind11's internal RuntimeError, an empty help(), a
TypeError where a Mapping gives KeyError, a message without the key or URL)."""
import ast
import inspect
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import ggufkit
from ggufkit import _core

MODEL = "models/stories260K.gguf"
CLASSES = sorted((v for v in vars(_core).values() if isinstance(v, type)), key=lambda c: c.__name__)


def copy(data, tmp_path):
    dst = tmp_path / "m.gguf"
    shutil.copyfile(data / MODEL, dst)
    dst.chmod(0o644)
    return dst


# --- item 10: Metadata is a Mapping for any key ---------------------------------------

@pytest.mark.parametrize("key", [1, None, b"general.name", 1.5, ("general.name",)])
def test_item10_metadata_keys_of_another_type_are_absent(data, key):
    md = ggufkit.open(data / MODEL).metadata
    assert md.get(key, "d") == "d"
    assert key not in md
    with pytest.raises(KeyError):
        md[key]
    with pytest.raises(KeyError):
        md.type(key)
    assert md.get("general.name") == md["general.name"]  # str keys unchanged
