"""Shared helpers for the py-linker tests: compile with both linkers, compare results."""

from __future__ import annotations

import warnings

import numpy as np

from theon.graph.fg import FunctionGraph
from theon.link.pyfunc import PyLinker
from theon.link.vm import VMLinker


def runners(ins, outs, float_path=True):
    """(py runner, reference VM runner) for the graph ``ins -> outs``."""
    fg = FunctionGraph(ins, outs)
    return PyLinker(float_path=float_path).make_function(fg), VMLinker().make_function(fg)


def call(f, args):
    """``f(*args)``, or the exception it raised (warnings silenced: only values matter)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return f(*args)
        except Exception as e:  # compared between linkers
            return e


def ulp_diff(a, b):
    """Distance in units of the last place between two float arrays (nan == nan)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    both_nan = np.isnan(a) & np.isnan(b)
    same = (a == b) | both_nan
    with np.errstate(all="ignore"):
        d = np.abs(a - b) / np.spacing(np.maximum(np.abs(a), np.abs(b)))
    d = np.where(same, 0.0, d)
    return float(np.max(d, initial=0.0))


def assert_same(got, want, maxulp=0, where="", rtol=0.0):
    """Equal results: same exception type, or the same types, dtypes, shapes and values.

    Zeros must agree in sign.  ``maxulp`` allows float rounding differences (for
    Python's ``math`` versus NumPy's transcendental functions); ``rtol`` allows
    more, for chains of such functions where cancellation magnifies them.
    """
    if isinstance(want, Exception) or isinstance(got, Exception):
        assert type(got) is type(want), f"{where}: py gave {got!r}, the VM gave {want!r}"
        return
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        msg = f"{where} output {k}: py {g!r}, VM {w!r}"
        assert type(g) is type(w), msg
        if isinstance(w, np.ndarray) or isinstance(w, np.generic):
            assert g.dtype == w.dtype and np.shape(g) == np.shape(w), msg
            if w.dtype.kind in "fc":
                if rtol and w.dtype.kind == "f":
                    scale = np.max(np.abs(w[np.isfinite(w)]), initial=1.0)
                    assert np.allclose(g, w, rtol=rtol, atol=rtol * scale, equal_nan=True), msg
                elif maxulp and w.dtype.kind == "f":
                    assert ulp_diff(g, w) <= maxulp, msg
                else:
                    assert np.array_equal(g, w, equal_nan=True), msg
                zero = np.asarray(w == 0)
                if rtol:  # rounding may turn an exact zero into a tiny number
                    zero = zero & np.asarray(g == 0)
                g_sign, w_sign = np.signbit(np.real(g)), np.signbit(np.real(w))
                assert np.array_equal(g_sign[zero], w_sign[zero]), msg
            else:
                assert np.array_equal(g, w), msg
        else:
            assert g == w, msg
