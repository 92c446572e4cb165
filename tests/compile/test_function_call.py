"""Function's generated call: every compiled function is a plain Function instance."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.compile.compiled import Function
from theon.compile.io import In


def test_compiled_functions_share_the_function_class():
    x, y = tt.dscalar("x"), tt.dvector("y")
    fs = [
        theon.function([x], x + 1.0),
        theon.function([x, y], x * y),
        theon.function([In(x, value=2.0)], x * 3.0),
        theon.function([], tt.constant(1.0)),
    ]
    assert all(type(f) is Function for f in fs)
    assert fs[0](1.0) == 2.0
    np.testing.assert_array_equal(fs[1](2.0, [1.0, 3.0]), [2.0, 6.0])
    np.testing.assert_array_equal(fs[1](y=[1.0], x=4.0), [4.0])
    assert fs[2]() == 6.0 and fs[2](x=1.0) == 3.0
    assert fs[3]() == 1.0


def test_argument_errors_name_the_input():
    x, y = tt.dscalar("x"), tt.dvector("y")
    f = theon.function([x, y], x * y)
    with pytest.raises(TypeError, match="missing argument 'y'"):
        f(1.0)
    with pytest.raises(TypeError, match="takes 2 arguments"):
        f(1.0, [1.0], 3)
    with pytest.raises(TypeError, match=r"bad argument 1 \(y\)"):
        f(1.0, "text")
    with pytest.raises(TypeError, match="given both by position and by keyword"):
        f(1.0, [1.0], x=2.0)


def test_changing_trust_input_regenerates_the_call():
    x = tt.dvector("x")
    f = theon.function([x], x * 2.0)
    assert "_f0" in f._call_source
    f.trust_input = True
    assert "_f0" not in f._call_source
    np.testing.assert_array_equal(f(np.ones(2)), [2.0, 2.0])


def test_a_function_is_freed_without_the_cyclic_collector():
    """The generated call reaches its Function weakly: no cycle keeps it alive."""
    x = tt.dscalar("x")
    f = theon.function([x], x + 1.0)
    ref = weakref.ref(f)
    was = gc.isenabled()
    gc.disable()
    try:
        del f
        assert ref() is None
    finally:
        if was:
            gc.enable()
