"""Helpers for the tests of the NumPy-namespace functions (issue 35): evaluate on the
reference VM (no rewrites) and with FAST_RUN, and compare with NumPy."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

import theon
from theon.graph.basic import Variable

EXTREMES = np.array([0.0, -0.0, 1.0, -1.0, 1e-300, -1e-300, 1e300, -1e300, np.inf, -np.inf,
                     np.nan, 0.5, -2.5, 3.0])


def evaluate(inputs: Sequence[Variable], outputs: Any, *values: Any,
             mode: str = "REFERENCE") -> Any:
    """Compile with ``mode`` and call once (NumPy's warnings silenced)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        f = theon.function(list(inputs), outputs, mode=mode, on_unused_input="ignore")
        return f(*values)


def check(inputs: Sequence[Variable], out: Any, values: Sequence[Any], ref: Any,
          rtol: float = 0.0, atol: float = 0.0, modes: Sequence[str] = ("REFERENCE",
                                                                       "FAST_RUN")) -> None:
    """``out`` equals ``ref`` (NumPy's result) in value, dtype and shape, nan where it
    has nan, on each mode; exactly unless a tolerance is given."""
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    refs = list(ref) if isinstance(ref, (list, tuple)) else [ref]
    assert len(outs) == len(refs)
    for mode in modes:
        got = evaluate(inputs, outs, *values, mode=mode)
        for g, r, o in zip(got, refs, outs):
            r = np.asarray(r)
            g = np.asarray(g)
            assert g.shape == r.shape, (mode, g.shape, r.shape)
            assert g.dtype == r.dtype, (mode, g.dtype, r.dtype)
            assert o.type.dtype == str(r.dtype), (o.type, r.dtype)
            if rtol or atol:
                np.testing.assert_allclose(g, r, rtol=rtol, atol=atol, equal_nan=True,
                                           err_msg=mode)
            else:
                np.testing.assert_array_equal(g, r, err_msg=mode)


def check_shape(out: Variable, inputs: Sequence[Variable], values: Sequence[Any]) -> None:
    """The shape graph of ``out`` (what shape queries compute, rewritten) equals the
    shape of its value."""
    real = np.shape(evaluate(inputs, out, *values))
    shp = evaluate(inputs, out.shape, *values, mode="FAST_RUN")
    assert tuple(int(s) for s in shp) == real
