"""The graphs the view's tests draw."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

import theon
import theon.tensor as tt


def mlp_with_scan(train: bool = True) -> tuple[Any, int]:
    """A dense tanh layer feeding a recurrent sigmoid scan, and a squared loss.

    With ``train`` the function also updates the bias by a gradient step.
    Returns the compiled function and the source line that built the ``Dot``.
    """
    rng = np.random.default_rng(0)
    X = tt.dmatrix("X")
    W1 = theon.shared(rng.normal(size=(4, 8)), name="W1")
    b1 = theon.shared(np.zeros(8), name="b1")
    dot_line = sys._getframe().f_lineno + 1
    h = tt.tanh(tt.dot(X, W1) + b1)
    Wr = theon.shared(rng.normal(size=(8, 8)) * 0.1, name="W_rec")
    hs, _ = theon.scan(lambda ht, acc: tt.nnet.sigmoid(tt.dot(acc, Wr) + ht),
                       sequences=[h], outputs_info=[tt.zeros((8,))])
    loss = ((hs[-1] - 1.0) ** 2).mean()
    if not train:
        return theon.function([X], loss), dot_line
    lr = tt.dscalar("lr")
    f = theon.function([X, lr], loss, updates=[(b1, b1 - lr * theon.grad(loss, b1))])
    return f, dot_line
