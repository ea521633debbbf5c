"""Issue 29, the Python items: edit() refuses what the command line refuses (item 6), its
hints and overwrite policy (items 9, 10), readers of an interrupted edit (item 3), and
errors as gguf-py raises them (item 18). Each test failed before its fix."""
import shutil
import subprocess
import warnings

import pytest

import ggufkit
from ggufkit.compat import GGUFReader


def copy(data, tmp_path, rel="models/stories260K.gguf", name="m.gguf"):
    dst = tmp_path / name
    shutil.copyfile(data / rel, dst)
    dst.chmod(0o644)
    return dst


def test_item6_edit_refuses_what_the_cli_refuses_unless_forced(data, tmp_path):
    p = copy(data, tmp_path)
    before = p.read_bytes()
    with pytest.raises(ggufkit.GGUFError, match="force=True"):
        ggufkit.edit(p, remove=["general.architecture"])
    assert p.read_bytes() == before
    ggufkit.edit(p, remove=["general.architecture"], force=True)
    assert "general.architecture" not in ggufkit.open(p).metadata


def test_item6_a_string_remove_is_one_key(data, tmp_path):
    p = copy(data, tmp_path)
    ggufkit.edit(p, remove="general.name")
    assert "general.name" not in ggufkit.open(p).metadata


def test_item6_an_open_file_keeps_working_after_an_edit(data, tmp_path):
    p = copy(data, tmp_path)
    f = ggufkit.open(p)
    name = f.metadata["general.name"]
    rep = ggufkit.edit(p, set={"general.name": "x"})  # would fit in place
    assert not rep["in_place"], "a file open in this process is rewritten, not edited under its mapping"
    assert f.metadata["general.name"] == name
    assert f.tensor("token_embd.weight").dequantize().shape == (512, 64)
    assert ggufkit.open(p).metadata["general.name"] == "x"
    del f
    import gc
    gc.collect()
    assert ggufkit.edit(p, set={"general.name": "y"})["in_place"]


def test_item9_an_existing_out_needs_force(data, tmp_path):
    src = data / "models/stories260K.gguf"
    out = tmp_path / "out.gguf"
    out.write_bytes(b"precious")
    with pytest.raises(ggufkit.GGUFError, match="force=True"):
        ggufkit.edit(src, set={"general.name": "x"}, out=out)
    assert out.read_bytes() == b"precious"
    ggufkit.edit(src, set={"general.name": "x"}, out=out, force=True)
    assert ggufkit.open(out).metadata["general.name"] == "x"


def test_item10_hints_name_python_options(data, tmp_path):
    p = copy(data, tmp_path)
    (tmp_path / "link.gguf").hardlink_to(p)
    with pytest.raises(ggufkit.GGUFError) as e:
        ggufkit.edit(p, set={"general.name": "a much longer name " * 100})  # does not fit: a rewrite
    assert "break_links=True" in str(e.value) and "--break-links" not in str(e.value)
    ggufkit.edit(p, set={"general.name": "a much longer name " * 100}, break_links=True)


def test_item3_an_interrupted_edit_is_read_without_writing(data, tmp_path, cli):
    done = copy(data, tmp_path, name="done.gguf")
    subprocess.run([str(cli), "set", str(done), "general.name", "journaled", "--in-place=always"], check=True,
                   capture_output=True)
    p = copy(data, tmp_path, name="a.gguf")
    region = done.read_bytes()[:ggufkit.open(done).data_offset]
    import os  # the journal layout of docs/format.md
    import struct
    st = os.stat(p)
    fields = [st.st_dev, st.st_ino, st.st_size, 0, len(region)]
    h = 0xcbf29ce484222325
    for b in b"GGUFJRN1" + struct.pack("<5Q", *fields) + region:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    (tmp_path / ".a.gguf.gguf-journal").write_bytes(b"GGUFJRN1" + struct.pack("<6Q", *fields, h) + region)
    before = p.read_bytes()
    p.chmod(0o444)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        f = ggufkit.open(p)
    assert any("awaits a writer" in str(x.message) for x in w)
    assert f.metadata["general.name"] == "journaled"
    assert p.read_bytes() == before


def test_item18_token_to_piece_raises_outside_the_vocabulary(data):
    v = ggufkit.Vocab(data / "models/stories260K.gguf")
    with pytest.raises(ggufkit.GGUFError):
        v.token_to_piece(v.n_tokens)
    with pytest.raises(ggufkit.GGUFError):
        v.token_to_piece(-1)
    assert isinstance(v.token_to_piece(v.n_tokens - 1), str)  # the last id is still inside


def test_item18_compat_raises_what_gguf_py_raises(data, tmp_path):
    with pytest.raises(FileNotFoundError):
        GGUFReader(tmp_path / "missing.gguf")
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"NOTGGUF" + bytes(100))
    with pytest.raises(ValueError) as e:
        GGUFReader(bad)
    assert str(bad) in str(e.value), "the error names the file"
    assert isinstance(e.value, ggufkit.GGUFError)


def test_item18_model_of_a_shard_reads_the_whole_model(data, tmp_path, cli):
    src = copy(data, tmp_path)
    subprocess.run([str(cli), "split", str(src), str(tmp_path / "s"), "--split-max-tensors", "20"], check=True,
                   capture_output=True)
    whole = ggufkit.Model(src).embed("Hello")
    shard = ggufkit.Model(tmp_path / "s-00002-of-00003.gguf").embed("Hello")
    assert (whole == shard).all()
