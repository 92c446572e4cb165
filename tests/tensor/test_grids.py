"""empty/empty_like, mgrid/ogrid, logspace/geomspace, bartlett (issue 35) against NumPy."""

import numpy as np
import pytest

import theon.tensor as tt
from tests.tensor.nscheck import check
from theon.gradient import verify_grad

rng = np.random.default_rng(355)


def test_empty():
    e = tt.empty((2, 3))
    assert e.type.shape == (2, 3) and e.dtype == "float64"
    assert tt.empty((2,), dtype="int8").dtype == "int8"
    v = tt.ivector("v")
    out = tt.empty_like(v)
    assert out.dtype == "int32"
    check([v], out.shape, [np.ones(4, "int32")], np.array([4]))


@pytest.mark.parametrize("key", [(slice(0, 3), slice(0, 2)), (slice(1, 7, 2),),
                                 (slice(0, 1, 5j), slice(-1, 1, 3j)),
                                 (slice(0, 2), slice(0.5, 2.0, 0.5))])
def test_grids(key):
    # NumPy stacks mgrid's arrays into one; theon gives the list of them, as PyTensor
    check([], list(tt.mgrid[key]), [], list(np.mgrid[key]))
    opened = np.ogrid[key]
    check([], list(tt.ogrid[key]), [], list(opened) if isinstance(opened, (list, tuple))
          else [opened])


@pytest.mark.parametrize(("start", "stop", "num"), [
    (0, 2, 3), (0, 2, 1), (0, 2, 0), (2.5, -1.0, 7), (np.float32(1), np.float32(2), 5),
    (np.array([0.0, 1.0]), np.array([2.0, 3.0]), 4), (np.array([[1.0], [2.0]]), 3.0, 3)])
@pytest.mark.parametrize("endpoint", [True, False])
@pytest.mark.parametrize("axis", [0, -1])
def test_logspace_geomspace(start, stop, num, endpoint, axis):
    check([], tt.logspace(start, stop, num, endpoint=endpoint, axis=axis), [],
          np.logspace(start, stop, num, endpoint=endpoint, axis=axis))
    check([], tt.logspace(start, stop, num, base=2.0, endpoint=endpoint, axis=axis), [],
          np.logspace(start, stop, num, base=2.0, endpoint=endpoint, axis=axis))
    a, b = np.asarray(start) + 1.5, np.asarray(stop) + 4.0
    if not isinstance(start, np.ndarray):
        a, b = type(start)(a), type(stop)(b)
    check([], tt.geomspace(a, b, num, endpoint=endpoint, axis=axis), [],
          np.geomspace(a, b, num, endpoint=endpoint, axis=axis), rtol=1e-15)


def test_geomspace_signs_and_zero():
    check([], tt.geomspace(-1, -1000, 4), [], np.geomspace(-1, -1000, 4), rtol=1e-15)
    with np.errstate(invalid="ignore"):
        check([], tt.geomspace(1, -1000, 4), [], np.geomspace(1, -1000, 4))
    with pytest.raises(ValueError, match="zero"):
        tt.geomspace(0, 1, 3)


def test_spacings_symbolic_and_grad():
    a, b = tt.dscalar("a"), tt.dscalar("b")
    n = tt.lscalar("n")
    check([a, b, n], tt.logspace(a, b, n), [0.5, 2.0, 6], np.logspace(0.5, 2.0, 6), rtol=1e-15)
    check([a, b], tt.logspace(a, end=b, steps=3), [0.0, 2.0], np.logspace(0, 2, 3))
    verify_grad(lambda p, q: tt.logspace(p, q, 4), [np.array(0.3), np.array(1.2)], rng=rng)
    verify_grad(lambda p, q: tt.geomspace(p, q, 5), [np.array(0.3), np.array(8.0)], rng=rng)


@pytest.mark.parametrize("m", [0, 1, 2, 5, 6, 51])
def test_bartlett(m):
    check([], tt.bartlett(m), [], np.bartlett(m))
    n = tt.lscalar("n")
    check([n], tt.bartlett(n), [m], np.bartlett(m))
