"""Theano's MRG_RandomStreams path: the MRG spellings, backed by theon.tensor.random."""

from __future__ import annotations

import numpy as np
import pytest

import theon
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
    with pytest.raises(NotImplementedError, match="truncate"):
        MRG_RandomStreams(3).normal((4,), truncate=True)


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
