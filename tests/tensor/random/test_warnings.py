"""A generator read by two draws (no next_rng threaded) warns once at compile time."""

import inspect
import warnings

import numpy as np
import pytest

import theon
import theon.graph.traversal
import theon.tensor as tt
import theon.tensor.random as tr
from theon.tensor.random.op import RandomVariable


def _compile_warnings(*args, **kw):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        f = theon.function(*args, **kw)
    return f, [x for x in w if issubclass(x.category, UserWarning)]


def test_reused_shared_rng_warns_once_naming_it_and_where():
    rng = theon.shared(np.random.default_rng(0), name="my_rng")
    x = tr.normal(size=(3,), rng=rng)
    y = tr.normal(size=(3,), rng=rng)
    z = tr.uniform(size=(3,), rng=rng)
    f, w = _compile_warnings([], [x, y, z])
    assert len(w) == 1
    msg = str(w[0].message)
    assert "'my_rng'" in msg and "read by 3 draws" in msg
    assert "test_warnings.py" in msg  # where the generator and the draws were built
    a, b, _ = f()
    np.testing.assert_array_equal(a, b)  # what the warning is about


def test_reuse_with_an_update_still_warns():
    rng = theon.shared(np.random.default_rng(0), name="r")
    r1, x = tr.normal(size=(3,), rng=rng, return_next_rng=True)
    y = tr.normal(size=(3,), rng=rng)
    _, w = _compile_warnings([], [x, y], updates={rng: r1})
    assert len(w) == 1 and "'r'" in str(w[0].message)


@pytest.mark.parametrize("case", ["chain", "single", "two_rngs"])
def test_no_warning_without_reuse(case):
    rng = theon.shared(np.random.default_rng(0), name="r")
    if case == "chain":
        r1, x = tr.normal(size=(3,), rng=rng, return_next_rng=True)
        r2, y = tr.normal(size=(3,), rng=r1, return_next_rng=True)
        outs, upd = [x, y], {rng: r2}
    elif case == "single":
        outs, upd = [tr.normal(size=(3,), rng=rng)], {}
    else:
        other = theon.shared(np.random.default_rng(1))
        outs, upd = [tr.normal(size=(3,), rng=rng), tr.normal(size=(3,), rng=other)], {}
    _, w = _compile_warnings([], outs, updates=upd)
    assert w == []


def test_choice_and_permutation_count_as_draws():
    rng = theon.shared(np.random.default_rng(0), name="r")
    a = tr.permutation(5, rng=rng)
    b = tr.choice(5, size=(2,), rng=rng)
    _, w = _compile_warnings([], [a, b])
    assert len(w) == 1 and "read by 2 draws" in str(w[0].message)


def test_copies_of_one_draw_do_not_warn():
    rng = theon.shared(np.random.default_rng(0), name="r")
    x = tr.normal(size=(3,), rng=rng)
    node = x.owner
    copy = node.op.make_node(*node.inputs).outputs[1]  # as a gradient may rebuild it
    _, w = _compile_warnings([], [x + 1, copy * 2])
    assert w == []


def _n_draws(f):
    return sum(isinstance(n.op, RandomVariable) for n in f.maker.fgraph.apply_nodes)


def _dae_cost():
    from theon.tensor.random.utils import RandomStream

    x = tt.dmatrix("x")
    W = theon.shared(np.full((4, 3), 0.1), name="W")
    noisy = RandomStream(1).binomial(size=x.shape, n=1, p=0.7, dtype="float64") * x
    z = tt.special.sigmoid(tt.dot(tt.special.sigmoid(tt.dot(noisy, W)), W.T))
    cost = -tt.mean(tt.sum(x * tt.log(z) + (1 - x) * tt.log(1 - z), axis=1))
    return x, W, cost


def test_a_stabilized_gradient_reads_the_draw_instead_of_copying_it():
    x, W, cost = _dae_cost()
    g = theon.grad(cost, W)
    draws = [n for n in theon.graph.traversal.toposort([cost, g])
             if isinstance(n.op, RandomVariable)]
    assert len(draws) == 1


def test_givens_and_default_updates_share_one_copy_of_a_draw():
    """The rng's default update (the draw's next_rng) and the outputs are substituted
    together, so the givens-rebuilt graph holds one draw, and nothing warns."""
    x, W, cost = _dae_cost()
    data = theon.shared(np.random.default_rng(0).random((8, 4)))
    i = tt.lscalar("i")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f = theon.function([i], cost, updates=[(W, W - 0.1 * theon.grad(cost, W))],
                           givens={x: data[i * 2: (i + 1) * 2]}, mode=theon.Mode(
                               linker="vm", optimizer=None))
    assert _n_draws(f) == 1
    a, b = f(0), f(0)
    assert np.isfinite(a) and a != b  # the generator advances


def test_reuse_warning_points_at_the_users_line():
    """The warning's file and line are the caller's ``theon.function`` (or ``.eval()``)
    line, not theon's pipeline."""
    rng = theon.shared(np.random.default_rng(0), name="r")
    x = tr.normal(size=(3,), rng=rng)
    y = tr.normal(size=(3,), rng=rng)
    with pytest.warns(UserWarning, match="read by 2 draws") as rec:
        line = inspect.currentframe().f_lineno + 1
        theon.function([], [x, y])
    assert [(w.filename, w.lineno) for w in rec] == [(__file__, line)]
    with pytest.warns(UserWarning, match="read by 2 draws") as rec:
        line = inspect.currentframe().f_lineno + 1
        (x + y).eval()
    assert [(w.filename, w.lineno) for w in rec] == [(__file__, line)]
