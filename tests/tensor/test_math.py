"""Functions of theon.tensor.math built from several ops (isclose, allclose) vs NumPy."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import theon
import theon.tensor as tt

_SPECIAL = [0.0, -0.0, 1.0, 1.0 + 1e-9, 1.0 + 1e-4, -1.0, 1e-9, 1e300, -1e300, np.inf,
            -np.inf, np.nan]


def _pairs(dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of special values (as ``a`` and ``b``), in ``dtype``."""
    a, b = zip(*itertools.product(_SPECIAL, repeat=2))
    with np.errstate(over="ignore"):
        return np.array(a).astype(dtype), np.array(b).astype(dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
@pytest.mark.parametrize("equal_nan", [False, True])
@pytest.mark.parametrize("rtol, atol", [(1e-5, 1e-8), (0.0, 0.0), (1e-3, 0.5)])
def test_isclose_matches_numpy(dtype: str, equal_nan: bool, rtol: float, atol: float) -> None:
    """Infinities are close only to themselves (``isclose(-inf, inf)`` was True)."""
    av, bv = _pairs(dtype)
    if dtype.startswith("complex"):
        with np.errstate(invalid="ignore"):
            bv = bv + 1j * bv[::-1]
    a, b = tt.vector("a", dtype=dtype), tt.vector("b", dtype=dtype)
    f = theon.function([a, b], tt.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))
    with np.errstate(all="ignore"):
        want = np.isclose(av, bv, rtol=rtol, atol=atol, equal_nan=equal_nan)
    np.testing.assert_array_equal(f(av, bv), want)
    g = theon.function([a, b], tt.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))
    for k in range(0, len(av), 12):  # one value of ``a`` against all, then all together
        with np.errstate(all="ignore"):
            assert bool(g(av[k:k + 12], bv[k:k + 12])) == np.allclose(
                av[k:k + 12], bv[k:k + 12], rtol=rtol, atol=atol, equal_nan=equal_nan)


def test_isclose_issue_example_and_python_numbers() -> None:
    with np.errstate(invalid="ignore"):  # inf - inf, as in NumPy's own isclose
        assert not tt.isclose(-np.inf, np.inf).eval()
        assert tt.isclose(np.inf, np.inf).eval()
    v = tt.dvector("v")
    f = theon.function([v], [tt.isclose(v, np.inf), tt.isclose(v, 1), tt.isclose(1e300, v)])
    vv = np.array([np.inf, -np.inf, 1e308, 1.0, np.nan])
    for got, want in zip(f(vv), [np.isclose(vv, np.inf), np.isclose(vv, 1),
                                 np.isclose(1e300, vv)]):
        np.testing.assert_array_equal(got, want)


def test_isclose_of_integers_does_not_wrap() -> None:
    """``b`` is compared as a float (NumPy): ``int8(100) - int8(-100)`` does not wrap to -56."""
    a, b = tt.bvector("a"), tt.bvector("b")
    av, bv = np.array([100, 3, -128], "int8"), np.array([-100, 3, 127], "int8")
    got = theon.function([a, b], tt.isclose(a, b, atol=60))(av, bv)
    np.testing.assert_array_equal(got, np.isclose(av, bv, atol=60))
    assert not tt.allclose(a, b).eval({a: av, b: bv})


def test_pytensor_reduction_classes_and_variadic_functions() -> None:
    """``isinstance(node.op, Sum)`` as PyMC's rewrites test it; variadic add and mul."""
    import theon.tensor.math as tm

    x = tt.dmatrix("x")
    assert isinstance(tt.sum(x, axis=1).owner.op, tm.Sum)
    assert tt.sum(x, axis=1).owner.op.axis == (1,)
    assert isinstance(x.max(axis=0).owner.op, tm.Max)
    assert isinstance(tt.prod(x).owner.op, tm.Prod) and isinstance(x.min().owner.op, tm.Min)
    xv = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(tm.Max(axis=(0,))(x).eval({x: xv}), xv.max(axis=0))
    assert tm._matmul is __import__("theon.tensor.blas", fromlist=["_matmul"])._matmul
    assert tm.variadic_add().eval() == 0 and tm.variadic_mul().eval() == 1
    assert tm.variadic_add(x) is x and tm.variadic_mul(x) is x
    np.testing.assert_array_equal(tm.variadic_add(x, x, 1.0).eval({x: xv}), xv + xv + 1)
    np.testing.assert_array_equal(tm.variadic_mul(x, x, 2.0).eval({x: xv}), xv * xv * 2)


def test_clip_is_an_op_a_rewrite_can_track() -> None:
    """``clip`` is an Elemwise Op as in PyTensor (PyMC's ``node_rewriter(tracks=[clip])``),
    and still takes ``None`` for one bound as ``numpy.clip`` does."""
    import pickle

    from theon.graph.fg import FunctionGraph
    from theon.graph.op import Op
    from theon.rewriting import node_rewriter
    from theon.rewriting.walkers import in2out

    x = tt.dvector("x")
    xv = np.array([-2.0, 0.5, 3.0, np.nan])
    assert isinstance(tt.clip, Op)
    for lo, hi in [(0.0, 1.0), (None, 1.0), (0.0, None)]:
        np.testing.assert_array_equal(tt.clip(x, lo, hi).eval({x: xv}), np.clip(xv, lo, hi))
    i = tt.ivector("i")
    out = i.clip(0, None)
    assert out.dtype == "int32"
    np.testing.assert_array_equal(out.eval({i: np.array([-3, 4], "int32")}), [0, 4])
    with pytest.raises(ValueError, match="cannot both be None"):
        tt.clip(x, None, None)

    seen = []

    @node_rewriter([tt.clip])
    def spot(fgraph, node):
        seen.append(node.op)

    y = tt.clip(x, -1.0, 1.0) + tt.minimum(x, 2.0)
    in2out(spot).rewrite(FunctionGraph([x], [y]))
    assert seen == [tt.clip]
    assert pickle.loads(pickle.dumps(tt.clip)) == tt.clip
