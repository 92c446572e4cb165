"""Rewrites of random draws: inplace draws and removal of unused draws (values vs NumPy)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import theon
import theon.tensor as tt
import theon.tensor.random as tr
from theon.compile.io import In
from theon.compile.mode import Mode
from theon.tensor.random.op import RandomVariable


def _rv_ops(f):
    return [n.op for n in f.maker.fgraph.toposort() if isinstance(n.op, RandomVariable)]


def _no_rewrite_mode():
    return Mode(optimizer=None)


def test_chained_draw_becomes_inplace_and_matches_numpy():
    rng = theon.shared(np.random.default_rng(11))
    r1, x = tr.normal(0.0, 1.0, size=(3,), rng=rng, return_next_rng=True)
    r2, y = tr.uniform(-1.0, 2.0, size=(2, 2), rng=r1, return_next_rng=True)
    f = theon.function([], [x, y], updates={rng: r2})
    ops = _rv_ops(f)
    assert sorted(o.inplace for o in ops) == [False, True]  # the shared rng is copied
    ref = np.random.default_rng(11)
    for _ in range(3):
        a, b = f()
        np.testing.assert_array_equal(a, ref.normal(0.0, 1.0, size=(3,)))
        np.testing.assert_array_equal(b, ref.uniform(-1.0, 2.0, size=(2, 2)))
    # the same numbers without rewrites (no inplace)
    rng.set_value(np.random.default_rng(11))
    g = theon.function([], [x, y], updates={rng: r2}, mode=_no_rewrite_mode())
    assert not any(o.inplace for o in _rv_ops(g))
    ref = np.random.default_rng(11)
    for _ in range(2):
        a, b = g()
        np.testing.assert_array_equal(a, ref.normal(0.0, 1.0, size=(3,)))
        np.testing.assert_array_equal(b, ref.uniform(-1.0, 2.0, size=(2, 2)))


def test_shared_rng_never_destroyed():
    rng = theon.shared(np.random.default_rng(5))
    x = tr.normal(0.0, 1.0, size=(4,), rng=rng)
    f = theon.function([], x)  # no update: same numbers each call
    assert not any(o.inplace for o in _rv_ops(f))
    np.testing.assert_array_equal(f(), f())
    np.testing.assert_array_equal(f(), np.random.default_rng(5).normal(size=4))


def test_rng_argument_is_never_advanced_in_place():
    r = tr.random_generator_type("r")
    x = tr.normal(0.0, 1.0, size=(3,), rng=r)
    for mutable in (False, True):
        f = theon.function([In(r, mutable=mutable)], x)
        assert not any(o.inplace for o in _rv_ops(f))
        g = np.random.default_rng(2)
        np.testing.assert_array_equal(f(g), f(g))
        np.testing.assert_array_equal(f(g), np.random.default_rng(2).normal(size=3))


def test_unused_draw_and_its_update_are_removed():
    rng = theon.shared(np.random.default_rng(8))
    r1, x = tr.normal(0.0, 1.0, size=(3,), rng=rng, return_next_rng=True)
    y = tt.dvector("y")
    f = theon.function([y], y * 2, updates={rng: r1})
    assert _rv_ops(f) == []
    f(np.ones(2))
    # the generator was not advanced
    after = rng.get_value(borrow=True).normal(size=3)
    np.testing.assert_array_equal(after, np.random.default_rng(8).normal(size=3))


def test_unused_draw_kept_when_its_rng_feeds_a_later_draw():
    rng = theon.shared(np.random.default_rng(9))
    r1, _x = tr.normal(0.0, 1.0, size=(3,), rng=rng, return_next_rng=True)
    r2, y = tr.uniform(size=(2,), rng=r1, return_next_rng=True)
    f = theon.function([], y, updates={rng: r2})
    assert len(_rv_ops(f)) == 2
    ref = np.random.default_rng(9)
    ref.normal(size=3)
    np.testing.assert_array_equal(f(), ref.uniform(size=2))


def test_used_draw_is_kept_and_advances():
    rng = theon.shared(np.random.default_rng(4))
    r1, x = tr.normal(0.0, 1.0, size=(3,), rng=rng, return_next_rng=True)
    f = theon.function([], x, updates={rng: r1})
    ref = np.random.default_rng(4)
    for _ in range(3):
        np.testing.assert_array_equal(f(), ref.normal(size=3))


def test_two_equal_draws_are_not_merged():
    rng1 = theon.shared(np.random.default_rng(1))
    rng2 = theon.shared(np.random.default_rng(2))
    x = tr.normal(0.0, 1.0, size=(3,), rng=rng1)
    y = tr.normal(0.0, 1.0, size=(3,), rng=rng2)
    f = theon.function([], [x, y])
    assert len(_rv_ops(f)) == 2
    a, b = f()
    assert not np.array_equal(a, b)


def test_intermediate_rng_read_elsewhere_is_not_destroyed():
    rng = theon.shared(np.random.default_rng(12))
    r1, x = tr.normal(0.0, 1.0, size=(3,), rng=rng, return_next_rng=True)
    r2, y = tr.normal(0.0, 1.0, size=(3,), rng=r1, return_next_rng=True)
    z = tr.normal(0.0, 1.0, size=(3,), rng=r1)  # reads r1 too: same numbers as y
    for mode in ("FAST_RUN", Mode(linker="vm")):
        rng.set_value(np.random.default_rng(12))
        with pytest.warns(UserWarning, match="read by 2 draws"):
            f = theon.function([], [x, y, z], updates={rng: r2}, mode=mode)
        a, b, c = f()
        ref = np.random.default_rng(12)
        np.testing.assert_array_equal(a, ref.normal(size=3))
        np.testing.assert_array_equal(b, ref.normal(size=3))
        np.testing.assert_array_equal(c, b)


_DRAWS = {
    "normal": (lambda r, s: tr.normal(0.5, 2.0, size=s, rng=r, return_next_rng=True),
               lambda g, s: g.normal(0.5, 2.0, size=s)),
    "uniform": (lambda r, s: tr.uniform(-1.0, 1.0, size=s, rng=r, return_next_rng=True),
                lambda g, s: g.uniform(-1.0, 1.0, size=s)),
    "binomial": (lambda r, s: tr.binomial(1, 0.3, size=s, rng=r, return_next_rng=True),
                 lambda g, s: g.binomial(1, 0.3, size=s)),
    "poisson": (lambda r, s: tr.poisson(3.0, size=s, rng=r, return_next_rng=True),
                lambda g, s: g.poisson(3.0, size=s)),
}


@settings(max_examples=25, deadline=None)
@given(chain=st.lists(st.tuples(st.sampled_from(sorted(_DRAWS)), st.booleans(),
                                st.integers(1, 3)), min_size=1, max_size=4),
       seed=st.integers(0, 2**16))
def test_rewrites_differential_vs_unrewritten_and_numpy(chain, seed):
    """A chain of draws, some unused: rewritten == unrewritten == NumPy, draw for draw."""
    rng = theon.shared(np.random.default_rng(seed))
    r, outs = rng, []
    for name, used, n in chain:
        r, x = _DRAWS[name][0](r, (n,))
        if used:
            outs.append(x)
    total = sum((tt.sum(x) * 1.0 for x in outs), tt.constant(0.0))
    results = []
    for mode in ("FAST_RUN", Mode(optimizer=None)):
        rng.set_value(np.random.default_rng(seed))
        f = theon.function([], [total, *outs], updates={rng: r}, mode=mode)
        results.append([f(), f()])
    ref = np.random.default_rng(seed)
    expected = []
    for _ in range(2):
        vals = [(used, _DRAWS[name][1](ref, (n,))) for name, used, n in chain]
        used_vals = [v for u, v in vals if u]
        expected.append([sum(float(v.sum()) for v in used_vals), *used_vals])
    for got in results:
        for call_got, call_exp in zip(got, expected, strict=True):
            np.testing.assert_allclose(call_got[0], call_exp[0], rtol=1e-12)
            for a, b in zip(call_got[1:], call_exp[1:], strict=True):
                np.testing.assert_array_equal(a, b)


INT_DRAWS = {
    "binomial": (lambda rng: tr.binomial(1, 0.3, size=(40,), rng=rng),
                 lambda g: g.binomial(1, 0.3, size=(40,))),
    "binomial_n": (lambda rng: tr.binomial(7, 0.6, size=(40,), rng=rng),
                   lambda g: g.binomial(7, 0.6, size=(40,))),
    "poisson": (lambda rng: tr.poisson(3.0, size=(40,), rng=rng),
                lambda g: g.poisson(3.0, size=(40,))),
    "integers": (lambda rng: tr.integers(-(2**40), 2**40, size=(40,), rng=rng),
                 lambda g: g.integers(-(2**40), 2**40, size=(40,))),
}


@settings(max_examples=20, deadline=None)
@given(name=st.sampled_from(sorted(INT_DRAWS)), dtype=st.sampled_from(["float32", "float64"]),
       seed=st.integers(0, 2**16))
def test_cast_of_an_integer_draw_is_drawn_as_floats(name, dtype, seed):
    """``cast(draw{int}) -> draw{float}``: the same numbers as the unrewritten graph and
    as NumPy's draw cast to that dtype; the generator advances alike."""
    build, np_draw = INT_DRAWS[name]
    rng = theon.shared(np.random.default_rng(seed))
    nxt, x = build(rng).owner.outputs
    out = tt.cast(x, dtype) * 2
    fast = theon.function([], out, updates={rng: nxt})
    drawn_as = {n.op.dtype for n in fast.maker.fgraph.apply_nodes
                if isinstance(n.op, RandomVariable)}
    assert drawn_as == ({"int64"} if name == "integers" else {dtype})
    slow = theon.function([], out, mode=Mode(linker="vm", optimizer=None))
    ref = np.random.default_rng(seed)
    for _ in range(2):
        want = np_draw(ref).astype(dtype) * np.asarray(2, dtype)
        got = fast()
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, want)
    rng.set_value(np.random.default_rng(seed))
    np.testing.assert_array_equal(slow(), np_draw(np.random.default_rng(seed)).astype(dtype) * 2)


def test_a_draw_read_as_integers_elsewhere_keeps_its_dtype():
    rng = theon.shared(np.random.default_rng(0))
    x = tr.binomial(1, 0.5, size=(5,), rng=rng)
    f = theon.function([], [tt.cast(x, "float64"), x])
    assert [n.op.dtype for n in f.maker.fgraph.apply_nodes
            if isinstance(n.op, RandomVariable)] == ["int64"]
    a, b = f()
    np.testing.assert_array_equal(a, b)
