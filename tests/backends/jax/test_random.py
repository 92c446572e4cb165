"""``mode="JAX"`` on the random Ops: every distribution of the table through
``jax.random``, the generator as a PRNG key threaded as the next rng.

JAX's streams are not NumPy's, so the draws are compared in distribution with the
reference VM's (a two-sample Kolmogorov-Smirnov test, fixed seeds), and their
shapes, dtypes and supports exactly; determinism and fresh draws per call are
checked directly."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="mode='JAX' needs jax (pip install 'theon[jax]')")

import scipy.stats  # noqa: E402

import theon  # noqa: E402
import theon.tensor as tt  # noqa: E402
import theon.tensor.random as tr  # noqa: E402
from theon.backends.jax.random import generator_to_key, key_to_generator  # noqa: E402
from theon.compile.mode import Mode  # noqa: E402
from theon.tensor.random.basic import DISTRIBUTIONS  # noqa: E402
from theon.tensor.random.op import RandomVariable  # noqa: E402
from theon.tensor.shared_randomstreams import RandomStreams  # noqa: E402

VM = Mode(linker="vm")
N = 20000

#: example parameters of each distribution
EXAMPLES = {
    "uniform": (2.0, 5.0), "normal": (1.0, 2.0), "standard_normal": (), "lognormal": (0.5, 0.7),
    "exponential": (2.0,), "gamma": (2.5,), "beta": (2.0, 3.0), "chisquare": (4.0,),
    "standard_t": (5.0,), "t": (5.0, 1.0, 2.0), "cauchy": (1.0, 2.0), "halfcauchy": (1.0, 2.0),
    "laplace": (1.0, 2.0), "logistic": (1.0, 2.0), "gumbel": (1.0, 2.0), "pareto": (3.0, 2.0),
    "weibull": (1.5,), "vonmises": (0.0, 2.0), "halfnormal": (1.0, 2.0),
    "invgamma": (3.0, 2.0), "gengamma": (3.0, 2.0, 1.5), "truncexpon": (2.0, 1.0, 0.5),
    "triangular": (0.0, 1.0, 3.0), "wald": (1.5, 2.0), "rayleigh": (2.0,),
    "bernoulli": (0.3,), "binomial": (10, 0.3), "betabinom": (10, 2.0, 3.0),
    "poisson": (3.0,), "geometric": (0.3,), "negative_binomial": (5, 0.4),
    "hypergeometric": (7, 5, 6), "categorical": ([0.2, 0.8],), "multinomial": (10, [0.2, 0.8]),
    "dirichlet": ([1.0, 2.0],), "multivariate_normal": ([0.0, 1.0], [[1.0, 0.0], [0.0, 1.0]]),
    "integers": (2, 7),
}

#: the support of each distribution's draws with the example parameters
SUPPORT = {
    "uniform": (2.0, 5.0), "beta": (0.0, 1.0), "exponential": (0.0, np.inf),
    "gamma": (0.0, np.inf), "chisquare": (0.0, np.inf), "lognormal": (0.0, np.inf),
    "pareto": (2.0, np.inf), "weibull": (0.0, np.inf), "vonmises": (-np.pi, np.pi),
    "halfnormal": (1.0, np.inf), "halfcauchy": (1.0, np.inf), "invgamma": (0.0, np.inf),
    "gengamma": (0.0, np.inf), "truncexpon": (1.0, 1.0 + 2.0 * 0.5),
    "triangular": (0.0, 3.0), "wald": (0.0, np.inf), "rayleigh": (0.0, np.inf),
    "bernoulli": (0, 1), "binomial": (0, 10), "betabinom": (0, 10),
    "poisson": (0, np.inf), "geometric": (1, np.inf), "negative_binomial": (0, np.inf),
    "hypergeometric": (1, 6), "categorical": (0, 1), "multinomial": (0, 10),
    "dirichlet": (0.0, 1.0), "integers": (2, 6),
}


def test_every_distribution_has_an_example():
    assert set(EXAMPLES) == set(DISTRIBUTIONS)


def draws(name, mode, seed, size=(N,)):
    rng = tr.shared_rng(seed)
    nxt, x = getattr(tr, name)(*EXAMPLES[name], size=size, rng=rng, return_next_rng=True)
    return theon.function([], x, updates={rng: nxt}, mode=mode)


@pytest.mark.parametrize("name", DISTRIBUTIONS)
def test_distribution_matches_numpys_in_law_shape_dtype_support(name):
    got = draws(name, "JAX", 1)()
    want = draws(name, VM, 2)()
    assert got.dtype == want.dtype and got.shape == want.shape
    lo, hi = SUPPORT.get(name, (-np.inf, np.inf))
    assert got.min() >= lo and got.max() <= hi, (got.min(), got.max())
    cols = got.reshape(N, -1).T, want.reshape(N, -1).T
    for g, w in zip(*cols):
        p = scipy.stats.ks_2samp(g, w).pvalue
        assert p > 1e-3, (name, p, g.mean(), w.mean())
    if name not in ("cauchy", "halfcauchy", "standard_t", "t", "pareto"):
        # moments exist (and converge) for the others
        np.testing.assert_allclose(got.mean(0), want.mean(0), rtol=0.05, atol=0.05)
        np.testing.assert_allclose(got.var(0), want.var(0), rtol=0.1, atol=0.02)


def test_parameters_broadcast_and_float32_draws():
    loc = tt.dvector("loc")
    x = tr.normal(loc, 1.0, size=(4000, 3), rng=tr.shared_rng(0), dtype="float32")
    y = tr.gamma(tt.constant(np.array([1.0, 5.0])), scale=2.0, rng=tr.shared_rng(1))
    f = theon.function([loc], [x, y], mode="JAX")
    a, b = f(np.array([-10.0, 0.0, 10.0]))
    assert a.dtype == np.float32 and a.shape == (4000, 3)
    np.testing.assert_allclose(a.mean(0), [-10.0, 0.0, 10.0], atol=0.1)
    assert b.shape == (2,) and b.dtype == np.float64 and (b > 0).all()


def test_same_seed_same_draws_and_each_call_fresh_ones():
    f, g = draws("normal", "JAX", 7, (5,)), draws("normal", "JAX", 7, (5,))
    a1, a2 = f(), f()
    b1, b2 = g(), g()
    np.testing.assert_array_equal(a1, b1)
    np.testing.assert_array_equal(a2, b2)
    assert not np.allclose(a1, a2)  # the update advanced the shared generator


def test_the_shared_generator_stays_a_numpy_generator_and_is_advanced():
    rng = tr.shared_rng(0)
    nxt, x = tr.uniform(size=(3,), rng=rng, return_next_rng=True)
    before = rng.get_value().bit_generator.state
    f = theon.function([], x, updates={rng: nxt}, mode="JAX")
    f()
    after = rng.get_value()
    assert isinstance(after, np.random.Generator)
    assert after.bit_generator.state != before
    # without an update, the same draws each call (the generator is not advanced)
    h = theon.function([], x, mode="JAX")
    np.testing.assert_array_equal(h(), h())


def test_key_conversion_does_not_advance_the_callers_generator():
    g = np.random.default_rng(5)
    state = g.bit_generator.state
    k1, k2 = generator_to_key(g), generator_to_key(g)
    assert g.bit_generator.state == state
    np.testing.assert_array_equal(jax.random.key_data(k1), jax.random.key_data(k2))
    h = key_to_generator(jax.random.split(k1)[0])
    assert isinstance(h, np.random.Generator)


def test_generators_cross_the_jit_boundary_as_raw_key_data():
    """The generator goes into the jitted function as two uint32 words (no jax array is
    made outside it) and comes back from the next key's words; the draws are those of
    the typed threefry key of :func:`generator_to_key`, split into (next, draw)."""
    from theon.backends.jax.random import bits_to_generator, generator_bits
    from theon.link.jax.dispatch import jax_typify, jax_untypify
    from theon.tensor.random.type import RandomGeneratorType

    g = np.random.default_rng(11)
    t = RandomGeneratorType()
    bits = jax_typify(t, g)
    assert type(bits) is np.ndarray and bits.dtype == np.uint32 and bits.shape == (2,)
    np.testing.assert_array_equal(bits, jax.random.key_data(generator_to_key(g)))
    np.testing.assert_array_equal(bits, generator_bits(g))

    rng = theon.shared(np.random.default_rng(11), name="rng")
    nxt, x = tr.normal(0.0, 1.0, size=(4, 3), rng=rng).owner.outputs
    f = theon.function([], x, updates={rng: nxt}, mode="JAX")
    got = f()
    with jax.enable_x64(True):
        key_next, sub = jax.random.split(generator_to_key(np.random.default_rng(11)))
        want = jax.random.normal(sub, (4, 3), dtype="float64")
    np.testing.assert_array_equal(got, np.asarray(want))
    # the updated generator: the one made from the next key's data
    after = rng.get_value()
    expected = key_to_generator(key_next)
    assert after.bit_generator.state == expected.bit_generator.state
    gen = jax_untypify(t, np.asarray(jax.random.key_data(key_next)))
    assert gen.bit_generator.state == bits_to_generator(
        jax.random.key_data(key_next)).bit_generator.state == expected.bit_generator.state


def test_random_streams_default_updates_and_reseeding():
    """Theano's form: no updates listed, the stream's default updates advance it."""
    srng = RandomStreams(seed=234)
    v = tt.dmatrix("v")
    out = srng.binomial(size=v.shape, n=1, p=0.7, dtype="float64") * v
    f = theon.function([v], out, mode="JAX")
    ones = np.ones((50, 40))
    first = f(ones)
    assert set(np.unique(first)) <= {0.0, 1.0}
    assert abs(first.mean() - 0.7) < 0.05
    assert not np.array_equal(f(ones), first)
    srng.seed(234)
    np.testing.assert_array_equal(f(ones), first)


def test_choice_permutation_shuffle_and_row_choice():
    x = tt.dvector("x")
    c1 = tr.choice(5, size=(5,), replace=False, rng=tr.shared_rng(0))
    c2 = tr.choice(tt.constant(np.array([10, 20, 30])), size=(1000,),
                   p=np.array([0.2, 0.3, 0.5]), rng=tr.shared_rng(1))
    perm = tr.permutation(6, rng=tr.shared_rng(2))
    shuf = tr.shuffle(x, rng=tr.shared_rng(3))
    rows = tr.sampling.row_choice(2, np.array([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5]]),
                                  rng=tr.shared_rng(4))
    f = theon.function([x], [c1, c2, perm, shuf, rows], mode="JAX")
    a, b, p, s, r = f(np.arange(4.0))
    assert sorted(a.tolist()) == [0, 1, 2, 3, 4] and a.dtype == np.int64
    assert set(b.tolist()) <= {10, 20, 30}
    np.testing.assert_allclose([np.mean(b == k) for k in (10, 20, 30)], [0.2, 0.3, 0.5],
                               atol=0.05)
    assert sorted(p.tolist()) == list(range(6)) and p.dtype == np.int64
    assert sorted(s.tolist()) == [0.0, 1.0, 2.0, 3.0]
    assert [sorted(row) for row in r.tolist()] == [[0, 1], [1, 2]]


def test_a_size_from_a_run_time_value_is_named():
    rng = tr.shared_rng(0)
    n = tt.lscalar("n")
    x = tr.normal(size=(n,), rng=rng)
    f = theon.function([n], x, mode="JAX")
    with pytest.raises(Exception, match="run-time value"):
        f(3)


def test_chained_draws_in_one_function_differ():
    """Each draw's next_rng is a new key: a draw from it is not a repeat."""
    rng = tr.shared_rng(0)
    n1, x1 = tr.normal(size=(4,), rng=rng, return_next_rng=True)
    n2, x2 = tr.normal(size=(4,), rng=n1, return_next_rng=True)
    _, x3 = tr.normal(size=(4,), rng=n2, return_next_rng=True)
    a, b, c = theon.function([], [x1, x2, x3], mode="JAX")()
    assert not np.allclose(a, b) and not np.allclose(b, c) and not np.allclose(a, c)


