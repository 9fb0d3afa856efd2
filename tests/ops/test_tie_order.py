"""Where equal values go: sort (without stable=True), argsort, topk (sorted or not),
mode and kthvalue give equal values' positions in torch's order (NOTE [Ties in torch's
order] in csrc/kernels/scan_sort.cpp), which is not their positions' order: std::sort
keeps that only up to 16 elements, topk's partial_sort and nth_element never, and
kthvalue's quickselect swaps as it goes. A beam search over tied scores, argsort of
integers and pack_padded_sequence's sorted_indices show it.
"""

import numpy as np
import pytest

import gradtrack

SIZES = (2, 5, 16, 17, 18, 33, 64, 65, 129, 300, 1000)


def _line(lib, n, kind, seed):
    rng = np.random.default_rng(seed)
    if kind == "few_values":
        a = rng.integers(0, 4, n).astype(np.float32)
    elif kind == "nan_and_signed_zeros":
        a = rng.integers(0, 3, n).astype(np.float32)
        a[rng.random(n) < 0.2] = np.nan
        a[rng.random(n) < 0.1] = -0.0
    else:
        a = rng.integers(0, max(2, n // 3), n).astype(np.float32)
    return lib.tensor(a)


def _orders(lib, n, kind, dtype):
    t = _line(lib, n, kind, seed=n).to(getattr(lib, dtype))
    out = []
    for desc in (False, True):
        out.append(t.sort(descending=desc).indices.tolist())
        out.append(lib.argsort(t, descending=desc).tolist())
        out.append(t.view(1, -1).repeat(3, 1).t().contiguous().sort(0, descending=desc)
                   .indices[:, 1].tolist())
        for k in sorted({1, 3, max(1, n // 64), max(1, n // 2), n}):
            if k <= n:
                for sorted_ in (True, False):
                    out.append(t.topk(k, largest=desc, sorted=sorted_).indices.tolist())
    out.append(t.mode().indices.item())
    for k in sorted({1, (n + 1) // 2, n}):
        out.append(t.kthvalue(k).indices.item())
    return out


KINDS = [(kind, dtype) for kind in ("few_values", "nan_and_signed_zeros", "many_values")
         for dtype in ("float32", "float64", "int64")
         if not (dtype == "int64" and kind == "nan_and_signed_zeros")]  # ints hold no NaN


@pytest.mark.parametrize("kind,dtype", KINDS)
@pytest.mark.parametrize("n", SIZES)
def test_equal_values_in_torchs_order(torch, n, kind, dtype):
    assert _orders(gradtrack, n, kind, dtype) == _orders(torch, n, kind, dtype)


@pytest.mark.parametrize("n", [65536, 100003])
def test_a_long_line_in_torchs_order(torch, n):
    """A long float32 line is sorted torch's way at once (it almost surely holds ties);
    a long line of integers ascending is torch's radix sort: positions in order."""
    def run(lib):
        rng = np.random.default_rng(n)
        f = lib.tensor(rng.integers(0, 50, n).astype(np.float32))
        i = lib.tensor(rng.integers(0, 50, n))
        return [f.sort().indices.tolist(), f.sort(descending=True).indices.tolist(),
                f.topk(40).indices.tolist(), i.sort().indices.tolist(),
                i.sort(descending=True).indices.tolist(), i.view(1, -1).sort().indices.tolist()]
    assert run(gradtrack) == run(torch)


def test_tie_order_without_torch():
    """The orders torch gives, written out (18 elements: past std::sort's 16)."""
    y = gradtrack.tensor([2, 0, 2, 0, 1, 0, 1, 1, 1, 0, 2, 2, 0, 0, 1, 2, 0])
    assert gradtrack.sort(y).indices.tolist() == [1, 16, 13, 12, 9, 5, 3, 6, 7, 8, 4, 14,
                                                   10, 11, 2, 15, 0]
    assert gradtrack.mode(y).indices.item() == 3
    assert gradtrack.sort(y, stable=True).indices.tolist()[:7] == [1, 3, 5, 9, 12, 13, 16]
    assert gradtrack.tensor([1.0, 3, 3, 2, 3]).topk(3).indices.tolist() == [2, 4, 1]
    assert gradtrack.tensor([float("-inf")] * 6 + [0.0]).topk(3).indices.tolist() == [6, 4, 3]
