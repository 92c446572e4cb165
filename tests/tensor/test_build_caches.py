"""The caches that make graph building cheap give the same results as building afresh.

TensorTypes are interned, Elemwise remembers output types per input types, the
NEP 50 rule for Python numbers is remembered per (number type, operand dtypes),
and Elemwise.L_op replays a recorded scalar gradient graph instead of walking it.
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import theon
import theon.graph.traversal as traversal
import theon.tensor as tt
from theon import scalar as ts
from theon.config import change_flags
from theon.gradient import NullTypeGradError
from theon.graph.basic import Variable
from theon.graph.null_type import DisconnectedType, NullType, grad_undefined
from theon.graph.replace import equal_computations
from theon.scalar.basic import UnaryScalarOp
from theon.tensor.basic import weak_constant_dtype
from theon.tensor.elemwise import DimShuffle, Elemwise, plain_elemwise
from theon.tensor.type import TensorType

# TensorType interning ---------------------------------------------------------------


def test_equal_unnamed_types_are_one_instance() -> None:
    a = TensorType("float64", (None, 1))
    assert TensorType(np.float64, [None, 1]) is a
    assert TensorType(np.dtype("float64"), (None, np.int64(1))) is a
    assert TensorType("float64", broadcastable=(False, True)) is a
    assert a.clone() is a


def test_named_types_stay_distinct() -> None:
    named = TensorType("float64", (None, None), name="mine")
    assert named is not TensorType("float64", (None, None))
    assert named == TensorType("float64", (None, None))
    assert tt.dmatrix == TensorType("float64", (None, None))


@pytest.mark.parametrize("bad", [(1.0,), (-1,)])
def test_interning_does_not_accept_bad_shapes(bad: tuple[object, ...]) -> None:
    TensorType("float64", (1,))  # make sure (float64, (1,)) is interned
    with pytest.raises(TypeError):
        TensorType("float64", bad)


def test_boolean_patterns_do_not_alias_equal_int_shapes() -> None:
    # (False,) == (0,) and (True,) == (1,) as tuple keys; the flags mean (None,) and (1,)
    assert TensorType("float64", (0,)).shape == (0,)  # interned under (0,)
    assert TensorType("float64", (False,)).shape == (None,)
    assert TensorType("float64", (True,)) is TensorType("float64", (1,))


def test_floatx_is_read_at_each_call() -> None:
    with change_flags(floatX="float32"):
        assert TensorType("floatX", ()).dtype == "float32"
    with change_flags(floatX="float64"):
        assert TensorType("floatX", ()).dtype == "float64"


# Elemwise output types ----------------------------------------------------------------


def test_elemwise_output_types_match_numpy_on_repeat() -> None:
    x, y = tt.fvector("x"), tt.ivector("y")
    for _ in range(2):  # the second build uses the cache
        z = x * y
        assert z.dtype == np.result_type(np.float32, np.int32).name
        assert z.type.shape == (None,)
        assert z.owner.inputs == [x, y]
        assert z is not x * y


def test_elemwise_errors_are_not_cached() -> None:
    a = tt.TensorType("float64", (2,))("a")
    b = tt.TensorType("float64", (3,))("b")
    for _ in range(2):
        with pytest.raises(ValueError, match="broadcast"):
            tt.add(a, b)
    bad = Elemwise(ts.add, {0: 0})
    for _ in range(2):
        with pytest.raises(TypeError, match="overwrite"):
            bad(tt.ivector("i"), tt.dvector("d"))


# weak Python numbers -----------------------------------------------------------------

_DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "uint64", "float16",
           "float32", "float64", "complex64"]


@settings(max_examples=60, deadline=None)
@given(
    value=st.one_of(
        st.booleans(),
        st.integers(-(2**70), 2**70),
        st.floats(allow_nan=True, allow_infinity=True),
        st.complex_numbers(max_magnitude=1e10),
    ),
    strong=st.lists(st.sampled_from(_DTYPES), min_size=1, max_size=2),
)
def test_weak_dtype_agrees_with_numpy(value: object, strong: list[str]) -> None:
    target = np.result_type(*[np.dtype(d) for d in strong], value)
    for _ in range(2):  # a cache miss, then a hit
        try:
            dt = weak_constant_dtype(value, strong)
        except OverflowError:
            assert type(value) is int and target.kind in "iu"
            info = np.iinfo(target)
            assert not info.min <= value <= info.max  # type: ignore[operator]
            continue
        assert np.result_type(*[np.dtype(d) for d in strong], np.dtype(dt)) == target


def test_weak_constants_are_fresh_and_read_only() -> None:
    x = tt.dscalar("x")
    c1, c2 = (x * 2.0).owner.inputs[1], (x * 2.0).owner.inputs[1]
    assert c1 is not c2
    assert c1.data.flags.writeable is False
    assert float(c1.data) == 2.0 and c1.dtype == "float64"


# Elemwise.L_op templates ---------------------------------------------------------------


def test_l_op_replays_without_walking_the_scalar_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    x, y, g = tt.dvector("x"), tt.dvector("y"), tt.dvector("g")
    node = (x / y).owner
    first = node.op.L_op(node.inputs, node.outputs, [g])  # records the template if needed
    calls = []
    real = traversal.io_toposort

    def counting(*args: object, **kwargs: object) -> object:
        calls.append(args)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(traversal, "io_toposort", counting)
    second = node.op.L_op(node.inputs, node.outputs, [g])
    assert calls == []
    assert all(a is not b for a, b in zip(first, second))
    assert equal_computations(first, second)
    f = theon.function([x, y, g], second)
    xv, yv, gv = np.array([1.0, 2.0]), np.array([4.0, -0.5]), np.array([0.5, 3.0])
    gx, gy = f(xv, yv, gv)
    np.testing.assert_allclose(gx, gv / yv)
    np.testing.assert_allclose(gy, -gv * xv / yv**2)


class _Undefined(UnaryScalarOp):
    """A toy scalar op whose gradient is undefined."""

    name = "undefined_grad_toy"
    ufunc = np.negative

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        return [grad_undefined(self, 0, inputs[0], "a toy")]


def test_l_op_markers_are_fresh_per_call() -> None:
    op = Elemwise(_Undefined())
    x = tt.dvector("x")
    node = op(x).owner
    a = op.L_op(node.inputs, node.outputs, [tt.dvector("g")])
    b = op.L_op(node.inputs, node.outputs, [tt.dvector("g")])
    assert isinstance(a[0].type, NullType) and isinstance(b[0].type, NullType)
    assert a[0] is not b[0]
    assert a[0].type == b[0].type
    # integer inputs get a fresh disconnected marker each call too
    k = tt.lvector("k")
    pnode = tt.math.pow(x, k).owner
    c = pnode.op.L_op(pnode.inputs, pnode.outputs, [tt.dvector("g")])
    d = pnode.op.L_op(pnode.inputs, pnode.outputs, [tt.dvector("g")])
    assert isinstance(c[1].type, DisconnectedType) and c[1] is not d[1]


def test_null_gradient_error_names_its_node() -> None:
    op = Elemwise(_Undefined())
    x = tt.dvector("x")
    with pytest.raises(NullTypeGradError, match="undefined_grad_toy"):
        theon.grad((op(x) + op(x * 2.0)).sum(), x)


def test_plain_elemwise_is_shared() -> None:
    assert plain_elemwise(ts.mul) is plain_elemwise(ts.mul)
    assert plain_elemwise(ts.mul) == Elemwise(ts.mul)
    assert not plain_elemwise(ts.mul).inplace_pattern


def test_pickled_op_does_not_carry_its_hash() -> None:
    op = DimShuffle(1, ("x", 0))
    hash(op)  # caches the hash, which depends on the process's string hashing
    again = pickle.loads(pickle.dumps(op))
    assert "_cached_hash" not in again.__dict__
    assert again == op and hash(again) == hash(op)
