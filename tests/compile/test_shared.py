"""Shared variables: values, filtering, the constructor registry, default updates."""

import pickle

import numpy as np
import pytest

import theon
from theon.compile.sharedvalue import (
    Container,
    SharedVariable,
    generic_constructor,
    shared_constructor,
)
from theon.graph.type import Generic

from .toy import iadd, it


def test_generic_shared_copies_value_by_default():
    data = {"a": [1, 2]}
    s = theon.shared(data, name="d")
    assert s.type == Generic() and s.name == "d"
    data["a"].append(3)
    assert s.get_value() == {"a": [1, 2]}
    v = s.get_value()
    v["a"].append(9)
    assert s.get_value() == {"a": [1, 2]}  # get_value gives a copy
    assert s.get_value(borrow=True) is s.get_value(borrow=True)


def test_generic_shared_borrow_keeps_object():
    data = [1]
    s = theon.shared(data, borrow=True)
    assert s.get_value(borrow=True) is data
    new = [5]
    s.set_value(new, borrow=True)
    assert s.get_value(borrow=True) is new
    s.set_value(new)
    assert s.get_value(borrow=True) is not new and s.get_value() == [5]


def test_set_value_filters_and_names_variable():
    s = SharedVariable("counter", it, 3)
    s.set_value(4.0)  # exact cast
    assert s.get_value() == 4 and isinstance(s.get_value(), int)
    with pytest.raises(TypeError, match="'counter'.*2.5|2.5.*'counter'"):
        s.set_value(2.5)
    assert s.get_value() == 4
    with pytest.raises(TypeError, match="shared variable 'x'"):
        SharedVariable("x", it, "a")


def test_shared_rejects_symbolic_values():
    x = it("x")
    with pytest.raises(TypeError, match="'x'"):
        theon.shared(x)


def test_registry_is_tried_newest_first_and_declines_fall_through():
    seen = []

    @shared_constructor
    def only_tuples(value, name=None, strict=False, allow_downcast=None, borrow=False,
                    shape=None, **kw):
        seen.append(value)
        if not isinstance(value, tuple):
            raise TypeError("not a tuple")
        return SharedVariable(name, it, len(value), strict, allow_downcast)

    try:
        s = theon.shared((1, 2, 3), name="t")
        assert s.type == it and s.get_value() == 3
        g = theon.shared("text")  # declined, falls back to Generic
        assert g.type == Generic() and g.get_value() == "text"
        assert seen == [(1, 2, 3), "text"]
    finally:
        shared_constructor(only_tuples, remove=True)
    assert theon.shared((1, 2)).type == Generic()


def test_no_constructor_gives_clear_error():
    with pytest.raises(TypeError, match="no shared-variable constructor.*'w'.*shape"):
        theon.shared(object(), name="w", shape=(3,))
    assert generic_constructor in theon.compile.sharedvalue._CONSTRUCTORS


def test_clone_shares_container():
    s = theon.shared([1], name="s")
    c = s.clone()
    assert c is not s and c.container is s.container and c.type == s.type
    c.set_value([2])
    assert s.get_value() == [2]


def test_shared_variable_pickles_with_value_and_default_update():
    s = SharedVariable("n", it, 5)
    s.default_update = iadd(s, 1)
    s.tag.unpicklable = lambda: None
    s2 = pickle.loads(pickle.dumps(s))
    assert s2.get_value() == 5 and s2.name == "n" and s2.type == it
    assert not hasattr(s2.tag, "unpicklable")
    assert s2.default_update.owner.inputs[0] is s2
    f = theon.function([], s2)
    assert [f(), f()] == [5, 6]
    assert s.get_value() == 5  # the original is independent


def test_container_value_filters():
    c = Container(it, 1, name="c")
    c.value = 2.0
    assert c.storage == [2]
    with pytest.raises(TypeError):
        c.value = 1.5
    d = c.copy()
    assert d.storage is not c.storage and d.value == 2


def test_zero_resets_array_values():
    s = theon.compile.sharedvalue.SharedVariable("a", Generic(), np.arange(3.0))
    s.zero()
    assert np.array_equal(s.get_value(), np.zeros(3))
