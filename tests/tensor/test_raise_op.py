"""theon.tensor.raise_op (PyTensor's raise_op): checks pass their value through or raise
the given exception, stay in compiled graphs, and are folded only when they pass."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.tensor.raise_op import Assert, CheckAndRaise, assert_op

rng = np.random.default_rng(3)


class TruncationError(Exception):
    pass


class TruncationCheck(CheckAndRaise):
    """A subclass as PyMC writes one: its own exception, a message."""

    def __init__(self, msg: str = "") -> None:
        super().__init__(TruncationError, msg)


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE", theon.Mode(linker="vm")])
def test_value_passes_or_the_exception_is_raised(mode) -> None:
    x = tt.dvector("x")
    f = theon.function([x], Assert("x must be positive")(x, tt.all(x > 0)) * 2, mode=mode)
    vals = rng.uniform(0.5, 2.0, size=4)
    np.testing.assert_array_equal(f(vals), vals * 2)
    with pytest.raises(AssertionError, match="x must be positive"):
        f(np.array([1.0, -1.0]))


def test_subclass_raises_its_exception_and_is_kept_in_the_graph() -> None:
    x = tt.dvector("x")
    lower = tt.dscalar("lower")
    y = TruncationCheck("below the lower bound")(x, tt.all(x >= lower))
    f = theon.function([x, lower], tt.exp(y))
    assert any(isinstance(n.op, TruncationCheck) for n in f.maker.fgraph.apply_nodes)
    np.testing.assert_allclose(f(np.array([1.0, 2.0]), 0.0), np.exp([1.0, 2.0]))
    with pytest.raises(TruncationError, match="below the lower bound"):
        f(np.array([1.0, 2.0]), 1.5)


def test_several_conditions_all_must_hold() -> None:
    x = tt.dscalar("x")
    f = theon.function([x], CheckAndRaise(ValueError, "out of (0, 1)")(x, x > 0, x < 1))
    assert f(0.5) == 0.5
    for bad in (-0.5, 1.5):
        with pytest.raises(ValueError, match=r"out of \(0, 1\)"):
            f(bad)


def test_conditions_of_other_dtypes_are_read_as_booleans() -> None:
    x, n = tt.dvector("x"), tt.lscalar("n")
    f = theon.function([x, n], Assert("n is zero")(x, n))
    np.testing.assert_array_equal(f(np.ones(2), 3), np.ones(2))
    with pytest.raises(AssertionError):
        f(np.ones(2), 0)


def test_make_node_errors() -> None:
    with pytest.raises(ValueError, match="Exception class"):
        CheckAndRaise(int, "no")
    x = tt.dvector("x")
    with pytest.raises(TypeError, match="condition 0 must be a scalar"):
        Assert("m")(x, x > 0)


def test_props_text_and_pickling() -> None:
    a, b = Assert("m"), Assert("m")
    assert a == b and hash(a) == hash(b) and a != Assert("other")
    assert CheckAndRaise(ValueError, "m") != CheckAndRaise(TypeError, "m")
    assert str(assert_op) == "Assert{msg='theon Assert failed!'}"
    long = CheckAndRaise(ValueError, "a message well over thirty characters")
    assert str(long) == "CheckAndRaise{raises=ValueError, msg='a message well over thirty ...'}"
    assert pickle.loads(pickle.dumps(long)) == long


def test_gradient_and_shape_are_the_values() -> None:
    vals = rng.normal(size=5)
    theon.verify_grad(lambda t: Assert("finite")(t, tt.all(tt.isfinite(t))) ** 2, [vals])
    x = tt.dmatrix("x")
    f = theon.function([x], Assert("m")(x, tt.all(x > 0)).shape)
    assert not any(isinstance(n.op, Assert) for n in f.maker.fgraph.apply_nodes)
    np.testing.assert_array_equal(f(-np.ones((2, 3))), [2, 3])  # the shape needs no check


def test_non_tensor_value_passes_through() -> None:
    from theon.scalar.type import float64

    s = float64("s")
    y = Assert("positive")(s, tt.as_tensor_variable(s) > 0)
    assert y.type == s.type
    f = theon.function([s], y)
    assert f(2.5) == 2.5
    with pytest.raises(AssertionError):
        f(-1.0)


def test_failing_constant_check_is_not_folded() -> None:
    c = Assert("never")(tt.constant([1.0, 2.0]), tt.constant(False))
    f = theon.function([], c)  # compiling succeeds: the check fails when it runs
    with pytest.raises(AssertionError, match="never"):
        f()
    ok = theon.function([], Assert("always")(tt.constant([1.0, 2.0]), tt.constant(True)) * 2)
    assert not any(isinstance(n.op, Assert) for n in ok.maker.fgraph.apply_nodes)
    np.testing.assert_array_equal(ok(), [2.0, 4.0])


def test_old_path_is_this_module() -> None:
    import importlib

    assert importlib.import_module("theon.raise_op").Assert is Assert
