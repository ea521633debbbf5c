"""ggufkit.quantize (a whole model): the same bytes as llama-quantize (the cases recorded by
scripts/record-quantize.sh in tests/model/data/quantize_cases.tsv), the dry run's sizes,
the refusals."""
import hashlib
from pathlib import Path

import pytest

import ggufkit

ROOT = Path(__file__).resolve().parents[2]


def recorded(name: str) -> tuple[str, int]:
    for line in (ROOT / "tests/model/data/quantize_cases.tsv").read_text().splitlines():
        cols = line.split("\t")
        if cols[0] == name:
            digest, size = cols[3].split(" ")[1].split(":")
            return digest, int(size)
    raise KeyError(name)


@pytest.mark.parametrize("ftype", ["Q8_0", "Q4_0", "Q5_1", "F16", "TQ2_0"])
def test_quantize_matches_llama_quantize(data, tmp_path, ftype):
    digest, size = recorded(f"stories-{ftype}")
    out = tmp_path / "out.gguf"
    plan = ggufkit.quantize(data / "models/stories260K.gguf", out, ftype, nthread=1, dry_run=True)
    assert plan["file_sizes"] == [size]
    assert not out.exists()
    plan = ggufkit.quantize(data / "models/stories260K.gguf", out, ftype, nthread=3)
    assert hashlib.sha256(out.read_bytes()).hexdigest() == digest
    assert plan["paths"] == [str(out)]


def test_quantize_refusals(data, tmp_path):
    out = tmp_path / "out.gguf"
    with pytest.raises(ggufkit.GGUFError, match="requantizing"):
        ggufkit.quantize(data / "models/stories260K-Q8_0.gguf", out, "Q4_0")
    with pytest.raises(ggufkit.GGUFError, match="unknown file type"):
        ggufkit.quantize(data / "models/stories260K.gguf", out, "Q9_X")
    assert not out.exists()
    out.write_bytes(b"keep")
    with pytest.raises(ggufkit.GGUFError, match="force"):
        ggufkit.quantize(data / "models/stories260K.gguf", out, "Q8_0")
    assert out.read_bytes() == b"keep"
    ggufkit.quantize(data / "models/stories260K.gguf", out, "Q8_0", force=True)
    assert hashlib.sha256(out.read_bytes()).hexdigest() == recorded("stories-Q8_0")[0]
