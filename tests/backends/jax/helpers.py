"""Shared helpers of the JAX-mode tests: run a graph with the JAX linker and the
reference VM, and compare (dtype and shape exactly, values within rounding)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from theon.graph.fg import FunctionGraph
from theon.link.jax import JAXLinker
from theon.link.vm import VMLinker

#: relative tolerance per float dtype: XLA's transcendental functions are not NumPy's,
#: both are within a few ulp of the exact value
RTOL = {"float64": 1e-11, "float32": 2e-5, "float16": 2e-3, "complex128": 1e-11,
        "complex64": 2e-5}


def run_both(ins: list[Any], outs: list[Any], values: list[Any]) -> tuple[Any, Any]:
    """(JAX linker's outputs or exception, VM's outputs or exception) on ``values``."""
    fg = FunctionGraph(ins, outs)
    res = []
    for linker in (JAXLinker(), VMLinker()):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                res.append(linker.make_function(fg)(*values))
            except Exception as e:
                res.append(e)
    return res[0], res[1]


def assert_close(got: Any, want: Any, where: str = "") -> None:
    """Same dtypes and shapes; values equal (ints, bools) or within RTOL (floats)."""
    assert not isinstance(want, Exception), f"{where}: the VM raised {want!r}"
    assert not isinstance(got, Exception), f"{where}: JAX raised {got!r}"
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        msg = f"{where} output {k}: JAX {g!r}, VM {w!r}"
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, msg
        if w.dtype.kind in "fc":
            rtol = RTOL[w.dtype.name]
            finite = np.isfinite(w)
            scale = np.max(np.abs(w[finite]), initial=1.0) if w.size else 1.0
            np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol * scale * 1e-3,
                                       equal_nan=True, err_msg=msg)
        else:
            np.testing.assert_array_equal(g, w, err_msg=msg)
