"""``add_diag`` (AddDiag's kernel) on every memory layout, against NumPy."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.mark.parametrize("layout", ["C", "F", "strided"])
@pytest.mark.parametrize("inplace", [False, True])
def test_add_diag_every_layout(layout: str, inplace: bool) -> None:
    from theon.tensor.alloc_diag import add_diag

    rng = np.random.default_rng(2)
    base = rng.normal(size=(6, 12))
    x = {"C": np.ascontiguousarray(base[:, :6]), "F": np.asfortranarray(base[:, :6]),
         "strided": base[:, ::2]}[layout]
    v = rng.normal(size=6)
    want = x + np.diag(v)
    x0 = x.copy()
    got = add_diag(x, v, inplace)
    np.testing.assert_array_equal(got, want)
    if inplace:
        assert np.shares_memory(got, x)
    else:
        np.testing.assert_array_equal(x, x0)
