"""A generator read by two draws (no next_rng threaded) warns once at compile time."""

import warnings

import numpy as np
import pytest

import theon
import theon.tensor.random as tr


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
