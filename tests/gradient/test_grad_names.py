"""``theon.grad`` names its results ``(dcost/dW)`` after the cost and the variable, as
Theano did, so that printed graphs (``pydotprint``, ``dprint``) label them."""

from __future__ import annotations

import numpy as np

import theon
import theon.tensor as tt
from theon.printing import pydotprint


def _cost():
    W = tt.dmatrix("W")
    x = tt.dvector("x")
    cost = (tt.tanh(tt.dot(W, x)) ** 2).sum()
    cost.name = "cost"
    return W, x, cost


def test_results_are_named_after_the_cost_and_the_variable() -> None:
    W, x, cost = _cost()
    gW, gx = theon.grad(cost, [W, x])
    assert (gW.name, gx.name) == ("(dcost/dW)", "(dcost/dx)")
    assert theon.grad(cost, W).name == "(dcost/dW)"
    # the named results are the gradients: checked against finite differences
    rng = np.random.default_rng(0)
    theon.gradient.verify_grad(lambda w, v: (tt.tanh(tt.dot(w, v)) ** 2).sum(),
                               [rng.normal(size=(3, 4)), rng.normal(size=4)], rng=rng)


def test_unnamed_cost_or_variable_gives_no_name_and_names_are_kept() -> None:
    W, x, cost = _cost()
    assert theon.grad((tt.dot(W, x) ** 2).sum(), W).name is None  # the cost has no name
    v = tt.dvector()
    c = (v ** 2).sum()
    c.name = "c"
    assert theon.grad(c, v).name is None  # the variable has no name
    # a gradient that is one of the caller's own variables keeps its name
    y = tt.dvector("y")
    given = tt.dvector("given")
    g = theon.grad(None, y, known_grads={y: given})
    assert g is given and g.name == "given"


def test_pydotprint_labels_the_gradient_by_its_name() -> None:
    W, x, cost = _cost()
    gW = theon.grad(cost, W)
    src = pydotprint(gW, format="dot", return_image=True, compact=True)
    text = src.decode() if isinstance(src, bytes) else str(src)
    assert "(dcost/dW)" in text
