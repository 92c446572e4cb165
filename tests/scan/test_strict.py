"""``scan(strict=True)`` with Theano's meaning (issue 32 item 6): it governs shared
variables only; a free non-shared variable of the step is allowed."""

from __future__ import annotations

import numpy as np
import pytest

import theon
import theon.tensor as T


def test_free_non_shared_variables_are_allowed() -> None:
    xs, a = T.dvector("xs"), T.dscalar("a")
    hs, _ = theon.scan(lambda x, h: a * h + x, sequences=xs, outputs_info=T.constant(0.0),
                       strict=True)
    f = theon.function([xs, a], [hs, theon.grad(hs.sum(), a)])
    xv = np.array([1.0, 2.0, 3.0])
    got, g = f(xv, 0.5)
    np.testing.assert_allclose(got, [1.0, 2.5, 4.25])
    eps = 1e-6
    fd = (f(xv, 0.5 + eps)[0].sum() - f(xv, 0.5 - eps)[0].sum()) / (2 * eps)
    np.testing.assert_allclose(g, fd, rtol=1e-7)


def test_shared_variables_must_be_non_sequences() -> None:
    xs = T.dvector("xs")
    w = theon.shared(np.float64(2.0), name="w")
    with pytest.raises(ValueError, match="shared variable 'w'.*not in non_sequences"):
        theon.scan(lambda x: x * w, sequences=xs, strict=True)
    ys, _ = theon.scan(lambda x, w_: x * w_, sequences=xs, non_sequences=[w], strict=True)
    np.testing.assert_allclose(ys.eval({xs: np.array([1.0, 3.0])}), [2.0, 6.0])
    ys, _ = theon.scan(lambda x: x * w, sequences=xs)  # not strict: found by itself
    np.testing.assert_allclose(ys.eval({xs: np.array([1.0, 3.0])}), [2.0, 6.0])


def test_updated_shared_variables_and_random_streams_need_not_be_passed() -> None:
    count = theon.shared(np.float64(0.0), name="count")
    srng = T.shared_randomstreams.RandomStreams(seed=3)

    def step(x: T.TensorVariable) -> tuple[T.TensorVariable, dict[object, object]]:
        return x + srng.uniform(low=0.0, high=1e-9), {count: count + 1}

    xs = T.dvector("xs")
    ys, upd = theon.scan(step, sequences=xs, strict=True)
    f = theon.function([xs], ys, updates=upd)
    got = f(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(got, [1.0, 2.0, 3.0], atol=1e-8)
    assert float(count.get_value()) == 3.0


def test_an_outer_expression_of_shared_variables_may_be_read() -> None:
    """What the step reads from outside (computed there from shared variables) is a free
    non-shared variable: allowed, as in Theano."""
    xs = T.dvector("xs")
    w = theon.shared(np.float64(3.0), name="w")
    scale = w * 2  # built outside the step
    ys, _ = theon.scan(lambda x: x * scale, sequences=xs, strict=True)
    np.testing.assert_allclose(ys.eval({xs: np.array([1.0, 2.0])}), [6.0, 12.0])
