"""theon.tensor.slices: PyTensor's index-entry helpers, checked against Python's slices."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import theon
import theon.tensor as tt
from theon.tensor.exceptions import NotScalarConstantError
from theon.tensor.slices import as_index_literal, get_canonical_form_slice, is_basic_idx
from theon.tensor.type_other import NoneConst, slicetype

bound = st.one_of(st.none(), st.integers(-8, 8))
step = st.one_of(st.none(), st.integers(-4, 4).filter(lambda k: k != 0))


def test_is_basic_idx() -> None:
    assert is_basic_idx(slice(None)) and is_basic_idx(None) and is_basic_idx(NoneConst)
    assert is_basic_idx(slicetype("s"))
    assert not is_basic_idx(3) and not is_basic_idx(tt.lscalar()) and not is_basic_idx([0])


def test_as_index_literal() -> None:
    from theon.tensor.basic import scalar_from_tensor

    assert as_index_literal(3) == 3 and as_index_literal(None) is None
    assert as_index_literal(NoneConst) is None
    assert as_index_literal(tt.constant(np.int32(-2))) == -2
    assert as_index_literal(scalar_from_tensor(tt.constant(5))) == 5
    assert as_index_literal(slice(tt.constant(1), None, 2)) == slice(1, None, 2)
    with pytest.raises(NotScalarConstantError):
        as_index_literal(tt.lscalar("i"))
    with pytest.raises(NotScalarConstantError):
        as_index_literal(slice(None, tt.lscalar("i")))
    with pytest.raises(TypeError, match="not an index entry"):
        as_index_literal("0")


@settings(max_examples=200, deadline=None)
@given(bound, bound, step, st.integers(0, 9))
def test_literal_canonical_form_reads_the_same_entries(start, stop, k, n) -> None:
    slc = slice(start, stop, k)
    canon, direction = get_canonical_form_slice(slc, n)
    assert 0 <= canon.start <= canon.stop <= n and canon.step > 0
    a = np.arange(n)
    np.testing.assert_array_equal(a[canon][::direction], a[slc])


@settings(max_examples=60, deadline=None)
@given(bound, bound, step, st.integers(0, 9))
def test_symbolic_canonical_form_reads_the_same_entries(start, stop, k, n) -> None:
    """With the length and bounds as run-time values, the canonical slice evaluates to
    one reading the same entries (and within [0, n])."""
    length, lo, hi = tt.lscalar("n"), tt.lscalar("lo"), tt.lscalar("hi")
    slc = slice(None if start is None else lo, None if stop is None else hi, k)
    canon, direction = get_canonical_form_slice(slc, length)
    parts = (canon.start, canon.stop, canon.step)
    f = theon.function([length, lo, hi], [tt.as_tensor_variable(p) for p in parts]
                       + [tt.as_tensor_variable(direction)], on_unused_input="ignore")
    s0, s1, s2, d = (int(v) for v in f(n, start or 0, stop or 0))
    assert 0 <= s0 <= s1 <= n and s2 > 0
    a = np.arange(n)
    np.testing.assert_array_equal(a[s0:s1:s2][::d], a[slice(start, stop, k)])


def test_symbolic_step_sign() -> None:
    k = tt.lscalar("k")
    canon, direction = get_canonical_form_slice(slice(None, None, k), 6)
    f = theon.function([k], [canon.start, canon.stop, canon.step, direction])
    a = np.arange(6)
    for step_value in (1, 2, -1, -4):
        s0, s1, s2, d = (int(v) for v in f(step_value))
        np.testing.assert_array_equal(a[s0:s1:s2][::d], a[::step_value])


def test_scalar_index() -> None:
    assert get_canonical_form_slice(-2, 5) == (3, 1)
    assert get_canonical_form_slice(tt.constant(4), 5) == (4, 1)
    i, n = tt.lscalar("i"), tt.lscalar("n")
    idx, direction = get_canonical_form_slice(i, n)
    assert direction == 1
    f = theon.function([i, n], idx)
    assert f(-1, 4) == 3 and f(2, 4) == 2
    with pytest.raises(ValueError, match="not a slice or a scalar"):
        get_canonical_form_slice(tt.lvector("v"), 3)


def test_old_path_names() -> None:
    import theon.tensor.subtensor as sub

    assert sub.as_index_literal is as_index_literal and sub.is_basic_idx is is_basic_idx
    assert sub.get_canonical_form_slice is get_canonical_form_slice
