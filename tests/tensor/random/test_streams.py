"""Random streams (Theano and PyTensor style): default updates, seeding, Theano's spellings,
functions called twice, pickled and copied."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.tensor.random.basic import DISTRIBUTIONS
from theon.tensor.random.utils import RandomStream, RandomStreams


def _numpy_child(seed: int, k: int) -> np.random.Generator:
    """The generator a stream seeded with ``seed`` gives its ``k``-th draw (reference)."""
    ss = np.random.SeedSequence(seed)
    children = ss.spawn(k + 1)
    return np.random.default_rng(children[k])


def test_draws_come_from_the_streams_seed_sequence() -> None:
    srng = RandomStream(11)
    x = srng.normal(1.0, 2.0, size=(5,))
    y = srng.uniform(size=(3,))
    f = theon.function([], [x, y])
    a, b = f()
    np.testing.assert_array_equal(a, _numpy_child(11, 0).normal(1.0, 2.0, size=(5,)))
    np.testing.assert_array_equal(b, _numpy_child(11, 1).uniform(0.0, 1.0, size=(3,)))
    # the second call continues each generator (default update, nothing listed)
    g0 = _numpy_child(11, 0)
    g0.normal(1.0, 2.0, size=(5,))
    a2, _ = f()
    np.testing.assert_array_equal(a2, g0.normal(1.0, 2.0, size=(5,)))


def test_default_update_is_set_and_listed() -> None:
    srng = RandomStream(0)
    x = srng.binomial(1, 0.5, size=(4,))
    ((rng, nxt),) = srng.state_updates
    assert rng.default_update is nxt
    assert srng.updates() == srng.state_updates
    # no_default_updates: the generator does not advance, so calls repeat
    f = theon.function([], x, no_default_updates=True)
    np.testing.assert_array_equal(f(), f())


def test_every_distribution_is_a_method() -> None:
    for d in DISTRIBUTIONS:
        assert callable(getattr(RandomStream, d)), d
        assert callable(getattr(RandomStreams, d)), d
    srng = RandomStream(2)
    assert srng.gamma(2.0, size=(3,)).eval().shape == (3,)
    assert srng.multinomial(5, [0.2, 0.8], size=(3,)).eval().shape == (3, 2)
    assert RandomStreams(2).gamma((3,), 2.0).eval().shape == (3,)


def test_seed_reproduces_the_sequence() -> None:
    srng = RandomStream(4)
    x, y = srng.normal(size=(3,)), srng.integers(0, 100, size=(3,))
    f = theon.function([], [x, y])
    first = [f() for _ in range(3)]
    srng.seed(4)
    again = [f() for _ in range(3)]
    for (a, b), (c, d) in zip(first, again):
        np.testing.assert_array_equal(a, c)
        np.testing.assert_array_equal(b, d)
    srng.seed(5)
    assert not np.array_equal(f()[0], first[0][0])
    # a fresh stream with the same seed and the same draws gives the same numbers
    s2 = RandomStream(4)
    g = theon.function([], [s2.normal(size=(3,)), s2.integers(0, 100, size=(3,))])
    np.testing.assert_array_equal(g()[0], first[0][0])


def test_unseeded_streams_differ() -> None:
    a = RandomStream().uniform(size=(8,)).eval()
    b = RandomStream().uniform(size=(8,)).eval()
    assert not np.array_equal(a, b)


def test_param_first_keywords_and_aliases() -> None:
    s1, s2 = RandomStream(3), RandomStream(3)
    a = s1.normal(avg=1.0, std=3.0, size=(4,)).eval()
    b = s2.normal(1.0, 3.0, size=(4,)).eval()
    np.testing.assert_array_equal(a, b)
    with pytest.raises(TypeError, match="avg"):
        RandomStream(0).normal(1.0, avg=2.0)
    with pytest.raises(ValueError, match="ndim=1"):
        RandomStream(0).uniform(size=(2, 2), ndim=1)


def test_theano_size_first_order() -> None:
    ref = _numpy_child(9, 0)
    srng = RandomStreams(9)
    np.testing.assert_array_equal(srng.uniform((2, 3), -1.0, 2.0).eval(),
                                  ref.uniform(-1.0, 2.0, size=(2, 3)).astype(theon.config.floatX))
    srng = RandomStreams(9)
    np.testing.assert_array_equal(srng.normal((4,), 5.0, 0.5).eval(),
                                  _numpy_child(9, 0).normal(5.0, 0.5, size=(4,)))
    srng = RandomStreams(9)
    b = srng.binomial((6,), 10, 0.3)
    assert b.type.dtype == "int64"
    np.testing.assert_array_equal(b.eval(), _numpy_child(9, 0).binomial(10, 0.3, size=(6,)))
    srng = RandomStreams(9)
    kw = srng.binomial(size=(6,), n=10, p=0.3, dtype="float32")
    assert kw.type.dtype == "float32"
    srng = RandomStreams(9)
    r = srng.random_integers((200,), 2, 4).eval()
    assert set(r.tolist()) == {2, 3, 4}  # high included
    assert RandomStreams(0).normal((3,), loc=1.0, scale=2.0).eval().shape == (3,)


def test_theano_size_from_a_symbolic_shape() -> None:
    x = tt.matrix("x")
    srng = RandomStreams(1)
    mask = srng.binomial(size=x.shape, n=1, p=0.25, dtype=theon.config.floatX)
    f = theon.function([x], mask * x)
    out = f(np.ones((50, 40), dtype=theon.config.floatX))
    assert out.shape == (50, 40)
    assert set(np.unique(out).tolist()) == {0.0, 1.0}
    assert 0.15 < out.mean() < 0.35


@pytest.mark.parametrize("draw", [
    lambda: RandomStreams(0).normal(size=(-2,)),
    lambda: RandomStreams(0).uniform(-2),
    lambda: RandomStreams(0).normal(size=np.array([3, -2])),
    lambda: RandomStreams(0).normal(size=(tt.lscalar("n"), -2)),
    lambda: RandomStream(0).normal(0.0, 1.0, size=(np.int64(-2),)),
    lambda: RandomStreams(0).permutation((-2,), n=3),
], ids=["tuple", "int", "array", "with a symbolic length", "param-first", "permutation"])
def test_a_negative_size_is_named(draw) -> None:
    """Issue 29 item 13: NumPy refuses a negative length with ValueError; theon names
    the distribution, the argument and its value."""
    with pytest.raises(ValueError):
        np.random.default_rng(0).normal(size=(-2,))
    with pytest.raises(ValueError, match=r"^\w+: argument 'size' \(.*-2.*\) has a negative "
                                         r"length; lengths must be >= 0$"):
        draw()


def test_numpy_integer_sizes() -> None:
    out = RandomStreams(3).normal(size=(np.int64(2), np.array(3))).eval()
    assert out.shape == np.random.default_rng(0).normal(size=(np.int64(2), np.array(3))).shape


def test_theano_choice_permutation_multinomial() -> None:
    srng = RandomStreams(0)
    c = srng.choice((5,), a=3).eval()
    assert c.shape == (5,) and set(c.tolist()) <= {0, 1, 2}
    p = srng.permutation((3,), n=4).eval()
    assert p.shape == (3, 4)
    for row in p:
        assert sorted(row.tolist()) == [0, 1, 2, 3]
    assert len({tuple(r) for r in RandomStreams(0).permutation((20,), n=5).eval()}) > 1
    assert sorted(srng.permutation(n=4).eval().tolist()) == [0, 1, 2, 3]
    m = srng.multinomial((2,), n=7, pvals=[0.3, 0.7]).eval()
    assert m.shape == (2, 2) and (m.sum(axis=1) == 7).all()
    rows = srng.shuffle_row_elements(np.arange(6.0).reshape(3, 2)).eval()
    assert sorted(rows[:, 0].tolist()) == [0.0, 2.0, 4.0]


def test_gen_with_an_op() -> None:
    import theon.tensor.random as tr
    from theon.tensor.random.sampling import PermutationRV

    srng = RandomStream(6)
    x = srng.gen(tr.poisson, 4.0, size=(5,))  # a RandomVariable: parameters first
    f = theon.function([], x)
    np.testing.assert_array_equal(f(), _numpy_child(6, 0).poisson(4.0, size=(5,)))
    assert not np.array_equal(f(), f())
    p = srng.gen(PermutationRV(), 6)  # another random Op: called as op(rng, *inputs)
    np.testing.assert_array_equal(p.eval(), _numpy_child(6, 1).permutation(6))


def test_function_called_twice_differs() -> None:
    for srng in (RandomStream(0), RandomStreams(0)):
        f = theon.function([], srng.uniform(size=(10,)))
        assert not np.array_equal(f(), f())


def test_pickled_function_keeps_the_generator_state() -> None:
    srng = RandomStream(21)
    f = theon.function([], srng.normal(size=(4,)))
    f()
    g = pickle.loads(pickle.dumps(f))
    expected = [f() for _ in range(3)]  # what f gives next, from the same state
    got = [g() for _ in range(3)]
    for a, b in zip(expected, got):
        np.testing.assert_array_equal(a, b)


def test_copy_has_its_own_generator_state() -> None:
    srng = RandomStream(8)
    f = theon.function([], srng.normal(size=(4,)))
    f()
    ref = pickle.loads(pickle.dumps(f))  # the original's future, independently
    h = f.copy()
    copy_draws = [h() for _ in range(2)]
    # the copy starts from the original's current state ...
    np.testing.assert_array_equal(copy_draws[0], ref())
    # ... and advancing it leaves the original alone
    np.testing.assert_array_equal(f(), copy_draws[0])
    np.testing.assert_array_equal(f(), copy_draws[1])
