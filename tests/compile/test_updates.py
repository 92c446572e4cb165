"""theon.compile.updates.OrderedUpdates (PyTensor's ``pytensor.updates``)."""

from __future__ import annotations

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.compile.updates import OrderedUpdates


def test_keys_must_be_shared_variables() -> None:
    a = theon.shared(np.zeros(2), name="a")
    u = OrderedUpdates([(a, a + 1)])
    assert list(u) == [a]
    with pytest.raises(TypeError, match="must be a shared variable"):
        OrderedUpdates([(tt.dvector("x"), a)])
    with pytest.raises(TypeError, match="must be a shared variable"):
        u[tt.dscalar("s")] = a


def test_union_keeps_the_order_and_refuses_two_values() -> None:
    a, b, c = (theon.shared(float(k), name=n) for k, n in enumerate("abc"))
    u = OrderedUpdates([(b, b * 2)])
    v = OrderedUpdates([(a, a + 1), (c, c - 1)])
    w = u + v
    assert isinstance(w, OrderedUpdates) and [k.name for k in w] == ["b", "a", "c"]
    assert [k.name for k in {a: a + 3} + u] == ["a", "b"]  # __radd__ from a plain dict
    same = u[b]
    u.update({b: same})  # the same new value again is fine
    with pytest.raises(KeyError, match="two new values for b"):
        u.update({b: b * 3})
    u.update(None)
    assert len(u) == 1


def test_function_applies_them_in_order() -> None:
    a = theon.shared(np.array([1.0, 2.0]), name="a")
    n = theon.shared(np.int64(0), name="n")
    f = theon.function([], a.sum(), updates=OrderedUpdates([(a, a * 2), (n, n + 1)]))
    assert f() == 3.0 and f() == 6.0
    np.testing.assert_array_equal(a.get_value(), [4.0, 8.0])
    assert n.get_value() == 2
    assert theon.OrderedUpdates is OrderedUpdates
    import importlib

    assert importlib.import_module("theon.updates").OrderedUpdates is OrderedUpdates
