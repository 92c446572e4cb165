"""Tensor shared variables: the constructor registered with theon.shared."""

from __future__ import annotations

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.compile.sharedvalue import SharedVariable, shared
from theon.graph.type import Generic


def test_array_gives_tensor_shared_variable() -> None:
    v = np.arange(6.0).reshape(2, 3)
    w = shared(v, name="w")
    assert isinstance(w, tt.TensorSharedVariable) and isinstance(w, SharedVariable)
    assert w.type == tt.dmatrix
    v[0, 0] = 100.0
    assert w.get_value()[0, 0] == 0.0  # copied unless borrow=True
    b = shared(v, borrow=True)
    assert b.get_value(borrow=True) is v


def test_numbers_and_numpy_scalars() -> None:
    assert shared(1.5).type == tt.dscalar
    assert shared(3).type == tt.lscalar
    assert shared(np.float32(2.0)).type == tt.fscalar
    assert shared(True).type.dtype == "bool"


def test_static_shape_and_dtype() -> None:
    s = shared(np.zeros((1, 3)), shape=(1, None))
    assert s.type.shape == (1, None)
    assert shared(np.zeros(2), dtype="float32").type == tt.fvector
    assert shared(np.zeros((1, 2)), broadcastable=(True, False)).type.shape == (1, None)


def test_set_value_filtered() -> None:
    s = shared(np.zeros(3), name="s")
    s.set_value([1, 2])  # exact conversion, new length allowed
    np.testing.assert_array_equal(s.get_value(), [1.0, 2.0])
    with pytest.raises(TypeError, match="'s'"):
        s.set_value(np.zeros((2, 2)))
    f = shared(np.zeros(2, dtype="float32"), name="f")
    with pytest.raises(TypeError):
        f.set_value(np.zeros(2))  # float64 -> float32 loses precision


def test_other_values_stay_generic() -> None:
    assert shared([1, 2]).type == Generic()
    assert shared({"a": 1}).type == Generic()
    assert shared(np.array(["a"])).type == Generic()


def test_operators_and_function() -> None:
    w = shared(np.ones(3), name="w")
    x = tt.dvector("x")
    f = theon.function([x], (w * x).sum(), updates=[(w, w + 1.0)])
    assert f(np.arange(3.0)) == 3.0
    np.testing.assert_array_equal(w.get_value(), [2.0, 2.0, 2.0])
    assert f(np.arange(3.0)) == 6.0
    assert (w.T + 1).type == tt.dvector
