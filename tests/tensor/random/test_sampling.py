"""choice, permutation and shuffle against NumPy's Generator and scipy.stats."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from scipy import stats

import theon
import theon.tensor as tt
import theon.tensor.random as tr

SEED = 77
P5 = np.array([0.1, 0.2, 0.3, 0.15, 0.25])


def _eval(x: Any) -> np.ndarray:
    return theon.function([], x)()


@pytest.mark.parametrize("a", [5, np.array([1.5, 2.5, 3.5, 4.5, 5.5])])
@pytest.mark.parametrize("replace", [True, False])
@pytest.mark.parametrize("p", [None, P5])
@pytest.mark.parametrize("size", [None, (3,), (2, 2)])
def test_choice_equals_numpy(a: Any, replace: bool, p: Any, size: Any) -> None:
    got = _eval(tr.choice(a, size=size, replace=replace, p=p, rng=tr.shared_rng(SEED)))
    want = np.random.default_rng(SEED).choice(a, size=size, replace=replace, p=p)
    assert got.shape == np.shape(want)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("x", [6, np.arange(12.0).reshape(4, 3)])
def test_permutation_and_shuffle_equal_numpy(x: Any) -> None:
    got = _eval(tr.permutation(x, rng=tr.shared_rng(SEED)))
    np.testing.assert_array_equal(got, np.random.default_rng(SEED).permutation(x))
    if np.ndim(x):
        want = np.array(x, copy=True)
        np.random.default_rng(SEED).shuffle(want)
        np.testing.assert_array_equal(_eval(tr.shuffle(x, rng=tr.shared_rng(SEED))), want)


def test_inferred_shapes() -> None:
    v = tt.dvector("v")
    m = tt.dmatrix("m")
    n = tt.lscalar("n")
    for out, ins, vals in [
        (tr.choice(v, size=(2, 3), rng=tr.shared_rng(0)), [v], [np.arange(5.0)]),
        (tr.permutation(m, rng=tr.shared_rng(0)), [m], [np.ones((4, 2))]),
        (tr.shuffle(m, rng=tr.shared_rng(0)), [m], [np.ones((4, 2))]),
        (tr.permutation(n, rng=tr.shared_rng(0)), [n], [7]),
    ]:
        f = theon.function(ins, out.shape)
        assert not any(isinstance(nd.op, (tr.ChoiceRV, tr.PermutationRV))
                       for nd in f.maker.fgraph.toposort())
        assert tuple(f(*vals)) == theon.function(ins, out)(*vals).shape


def _chi2(counts: np.ndarray, probs: np.ndarray) -> float:
    return float(stats.chisquare(counts, probs * counts.sum()).pvalue)


def test_goodness_of_fit() -> None:
    x = _eval(tr.choice(5, size=(10_000,), p=P5, rng=tr.shared_rng(SEED)))
    assert _chi2(np.bincount(x, minlength=5), P5) > 1e-3
    # the first element of a permutation, and of a shuffle, is uniform over the entries
    rng = tr.shared_rng(SEED)
    nxt, perm = tr.permutation(5, rng=rng, return_next_rng=True)
    f = theon.function([], perm[0], updates={rng: nxt})
    first = np.array([f() for _ in range(2000)])
    assert _chi2(np.bincount(first, minlength=5), np.full(5, 0.2)) > 1e-3
    # and the check can fail: choice with p is not uniform
    assert _chi2(np.bincount(x, minlength=5), np.full(5, 0.2)) < 1e-3


def test_errors() -> None:
    with pytest.raises(TypeError, match="'a'"):
        tr.choice(np.ones((2, 2)), rng=tr.shared_rng(0))
    with pytest.raises(ValueError, match="different lengths"):
        tr.choice(np.arange(3.0), p=P5, rng=tr.shared_rng(0))
    with pytest.raises(TypeError, match="'size'"):
        tr.choice(5, size=1.5, rng=tr.shared_rng(0))
    with pytest.raises(TypeError, match="'x'"):
        tr.shuffle(3, rng=tr.shared_rng(0))