def test_multivariate_normal_methods_and_a_subclass_draw_as_their_distribution():
    """The rule of a class serves its subclasses (PyMC's BetaClippedRV is a BetaRV), and
    each method of the multivariate normal has the law of the covariance."""
    class ClippedBetaRV(tr.BetaRV):
        @classmethod
        def rng_fn(cls, rng, a, b, size):
            return np.clip(rng.beta(a, b, size=size), 1e-3, 1 - 1e-3)

    x = ClippedBetaRV()(2.0, 3.0, size=(N,), rng=tr.shared_rng(0))
    got = theon.function([], x, mode="JAX")()
    want = theon.function([], x, mode=VM)()
    assert scipy.stats.ks_2samp(got, want).pvalue > 1e-3
    cov = np.array([[2.0, 0.5], [0.5, 1.0]])
    for method in ("cholesky", "svd", "eigh"):
        y = tr.multivariate_normal(np.zeros(2), cov, size=(N,), method=method,
                                   rng=tr.shared_rng(1))
        assert y.owner.op.method == method
        np.testing.assert_allclose(np.cov(theon.function([], y, mode="JAX")().T), cov,
                                   atol=0.1)


def test_a_subclass_without_a_jax_rule_is_named():
    class DoubledNormalRV(RandomVariable):
        name = "doubled_normal"
        signature = "(),()->()"
        dtype = "floatX"

        @classmethod
        def rng_fn(cls, rng, loc, scale, size):
            return 2.0 * rng.normal(loc, scale, size=size)

    x = DoubledNormalRV()(0.0, 1.0, size=(3,), rng=tr.shared_rng(0))
    with pytest.raises(NotImplementedError, match=r"no JAX rule \(DoubledNormalRV\)"):
        theon.function([], x, mode="JAX")
