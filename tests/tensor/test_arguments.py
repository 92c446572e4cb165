"""NumPy integers wherever Python ints are accepted (issue 29 item 6).

NumPy takes ``np.int64(1)``, ``np.array(1)`` and integer arrays wherever it takes ints
(a shape, an axis, a permutation).  Each theon function that reads such an argument
goes through ``theon.tensor.arguments``; each case below is evaluated against the
NumPy call with the same NumPy-typed arguments.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.tensor.arguments import as_int, as_int_tuple, axis_index, int_value

M = np.arange(6.0).reshape(2, 3)
i0, i1, i2 = np.array(0), np.array(1), np.array(2)

# (name, theon builder of a matrix variable, NumPy on the matrix value)
CASES: list[tuple[str, Callable[[Any], Any], Callable[[np.ndarray], Any]]] = [
    ("full 0-d shape", lambda m: tt.full(np.array(5), 3), lambda a: np.full(np.array(5), 3)),
    ("full int64 shape", lambda m: tt.full((np.int64(2), i2), 1.5),
     lambda a: np.full((np.int64(2), i2), 1.5)),
    ("ones of an empty constant", lambda m: tt.ones(tt.constant([])),
     lambda a: np.ones(np.array([]))),
    ("zeros of an empty array", lambda m: tt.zeros(np.array([])), lambda a: np.zeros(np.array([]))),
    ("zeros of an int array", lambda m: tt.zeros(np.array([2, 3])),
     lambda a: np.zeros(np.array([2, 3]))),
    ("alloc", lambda m: tt.alloc(2.0, np.int64(2), i2), lambda a: np.full((2, 2), 2.0)),
    ("method transpose array", lambda m: m.transpose(np.array([1, 0])),
     lambda a: a.transpose(np.array([1, 0]))),
    ("method transpose ints", lambda m: m.transpose(i1, np.int8(0)),
     lambda a: a.transpose(i1, np.int8(0))),
    ("transpose", lambda m: tt.transpose(m, (i1, i0)), lambda a: np.transpose(a, (i1, i0))),
    ("sum over 0-d arrays", lambda m: m.sum(axis=(i0, i1)), lambda a: a.sum(axis=(i0, i1))),
    ("sum over an int64", lambda m: m.sum(axis=np.int64(-1)), lambda a: a.sum(axis=np.int64(-1))),
    ("prod", lambda m: tt.prod(m, axis=[i1]), lambda a: np.prod(a, axis=(i1,))),
    ("max", lambda m: m.max(axis=i0), lambda a: a.max(axis=i0)),
    ("argmax", lambda m: m.argmax(axis=i1), lambda a: a.argmax(axis=i1)),
    ("mean", lambda m: m.mean(axis=(i1,)), lambda a: a.mean(axis=(i1,))),
    ("var", lambda m: tt.var(m, axis=i1), lambda a: np.var(a, axis=i1)),
    ("cumsum", lambda m: tt.cumsum(m, axis=i1), lambda a: np.cumsum(a, axis=i1)),
    ("reshape array", lambda m: m.reshape(np.array([3, 2])), lambda a: a.reshape(np.array([3, 2]))),
    ("reshape 0-d", lambda m: m.reshape(np.array(6)), lambda a: a.reshape(np.array(6))),
    ("reshape entries", lambda m: m.reshape((np.int64(3), i2)), lambda a: a.reshape((3, 2))),
    ("dimshuffle", lambda m: m.dimshuffle(i1, "x", np.int64(0)), lambda a: a.T[:, None, :]),
    ("dimshuffle array", lambda m: m.dimshuffle(np.array([1, 0])), lambda a: a.T),
    ("expand_dims", lambda m: tt.expand_dims(m, i0), lambda a: np.expand_dims(a, i0)),
    ("swapaxes", lambda m: tt.swapaxes(m, i0, np.int8(1)), lambda a: np.swapaxes(a, i0, 1)),
    ("flatten", lambda m: tt.flatten(m, np.int64(1)), lambda a: a.reshape(-1)),
    ("concatenate", lambda m: tt.concatenate([m, m], axis=i1),
     lambda a: np.concatenate([a, a], axis=i1)),
    ("stack", lambda m: tt.stack([m, m], axis=i2), lambda a: np.stack([a, a], axis=i2)),
    ("flip", lambda m: tt.flip(m, axis=i1), lambda a: np.flip(a, axis=i1)),
    ("roll", lambda m: tt.roll(m, i1, axis=i1), lambda a: np.roll(a, i1, axis=i1)),
    ("tensordot", lambda m: tt.tensordot(m, m.T, axes=[[i1], [np.int64(0)]]),
     lambda a: np.tensordot(a, a.T, axes=[[1], [0]])),
    ("sort", lambda m: tt.sort(-m, axis=i0), lambda a: np.sort(-a, axis=i0)),
    ("specify_shape", lambda m: tt.specify_shape(m, np.array([2, 3])) * 1.0, lambda a: a),
]


@pytest.mark.parametrize(("name", "build", "reference"), CASES, ids=[c[0] for c in CASES])
def test_numpy_integers_are_accepted_as_numpy_accepts_them(name, build, reference) -> None:
    m = tt.dmatrix("m")
    out = build(m)
    f = theon.function([m], out, on_unused_input="ignore")
    got, want = f(M), reference(M)
    assert got.shape == np.shape(want)
    np.testing.assert_allclose(got, want)


def test_an_empty_shape_is_a_0d_result_as_in_numpy() -> None:
    for made in (tt.ones(tt.constant([])), tt.zeros(np.array([])), tt.alloc(3.0, *())):
        assert made.type.shape == ()
    assert np.ones(np.array([])).shape == ()
    assert tt.ones(tt.constant([])).eval() == np.ones(np.array([]))


def test_tensor_type_takes_numpy_lengths() -> None:
    assert tt.TensorType("float64", shape=(np.array(2), np.int64(3))).shape == (2, 3)
    assert tt.TensorType("float64", shape=np.array(2)).shape == (2,)


def test_the_normalization_helpers() -> None:
    assert [int_value(v) for v in (3, np.uint8(3), np.array(3), tt.constant(3))] == [3] * 4
    assert [int_value(v) for v in (True, np.bool_(True), 3.0, np.array([3]), "3")] == [None] * 5
    assert as_int_tuple(np.array([], dtype="float64"), "shape") == ()
    assert as_int_tuple([np.int16(1), np.array(-1)], "axis") == (1, -1)
    assert axis_index(np.array(-1), 3) == 2
    with pytest.raises(TypeError, match="n must be an integer, got float 2.5"):
        as_int(2.5, "n")
    with pytest.raises(TypeError, match=r"axis must hold integers, but entry 1 of \(0, 'a'\)"):
        as_int_tuple((0, "a"), "axis")
    with pytest.raises(TypeError, match="dtype float64 and shape"):
        as_int_tuple(np.array([1.5]), "shape")


def test_what_numpy_refuses_is_refused_naming_the_argument() -> None:
    m = tt.dmatrix("m")
    with pytest.raises(TypeError):
        np.ones(np.array([2.0]))
    with pytest.raises(TypeError, match="shape must be an integer vector"):
        tt.ones(tt.constant([2.0]))
    with pytest.raises(TypeError, match=r"transpose: axis must hold integers.*1\.0"):
        m.transpose(1.0, 0)
    with pytest.raises(TypeError, match="DimShuffle entries are ints or 'x'"):
        m.dimshuffle(True, 0)
    with pytest.raises(TypeError, match="sum: axis must be an integer"):
        m.sum(axis=np.array([[0]]))
