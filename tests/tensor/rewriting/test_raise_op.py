"""The rewrites of checks: a condition known true is dropped, no other."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import theon
import theon.tensor as tt
from theon.compile.mode import get_mode
from theon.tensor.raise_op import Assert, CheckAndRaise


def _checks(f) -> list:
    return [n for n in f.maker.fgraph.apply_nodes if isinstance(n.op, CheckAndRaise)]


def test_static_length_condition_is_dropped() -> None:
    x = tt.tensor("float64", shape=(3,), name="x")
    f = theon.function([x], Assert("three")(x, tt.eq(x.shape[0], 3)) + 1)
    assert _checks(f) == []
    np.testing.assert_array_equal(f(np.zeros(3)), np.ones(3))


def test_only_the_true_conditions_are_dropped() -> None:
    x = tt.dvector("x")
    y = CheckAndRaise(ValueError, "m")(x, tt.constant(True), tt.all(x > 0), tt.constant(1))
    f = theon.function([x], y)
    (node,) = _checks(f)
    assert len(node.inputs) == 2  # the value and the run-time condition
    with pytest.raises(ValueError):
        f(np.array([-1.0]))


def test_unknown_or_false_conditions_stay() -> None:
    x = tt.dvector("x")
    f = theon.function([x], Assert("m")(x, tt.eq(x.shape[0], 3)))
    assert len(_checks(f)) == 1
    with pytest.raises(AssertionError):
        f(np.zeros(2))
    g = theon.function([x], Assert("m")(x, tt.constant(False)))
    assert len(_checks(g)) == 1


def test_unsafe_mode_removes_every_assert_but_not_other_checks() -> None:
    x = tt.dvector("x")
    mode = get_mode(None).including("unsafe")
    f = theon.function([x], Assert("m")(x, tt.all(x > 0)) * 2, mode=mode)
    assert _checks(f) == []
    np.testing.assert_array_equal(f(np.array([-1.0])), [-2.0])
    g = theon.function([x], CheckAndRaise(ValueError, "m")(x, tt.all(x > 0)), mode=mode)
    assert len(_checks(g)) == 1


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-5, 5), min_size=1, max_size=6), st.floats(-5, 5))
def test_rewritten_graph_agrees_with_the_unrewritten_one(vals, bound) -> None:
    """Differential: FAST_RUN against no rewrites, on passing and failing inputs alike."""
    x, b = tt.dvector("x"), tt.dscalar("b")
    out = Assert("m")(x, tt.all(x > b), tt.eq(1, 1)) * 2
    outcomes = []
    for mode in ("FAST_RUN", theon.Mode(optimizer=None)):
        f = theon.function([x, b], out, mode=mode)
        try:
            outcomes.append(("ok", f(np.array(vals), bound).tolist()))
        except AssertionError:
            outcomes.append(("raised", None))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0] == ("ok" if all(v > bound for v in vals) else "raised")
