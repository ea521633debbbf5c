"""ggufkit.quantize_rows and Tensor.quantize: ggml's row quantization.

The fixture quant/quant-fixture.gguf holds src (512x24 float32) and q.<type>, src
quantized by ggml's ggml_quantize_chunk without importance weights: quantizing src must
give those bytes exactly (the types ggml quantizes without an imatrix)."""
import numpy as np
import pytest

import ggufkit
from conftest import DATA

FIXTURE = DATA / "quant/quant-fixture.gguf"


def fixture_types():
    if not FIXTURE.is_file():
        return []
    f = ggufkit.open(FIXTURE)
    names = [t.name[2:] for t in f.tensors if t.name.startswith("q.")]
    return [n for n in names if not ggufkit.quantize_requires_imatrix(n)]


# iq1_s / iq1_m sort each block's values with the C library's qsort and a comparator of the
# value only, as ggml does (docs/quant.md): where values tie, the order (and so the bytes)
# is that of the qsort of the libc that made the fixture. Rows with ties are compared only
# when they agree; a difference there is reported as a skip that says so.
QSORT_TIE_TYPES = {"iq1_s", "iq1_m"}


def rows_with_ties(x):
    """Rows of `x` in which two nonzero values have the same magnitude."""
    rows = []
    for i, row in enumerate(x.reshape(-1, x.shape[-1])):
        nz = np.abs(row[row != 0])
        if np.unique(nz).size != nz.size:
            rows.append(i)
    return rows


@pytest.mark.parametrize("qtype", fixture_types())
def test_quantize_equals_ggml_on_the_fixture(data, qtype):
    f = ggufkit.open(FIXTURE)
    src = f.tensor("src")
    want = f.tensor("q." + qtype).data
    got = ggufkit.quantize_rows(src.dequantize(), qtype)
    assert got.dtype == np.uint8
    assert got.shape[:-1] == src.shape[:-1]
    assert src.quantize(qtype).tobytes() == got.tobytes()
    if qtype not in QSORT_TIE_TYPES:
        assert got.tobytes() == want.tobytes()
        return
    want_rows = want.reshape(got.shape)
    ties = rows_with_ties(src.dequantize())
    differ = [i for i in range(got.shape[0]) if got[i].tobytes() != want_rows[i].tobytes()]
    assert not set(differ) - set(ties), f"{qtype}: rows without ties differ from ggml: {sorted(set(differ) - set(ties))}"
    if differ:
        pytest.skip(f"{qtype}: rows {differ} of the fixture have values of equal magnitude and differ from the "
                    f"fixture's bytes: iq1_s/iq1_m order ties as the C library's qsort does (docs/quant.md), so these "
                    f"rows depend on the libc; the other {got.shape[0] - len(differ)} rows are identical")


def test_shapes_and_round_trip():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((3, 2, 256)).astype(np.float32)
    q = ggufkit.quantize_rows(x, "Q8_0")  # names are case-insensitive
    assert q.shape == (3, 2, 8 * 34)
    q1 = ggufkit.quantize_rows(x.reshape(-1)[:256], 8)  # an id works too; 1-D is one row
    assert q1.shape == (272,) and q1.tobytes() == q[0, 0].tobytes()
    # float64 input is converted to float32 first
    assert ggufkit.quantize_rows(x.astype(np.float64), "q8_0").tobytes() == q.tobytes()
    w = rng.random(256).astype(np.float32) + 0.1
    a = ggufkit.quantize_rows(x, "q4_K", imatrix=w)
    b = ggufkit.quantize_rows(x, "q4_K")
    assert a.shape == b.shape == (3, 2, 144) and a.tobytes() != b.tobytes()  # the weights matter


def test_requires_imatrix_and_errors():
    x = np.ones((1, 256), np.float32)
    for t in ("iq2_xxs", "iq2_xs", "iq1_s"):
        assert ggufkit.quantize_requires_imatrix(t)
        with pytest.raises(ggufkit.GGUFError) as e:
            ggufkit.quantize_rows(x, t)
        assert e.value.code == "invalid_argument"
        assert ggufkit.quantize_rows(x, t, imatrix=np.ones(256, np.float32)).shape[-1] > 0
    with pytest.raises(ggufkit.GGUFError) as e:
        ggufkit.quantize_rows(np.ones((1, 48), np.float32), "q4_0")
    assert e.value.code == "partial_block"
    with pytest.raises(ggufkit.GGUFError) as e:
        ggufkit.quantize_rows(x, "q8_K")
    assert e.value.code == "unsupported"
    assert not ggufkit.can_quantize("q8_1") and ggufkit.can_quantize("iq4_xs")
    with pytest.raises(ggufkit.GGUFError) as e:
        ggufkit.quantize_rows(x, "q9_9")
    assert e.value.code == "invalid_ggml_type"
    with pytest.raises(ValueError):
        ggufkit.quantize_rows(x, "q4_K", imatrix=np.ones(255, np.float32))
