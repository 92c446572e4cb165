"""The lifts of random draws (PyTensor's ``local_rv_size_lift``,
``local_dimshuffle_rv_lift``, ``local_subtensor_rv_lift``; unregistered, as in
PyTensor): each fires where the math allows and not elsewhere, and the lifted draw's
numbers are NumPy's with the lifted parameters from the same seed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import theon
import theon.tensor as tt
import theon.tensor.random as tr
from theon.graph.fg import FunctionGraph
from theon.rewriting.walkers import in2out
from theon.tensor.random.op import RandomVariable
from theon.tensor.random.rewriting import (
    local_dimshuffle_rv_lift,
    local_rv_size_lift,
    local_subtensor_rv_lift,
)

SEED = 99
MU = np.arange(6.0).reshape(2, 3)
SIGMA = np.array([1.0, 2.0, 3.0])


def _lift(out: Any, rewrite: Any) -> FunctionGraph:
    fg = FunctionGraph(outputs=[out], clone=False)
    in2out(rewrite)(fg)
    return fg


def _value(fg: FunctionGraph) -> np.ndarray:
    return theon.function([], fg.outputs[0])()


def _on_a_draw(fg: FunctionGraph) -> bool:
    """Whether the output is a draw itself (the operation on it was lifted)."""
    owner = fg.outputs[0].owner
    return owner is not None and isinstance(owner.op, RandomVariable)


@pytest.mark.parametrize("params,size", [((MU, 1.0), None), ((SIGMA, 2.0), (4, 3)),
                                         ((0.0, SIGMA), (2, 1, 3))])
def test_size_lift_keeps_the_numbers(params: Any, size: Any) -> None:
    x = tr.normal(*params, size=size, rng=tr.shared_rng(SEED))
    fg = _lift(x, local_rv_size_lift)
    want = np.random.default_rng(SEED).normal(*params, size=size)
    if size is None:
        assert fg.outputs[0] is x  # nothing to lift
    else:
        assert fg.outputs[0].owner.op.size_param(fg.outputs[0].owner).data is None
    np.testing.assert_array_equal(_value(fg), want)


def test_size_lift_of_a_multivariate_draw() -> None:
    cov = np.array([[2.0, 0.3], [0.3, 1.0]])
    x = tr.multivariate_normal(np.zeros(2), cov, size=(5,), rng=tr.shared_rng(SEED))
    fg = _lift(x, local_rv_size_lift)
    node = fg.outputs[0].owner
    assert [p.type.shape for p in node.op.dist_params(node)] == [(5, 2), (5, 2, 2)]
    np.testing.assert_array_equal(_value(fg), x.eval())


def test_dimshuffle_lift_transposes_the_parameters() -> None:
    y = tr.normal(MU, 1.0, rng=tr.shared_rng(SEED)).T
    fg = _lift(y, local_dimshuffle_rv_lift)
    assert _on_a_draw(fg)
    np.testing.assert_array_equal(_value(fg),
                                  np.random.default_rng(SEED).normal(MU.T, 1.0))


def test_dimshuffle_lift_reorders_a_size_and_adds_axes() -> None:
    y = tr.normal(0.0, SIGMA, size=(2, 3), rng=tr.shared_rng(SEED)).dimshuffle(1, "x", 0)
    fg = _lift(y, local_dimshuffle_rv_lift)
    assert _on_a_draw(fg) and fg.outputs[0].type.shape == (3, 1, 2)
    np.testing.assert_array_equal(
        _value(fg), np.random.default_rng(SEED).normal(0.0, SIGMA[:, None, None],
                                                       size=(3, 1, 2)))


def test_dimshuffle_lift_leaves_support_dimensions_and_shared_draws() -> None:
    d = tr.dirichlet(np.ones((2, 3)), rng=tr.shared_rng(SEED))
    assert not _on_a_draw(_lift(d.T, local_dimshuffle_rv_lift))  # moves the support axis
    assert _on_a_draw(_lift(d.dimshuffle("x", 0, 1), local_dimshuffle_rv_lift))
    x = tr.normal(MU, 1.0, rng=tr.shared_rng(SEED))
    both = FunctionGraph(outputs=[x.T, x + 1.0], clone=False)
    in2out(local_dimshuffle_rv_lift)(both)
    assert not _on_a_draw(FunctionGraph(outputs=[both.outputs[0]], clone=False))


def test_subtensor_lift_indexes_the_parameters() -> None:
    mu, sigma = np.arange(5.0), np.linspace(1.0, 2.0, 5)
    x = tr.normal(mu, sigma, rng=tr.shared_rng(SEED))[1:4]
    fg = _lift(x, local_subtensor_rv_lift)
    assert _on_a_draw(fg)
    np.testing.assert_array_equal(_value(fg), np.random.default_rng(SEED).normal(
        mu[1:4], sigma[1:4]))


def test_subtensor_lift_with_a_size_and_a_broadcast_parameter() -> None:
    i = tt.lscalar("i")
    x = tr.normal(SIGMA, 2.0, size=(4, 3), rng=tr.shared_rng(SEED))[i, ::2]
    fg = FunctionGraph(outputs=[x], clone=False)
    in2out(local_subtensor_rv_lift)(fg)
    assert _on_a_draw(fg) and fg.outputs[0].type.ndim == 1
    # both parameters are broadcast along the indexed axis: i is not read any more
    f = theon.function([i], fg.outputs[0], on_unused_input="ignore")
    np.testing.assert_array_equal(f(1), np.random.default_rng(SEED).normal(
        SIGMA[::2], 2.0, size=(2,)))
    mu = np.arange(12.0).reshape(4, 3)
    y = tr.normal(mu, 2.0, size=(4, 3), rng=tr.shared_rng(SEED))[i, ::2]
    fg = _lift(y, local_subtensor_rv_lift)
    assert _on_a_draw(fg)
    np.testing.assert_array_equal(theon.function([i], fg.outputs[0])(3),
                                  np.random.default_rng(SEED).normal(mu[3, ::2], 2.0))


def test_subtensor_lift_with_a_boolean_mask_as_pymc_uses_it() -> None:
    mask = np.array([True, False, True, True, False])
    mu = np.arange(5.0)
    x = tr.normal(mu, 1.0, rng=tr.shared_rng(SEED))[mask]
    fg = FunctionGraph(outputs=[x], clone=False)
    lifted = local_subtensor_rv_lift.transform(fg, x.owner)[x]
    assert isinstance(lifted.owner.op, RandomVariable)
    np.testing.assert_array_equal(lifted.eval(),
                                  np.random.default_rng(SEED).normal(mu[mask], 1.0))


def test_subtensor_lift_of_a_multivariate_draw_keeps_its_support() -> None:
    cov = np.array([[2.0, 0.3], [0.3, 1.0]])
    mvn = tr.multivariate_normal(np.zeros(2), cov, size=(4,), rng=tr.shared_rng(SEED))
    fg = _lift(mvn[2, :], local_subtensor_rv_lift)  # batch index, full support slice
    assert _on_a_draw(fg) and fg.outputs[0].type.shape == (2,)
    chol = np.linalg.cholesky(cov)
    z = np.random.default_rng(SEED).normal(size=(2,))
    np.testing.assert_allclose(_value(fg), chol @ z, rtol=1e-14)
    assert not _on_a_draw(_lift(mvn[:, 0], local_subtensor_rv_lift))  # a support index


def test_subtensor_lift_refuses_integer_arrays() -> None:
    x = tr.normal(np.arange(5.0), 1.0, rng=tr.shared_rng(SEED))[np.array([0, 0, 1])]
    assert not _on_a_draw(_lift(x, local_subtensor_rv_lift))  # would repeat a draw
