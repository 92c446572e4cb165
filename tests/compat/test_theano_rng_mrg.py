"""Theano's MRG_RandomStreams path: the MRG spellings, backed by theon.tensor.random."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import theon
import theon.compile.sharedvalue
import theon.graph.basic
import theon.graph.traversal
import theon.tensor as tt
from theon.sandbox.rng_mrg import MRG_RandomStreams
from theon.tensor.random.utils import RandomStream


def _child(seed: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])


def test_is_a_random_stream_with_theanos_default_seed() -> None:
    a, b = MRG_RandomStreams(), MRG_RandomStreams(12345)
    assert isinstance(a, RandomStream)
    np.testing.assert_array_equal(a.uniform((3,)).eval(), b.uniform((3,)).eval())


def test_uniform_normal_match_numpy_and_ignore_nstreams() -> None:
    u = MRG_RandomStreams(3).uniform((2, 3), 1.0, 4.0, nstreams=7).eval()
    np.testing.assert_array_equal(
        u, _child(3).uniform(1.0, 4.0, size=(2, 3)).astype(theon.config.floatX))
    n = MRG_RandomStreams(3).normal((4,), 2.0, 0.5, nstreams=7).eval()
    np.testing.assert_array_equal(
        n, _child(3).normal(2.0, 0.5, size=(4,)).astype(theon.config.floatX))


def test_truncated_normal_matches_scipy_truncnorm() -> None:
    from scipy import stats

    srng = MRG_RandomStreams(3)
    x = srng.normal((10000,), 1.0, 0.5, truncate=True, dtype="float64").eval()
    assert x.dtype == np.float64 and x.min() >= 0.0 and x.max() <= 2.0
    assert stats.kstest(x, stats.truncnorm(-2, 2, loc=1.0, scale=0.5).cdf).pvalue > 1e-3
    # an untruncated normal on the same test fails (the tails are missing)
    y = srng.normal((10000,), 1.0, 0.5, dtype="float64").eval()
    assert stats.kstest(y, stats.truncnorm(-2, 2, loc=1.0, scale=0.5).cdf).pvalue < 1e-3
    # the inverse CDF of the stream's uniform draw, value for value
    u = _child(3).uniform(stats.norm.cdf(-2), stats.norm.cdf(2), size=(10000,))
    np.testing.assert_allclose(x, 1.0 + 0.5 * stats.norm.ppf(u), rtol=1e-9, atol=1e-9)
    t = MRG_RandomStreams(0).truncated_normal((5,), dtype="float32")
    assert t.type.dtype == "float32"


def test_choice_without_replacement_draws_from_each_row_of_p() -> None:
    from scipy import stats

    p = np.array([[0.1, 0.2, 0.3, 0.4], [0.7, 0.1, 0.1, 0.1]])
    srng = MRG_RandomStreams(4)
    x = srng.choice(size=3, p=p, replace=False)
    f = theon.function([], x)
    a = f()
    assert a.shape == (2, 3) and a.dtype == np.int64
    shape_f = theon.function([], x.shape)
    assert tuple(shape_f()) == (2, 3)
    # no draw: the output is the constant shape (copied out, as every constant output)
    copy_node = shape_f.maker.fgraph.outputs[0].owner
    assert isinstance(copy_node.inputs[0], theon.graph.basic.Constant)
    assert all(len(set(r)) == 3 for r in a.tolist())
    (rng,) = [v for v in theon.graph.traversal.graph_inputs([x])
              if isinstance(v, theon.compile.sharedvalue.SharedVariable)]
    # each row equals NumPy's choice on that row, rows in order
    srng.seed(8)
    gen = copy.deepcopy(rng.get_value())
    want = [gen.choice(4, size=3, replace=False, p=row) for row in p]
    np.testing.assert_array_equal(f(), want)
    # first picks follow p (chi-square over many one-draw rows)
    one = srng.multinomial_wo_replacement(n=1, pvals=np.tile(p[:1], (20000, 1))).eval()
    counts = np.bincount(one[:, 0], minlength=4)
    assert stats.chisquare(counts, 20000 * p[0]).pvalue > 1e-3
    with pytest.raises(TypeError, match="a=None"):
        srng.choice(size=2, a=4, p=p)
    with pytest.raises(TypeError, match="'p'"):
        srng.choice(size=2)
    with pytest.raises(TypeError, match="float matrix"):
        srng.choice(size=2, p=np.array([0.5, 0.5]))


def test_binomial_takes_p_before_n() -> None:
    b = MRG_RandomStreams(5).binomial((6,), 0.3, 10).eval()
    np.testing.assert_array_equal(b, _child(5).binomial(10, 0.3, size=(6,)))
    kw = MRG_RandomStreams(5).binomial(size=(6,), n=10, p=0.3).eval()
    np.testing.assert_array_equal(kw, b)


def test_multinomial_rows_of_pvals() -> None:
    pvals = np.array([[0.1, 0.9], [0.8, 0.2], [0.5, 0.5]])
    m = MRG_RandomStreams(2).multinomial(pvals=pvals, n=4).eval()
    assert m.shape == (3, 2) and (m.sum(axis=1) == 4).all()
    with pytest.raises(TypeError, match="pvals"):
        MRG_RandomStreams(2).multinomial()


def test_fresh_numbers_each_call_and_reseeding() -> None:
    srng = MRG_RandomStreams(9)
    x = tt.vector("x")
    f = theon.function([x], srng.binomial(size=x.shape, p=0.5, dtype=theon.config.floatX) * x)
    ones = np.ones(64, dtype=theon.config.floatX)
    a, b = f(ones), f(ones)
    assert not np.array_equal(a, b)
    srng.seed(9)
    np.testing.assert_array_equal(f(ones), a)
