"""theon.tensor.type_other: the types of None and of slices as graph values."""

from __future__ import annotations

import pytest

import theon
import theon.tensor as tt
from theon.graph.basic import Constant
from theon.tensor.type_other import NoneConst, NoneTypeT, SliceType, slicetype


def test_none_const_is_exported_by_theon_tensor() -> None:
    assert tt.NoneConst is NoneConst and isinstance(NoneConst.type, NoneTypeT)
    assert NoneConst.data is None


def test_slice_type_holds_slices() -> None:
    s = slice(1, None, 2)
    assert slicetype.filter(s) is s and slicetype.is_valid_value(s)
    with pytest.raises(TypeError, match="holds slices, got int 3"):
        slicetype.filter(3)
    assert SliceType() == slicetype and SliceType() != NoneTypeT()
    assert str(slicetype) == "slice"


def test_slice_values_pass_through_a_function() -> None:
    v = slicetype("s")
    f = theon.function([v], v)
    assert f(slice(0, 4)) == slice(0, 4)
    c = Constant(slicetype, slice(None, 2))
    assert theon.function([], c)() == slice(None, 2)
