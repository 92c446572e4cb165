"""Theano's neural-network functions: activations, softmax and the cross-entropies.

Each is a small graph of theon's own ops (``sigmoid``, ``softplus``,
``Softmax``, ``LogSoftmax``, indexing, ...), so each has a gradient, and the
stabilize rewrites make the usual compositions exact at extreme inputs:
``log(softmax(x))``, ``log(softmax(x)[i, y])`` and ``log(sigmoid(x))`` are
computed as ``log_softmax`` and ``-softplus(-x)``, both in the compiled
function and in the graph that :func:`theon.grad` differentiates.

>>> import numpy as np
>>> import theon, theon.tensor as T
>>> x, y = T.dmatrix("x"), T.lvector("y")
>>> cost = T.nnet.categorical_crossentropy(T.nnet.softmax(x), y).mean()
>>> f = theon.function([x, y], [cost, theon.grad(cost, x)])
>>> c, g = f(np.array([[1000.0, -1000.0]]), np.array([1]))
>>> float(c), g.tolist()
(2000.0, [[1.0, -1.0]])
"""

from __future__ import annotations

from typing import Any

from theon.graph.basic import Variable
from theon.graph.fg import describe
from theon.tensor import math as tm
from theon.tensor.basic import as_tensor_variable
from theon.tensor.creation import arange
from theon.tensor.reduction import argmax
from theon.tensor.special import LogSoftmax, Softmax
from theon.tensor.special import log_softmax as _log_softmax
from theon.tensor.special import softmax as _softmax
from theon.tensor.type import tensor_type
from theon.tensor.variable import TensorVariable

__all__ = [
    "LogSoftmax",
    "Softmax",
    "binary_crossentropy",
    "categorical_crossentropy",
    "crossentropy_categorical_1hot",
    "crossentropy_softmax_1hot",
    "crossentropy_softmax_1hot_with_bias",
    "crossentropy_softmax_argmax_1hot_with_bias",
    "crossentropy_softmax_max_and_argmax_1hot",
    "crossentropy_softmax_max_and_argmax_1hot_with_bias",
    "elu",
    "h_softmax",
    "hard_sigmoid",
    "log_softmax",
    "logsoftmax",
    "relu",
    "selu",
    "sigmoid",
    "sigmoid_binary_crossentropy",
    "softmax",
    "softmax_graph",
    "softmax_with_bias",
    "softplus",
    "softsign",
    "ultra_fast_sigmoid",
]

sigmoid = tm.sigmoid
softplus = tm.softplus

#: SELU's constants (Klambauer et al., 2017, "Self-normalizing neural networks").
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


# ----------------------------------------------------------------------------- activations
def ultra_fast_sigmoid(x: Any) -> TensorVariable:
    """The logistic sigmoid, computed exactly (Theano's name for a fast approximation).

    Theano's version was a piecewise approximation (error up to about 0.02) that
    traded accuracy for speed on old CPUs; theon computes ``sigmoid(x)`` itself,
    which is as fast here and stable at any ``x``.

    >>> import theon.tensor as T
    >>> x = T.dvector("x")
    >>> ultra_fast_sigmoid(x).eval({x: [-1000.0, 0.0, 1000.0]}).tolist()
    [0.0, 0.5, 1.0]
    """
    return tm.sigmoid(x)


def hard_sigmoid(x: Any) -> TensorVariable:
    """Theano's piecewise-linear sigmoid: ``clip(0.2 * x + 0.5, 0, 1)``.

    Its gradient is 0.2 inside ``(-2.5, 2.5)`` and 0 outside.

    >>> import theon.tensor as T
    >>> x = T.dvector("x")
    >>> hard_sigmoid(x).eval({x: [-3.0, 0.0, 1.0, 3.0]}).tolist()
    [0.0, 0.5, 0.7, 1.0]
    """
    v = as_tensor_variable(x)
    return tm.clip(0.2 * v + 0.5, 0, 1)


def softsign(x: Any) -> TensorVariable:
    """``x / (1 + |x|)``: a sigmoid-shaped function with values in ``(-1, 1)``.

    Its derivative ``1 / (1 + |x|)**2`` is computed directly (no cancellation at
    large ``|x|``); it is the scalar op ``theon.scalar.softsign``.

    >>> import theon.tensor as T
    >>> x = T.dvector("x")
    >>> softsign(x).eval({x: [-3.0, 0.0, 1.0]}).tolist()
    [-0.75, 0.0, 0.5]
    """
    return tm.softsign(x)


def relu(x: Any, alpha: Any = 0) -> TensorVariable:
    """Rectified linear unit: ``x`` where ``x > 0``, ``alpha * x`` elsewhere (leaky if alpha > 0).

    Written as Theano writes it, ``0.5 * (1 + alpha) * x + 0.5 * (1 - alpha) * |x|``:
    no comparison, and the gradient at ``x = 0`` is ``(1 + alpha) / 2``.
    ``alpha`` may be a number or a symbolic tensor (broadcast against ``x``).

    >>> import theon.tensor as T
    >>> x = T.dvector("x")
    >>> relu(x).eval({x: [-2.0, 0.0, 3.0]}).tolist()
    [0.0, 0.0, 3.0]
    >>> relu(x, alpha=0.5).eval({x: [-2.0, 3.0]}).tolist()
    [-1.0, 3.0]
    """
    v = as_tensor_variable(x)
    out: TensorVariable
    if isinstance(alpha, (int, float)) and alpha == 0:
        out = 0.5 * v + 0.5 * tm.abs(v)
        return out
    f1 = 0.5 * (1 + alpha)
    f2 = 0.5 * (1 - alpha)
    out = f1 * v + f2 * tm.abs(v)
    return out


def elu(x: Any, alpha: Any = 1) -> TensorVariable:
    """Exponential linear unit: ``x`` where ``x > 0``, ``alpha * (exp(x) - 1)`` elsewhere.

    The exponential is taken of ``min(x, 0)``, so neither the value nor the
    gradient overflows for large positive ``x`` (where that branch is unused).

    >>> import theon.tensor as T
    >>> x = T.dvector("x")
    >>> elu(x).eval({x: [0.0, 2.0, 1000.0]}).tolist()
    [0.0, 2.0, 1000.0]
    >>> float(elu(x).eval({x: [-1000.0]})[0])
    -1.0
    """
    v = as_tensor_variable(x)
    neg = alpha * tm.expm1(tm.minimum(v, 0))
    return tm.switch(tm.gt(v, 0), v, neg)


def selu(x: Any) -> TensorVariable:
    """Scaled exponential linear unit: ``scale * elu(x, alpha)`` with SELU's constants.

    ``alpha`` is about 1.6733 and ``scale`` about 1.0507 (:data:`SELU_ALPHA`,
    :data:`SELU_SCALE`).

    >>> import theon.tensor as T
    >>> x = T.dvector("x")
    >>> selu(x).eval({x: [0.0, 1.0]}).round(4).tolist()
    [0.0, 1.0507]
    """
    out: TensorVariable = SELU_SCALE * elu(x, SELU_ALPHA)
    return out


# ----------------------------------------------------------------------------- softmax
def _rows(c: Any, axis: int | None) -> Any:
    """``c``, a vector made a one-row matrix when ``axis`` is the last (Theano 1.0's
    softmax padded a vector so: ``softmax(v)`` has shape ``(1, n)``)."""
    c = as_tensor_variable(c)
    return c.dimshuffle("x", 0) if c.type.ndim == 1 and axis == -1 else c


def softmax(c: Any, axis: int | None = -1) -> TensorVariable:
    """Softmax along ``axis``: row-wise on a matrix, as Theano's ``nnet.softmax``.

    ``exp(c) / sum(exp(c), axis)``, computed with the maximum subtracted, so it
    never overflows.  ``axis=None`` normalizes over all elements.  As in Theano 1.0,
    a vector (with the default ``axis``) gives a one-row matrix, shape ``(1, n)``;
    :func:`theon.tensor.special.softmax` keeps a vector a vector (PyTensor's).

    >>> import theon.tensor as T
    >>> x, v = T.dmatrix("x"), T.dvector("v")
    >>> softmax(x).eval({x: [[0.0, 0.0], [1000.0, 0.0]]}).tolist()
    [[0.5, 0.5], [1.0, 0.0]]
    >>> softmax(v).eval({v: [0.0, 0.0]}).tolist()
    [[0.5, 0.5]]
    """
    return _softmax(_rows(c, axis), axis=axis)


def log_softmax(c: Any, axis: int | None = -1) -> TensorVariable:
    """``log(softmax(c, axis))`` computed stably; a vector gives a one-row matrix, as
    :func:`softmax` (:func:`theon.tensor.special.log_softmax` keeps it a vector).

    >>> import theon.tensor as T
    >>> x = T.dmatrix("x")
    >>> log_softmax(x).eval({x: [[1000.0, 0.0]]}).tolist()
    [[0.0, -1000.0]]
    """
    return _log_softmax(_rows(c, axis), axis=axis)


def logsoftmax(c: Any, axis: int | None = -1) -> TensorVariable:
    """Theano's spelling of :func:`log_softmax` (a vector gives a one-row matrix).

    >>> import theon.tensor as T
    >>> v = T.dvector("v")
    >>> logsoftmax(v).eval({v: [1000.0, 0.0]}).tolist()
    [[0.0, -1000.0]]
    """
    return log_softmax(c, axis=axis)


def softmax_with_bias(x: Any, b: Any) -> TensorVariable:
    """``softmax(x + b)`` row-wise: ``x`` a matrix, ``b`` a vector (one bias per column).

    >>> import theon.tensor as T
    >>> x, b = T.dmatrix("x"), T.dvector("b")
    >>> softmax_with_bias(x, b).eval({x: [[0.0, 0.0]], b: [0.0, 0.0]}).tolist()
    [[0.5, 0.5]]
    """
    return _softmax(as_tensor_variable(x) + as_tensor_variable(b), axis=-1)


def softmax_graph(c: Any) -> TensorVariable:
    """Softmax written out: ``exp(c) / sum(exp(c), axis=-1, keepdims=True)``.

    The compiled function (and :func:`theon.grad`) compute it as a max-subtracted
    ``softmax``: the stabilize rewrites recognise the form.

    >>> import theon, theon.tensor as T
    >>> x = T.dmatrix("x")
    >>> theon.function([x], softmax_graph(x))([[1000.0, 0.0]]).tolist()
    [[1.0, 0.0]]
    """
    e = tm.exp(as_tensor_variable(c))
    out: TensorVariable = e / tm.sum(e, axis=-1, keepdims=True)
    return out


# ----------------------------------------------------------------------------- cross-entropies
def _check_int(y: Variable, fn: str, what: str) -> None:
    if not tensor_type(y).dtype.startswith(("int", "uint")):
        raise TypeError(f"{fn}: {what} must be integer class indices, got {describe(y)}")


def _pick_last_axis(p: Any, y: Variable, fn: str) -> TensorVariable:
    """``p[..., y]`` entry by entry: ``p[i, j, y[i, j]]`` for ``p`` of one more dimension."""
    _check_int(y, fn, "the true distribution of one dimension fewer")
    nd = tensor_type(p).ndim
    picked: TensorVariable
    if nd == 1:
        picked = p[y]
        return picked
    idx: list[Any] = []
    for d in range(nd - 1):
        order: list[Any] = ["x"] * (nd - 1)
        order[d] = 0
        r: Any = arange(p.shape[d])
        idx.append(r.dimshuffle(*order))
    idx.append(y)
    picked = p[tuple(idx)]
    return picked


def crossentropy_categorical_1hot(coding_dist: Any, true_one_of_n: Any) -> TensorVariable:
    """``-log(coding_dist[i, true_one_of_n[i]])`` for each row ``i``.

    ``coding_dist`` holds probabilities along its last axis; ``true_one_of_n``
    the integer class of each row (one dimension fewer).  Applied to a softmax,
    the compiled function takes the log of ``log_softmax`` instead (exact for
    large logits).

    >>> import numpy as np
    >>> import theon.tensor as T
    >>> p, y = T.dmatrix("p"), T.lvector("y")
    >>> out = crossentropy_categorical_1hot(p, y)
    >>> bool(np.allclose(out.eval({p: [[0.5, 0.5], [0.25, 0.75]], y: [0, 1]}),
    ...                  [np.log(2), np.log(4 / 3)]))
    True
    """
    c, y = as_tensor_variable(coding_dist), as_tensor_variable(true_one_of_n)
    if tensor_type(y).ndim != tensor_type(c).ndim - 1 or tensor_type(c).ndim < 1:
        raise ValueError(
            "crossentropy_categorical_1hot: the class indices need one dimension fewer "
            f"than the distribution; got {describe(c)} and {describe(y)}")
    nll: TensorVariable = -tm.log(_pick_last_axis(c, y, "crossentropy_categorical_1hot"))
    return nll


def categorical_crossentropy(coding_dist: Any, true_dist: Any) -> TensorVariable:
    """Cross-entropy between a predicted distribution and the true one, per row.

    Parameters
    ----------
    coding_dist
        Predicted probabilities along the last axis (for example a softmax).
    true_dist
        Either probabilities of the same shape (one-hot rows, or soft targets):
        the result is ``-sum(true_dist * log(coding_dist), axis=-1)``; or an
        integer array of class indices with one dimension fewer: the result is
        ``-log(coding_dist[i, true_dist[i]])``.

    Returns
    -------
    TensorVariable
        One value per row (``coding_dist``'s shape without the last axis).

    Notes
    -----
    ``categorical_crossentropy(softmax(x), y)`` is computed from ``log_softmax(x)``
    by the stabilize rewrites, so it stays finite for logits of any size, and so
    does its gradient.

    Examples
    --------
    >>> import numpy as np
    >>> import theon.tensor as T
    >>> p, t, y = T.dmatrix("p"), T.dmatrix("t"), T.lvector("y")
    >>> pv = [[0.5, 0.5], [0.25, 0.75]]
    >>> a = categorical_crossentropy(p, t).eval({p: pv, t: [[1.0, 0.0], [0.0, 1.0]]})
    >>> b = categorical_crossentropy(p, y).eval({p: pv, y: [0, 1]})
    >>> bool(np.allclose(a, b)), bool(np.allclose(a, [np.log(2), np.log(4 / 3)]))
    (True, True)
    """
    c, t = as_tensor_variable(coding_dist), as_tensor_variable(true_dist)
    cn, tn = tensor_type(c).ndim, tensor_type(t).ndim
    if cn == 0:
        raise ValueError(f"categorical_crossentropy: coding_dist needs a class axis, "
                         f"got {describe(c)}")
    if tn == cn:
        nll: TensorVariable = -tm.sum(t * tm.log(c), axis=cn - 1)
        return nll
    if tn == cn - 1:
        _check_int(t, "categorical_crossentropy", "true_dist of one dimension fewer")
        return crossentropy_categorical_1hot(c, t)
    raise ValueError(
        "categorical_crossentropy: true_dist must have coding_dist's number of dimensions "
        f"(probabilities) or one fewer (class indices); got {describe(c)} and {describe(t)}")


def binary_crossentropy(output: Any, target: Any) -> TensorVariable:
    """``-(target * log(output) + (1 - target) * log(1 - output))``, elementwise.

    ``output`` holds probabilities.  When it is ``sigmoid(x)``, the compiled
    function computes ``softplus`` forms instead (exact for ``|x|`` up to any size);
    from logits directly, :func:`sigmoid_binary_crossentropy` is the same thing.

    >>> import numpy as np
    >>> import theon, theon.tensor as T
    >>> x, t = T.dvector("x"), T.dvector("t")
    >>> f = theon.function([x, t], binary_crossentropy(T.nnet.sigmoid(x), t))
    >>> f([1000.0, -1000.0, 0.0], [0.0, 0.0, 1.0]).round(6).tolist()
    [1000.0, 0.0, 0.693147]
    """
    o, t = as_tensor_variable(output), as_tensor_variable(target)
    out: TensorVariable = -(t * tm.log(o) + (1.0 - t) * tm.log(1.0 - o))
    return out


def sigmoid_binary_crossentropy(output: Any, target: Any) -> TensorVariable:
    """``binary_crossentropy(sigmoid(output), target)`` computed from the logits ``output``.

    Written ``target * softplus(-output) + (1 - target) * softplus(output)``: no
    ``exp`` overflows and no ``log(0)`` is taken; the gradient with respect to
    the logits is ``sigmoid(output) - target``.

    >>> import theon.tensor as T
    >>> x, t = T.dvector("x"), T.dvector("t")
    >>> sigmoid_binary_crossentropy(x, t).eval({x: [1000.0, -1000.0], t: [0.0, 0.0]}).tolist()
    [1000.0, 0.0]
    """
    x = as_tensor_variable(output)
    t = as_tensor_variable(target)
    out: TensorVariable = t * tm.softplus(-x) + (1.0 - t) * tm.softplus(x)
    return out


def _nll_rows(x: Variable, y_idx: Any, fn: str) -> tuple[TensorVariable, TensorVariable]:
    y = as_tensor_variable(y_idx)
    if tensor_type(x).ndim != 2 or tensor_type(y).ndim != 1:
        raise ValueError(f"{fn}: needs a matrix of logits and a vector of class indices; "
                         f"got {describe(x)} and {describe(y)}")
    _check_int(y, fn, "y_idx")
    nll: TensorVariable = -_pick_last_axis(_log_softmax(x, axis=-1), y, fn)
    return nll, y


def crossentropy_softmax_1hot_with_bias(x: Any, b: Any, y_idx: Any
                                        ) -> tuple[TensorVariable, TensorVariable]:
    """``(nll, sm)``: ``sm = softmax(x + b)`` row-wise, ``nll[i] = -log(sm[i, y_idx[i]])``.

    ``nll`` is computed from ``log_softmax`` (exact for large logits).

    >>> import theon.tensor as T
    >>> x, b, y = T.dmatrix("x"), T.dvector("b"), T.lvector("y")
    >>> nll, sm = crossentropy_softmax_1hot_with_bias(x, b, y)
    >>> nll.eval({x: [[1000.0, 0.0]], b: [0.0, 0.0], y: [1]}).tolist()
    [1000.0]
    """
    z = as_tensor_variable(x) + as_tensor_variable(b)
    nll, _ = _nll_rows(z, y_idx, "crossentropy_softmax_1hot_with_bias")
    return nll, _softmax(z, axis=-1)


def crossentropy_softmax_1hot(x: Any, y_idx: Any) -> tuple[TensorVariable, TensorVariable]:
    """``(nll, sm)``: ``sm = softmax(x)`` row-wise and ``nll[i] = -log(sm[i, y_idx[i]])``.

    >>> import theon.tensor as T
    >>> x, y = T.dmatrix("x"), T.lvector("y")
    >>> nll, sm = crossentropy_softmax_1hot(x, y)
    >>> [v.tolist() for v in (nll.eval({x: [[0.0, 0.0]], y: [0]}), sm.eval({x: [[0.0, 0.0]]}))]
    [[0.6931471805599453], [[0.5, 0.5]]]
    """
    v = as_tensor_variable(x)
    nll, _ = _nll_rows(v, y_idx, "crossentropy_softmax_1hot")
    return nll, _softmax(v, axis=-1)


def crossentropy_softmax_argmax_1hot_with_bias(
    x: Any, b: Any, y_idx: Any
) -> tuple[TensorVariable, TensorVariable, TensorVariable]:
    """``(nll, sm, am)``: :func:`crossentropy_softmax_1hot_with_bias` and ``argmax(x + b)`` per row.

    >>> import theon.tensor as T
    >>> x, b, y = T.dmatrix("x"), T.dvector("b"), T.lvector("y")
    >>> nll, sm, am = crossentropy_softmax_argmax_1hot_with_bias(x, b, y)
    >>> am.eval({x: [[0.0, 1.0], [2.0, 0.0]], b: [0.0, 0.0]}).tolist()
    [1, 0]
    """
    z = as_tensor_variable(x) + as_tensor_variable(b)
    nll, _ = _nll_rows(z, y_idx, "crossentropy_softmax_argmax_1hot_with_bias")
    return nll, _softmax(z, axis=-1), argmax(z, axis=-1)


def crossentropy_softmax_max_and_argmax_1hot_with_bias(
    x: Any, b: Any, y_idx: Any
) -> tuple[TensorVariable, TensorVariable, TensorVariable, TensorVariable]:
    """``(nll, sm, max(sm), argmax(sm))`` per row, for ``sm = softmax(x + b)``.

    >>> import theon.tensor as T
    >>> x, b, y = T.dmatrix("x"), T.dvector("b"), T.lvector("y")
    >>> out = crossentropy_softmax_max_and_argmax_1hot_with_bias(x, b, y)
    >>> out[2].eval({x: [[0.0, 0.0]], b: [0.0, 0.0]}).tolist()
    [0.5]
    """
    nll, sm, am = crossentropy_softmax_argmax_1hot_with_bias(x, b, y_idx)
    return nll, sm, tm.max(sm, axis=-1), am


def crossentropy_softmax_max_and_argmax_1hot(
    x: Any, y_idx: Any
) -> tuple[TensorVariable, TensorVariable, TensorVariable, TensorVariable]:
    """``(nll, sm, max(sm), argmax(sm))`` per row, for ``sm = softmax(x)``.

    >>> import theon.tensor as T
    >>> x, y = T.dmatrix("x"), T.lvector("y")
    >>> out = crossentropy_softmax_max_and_argmax_1hot(x, y)
    >>> out[3].eval({x: [[0.0, 3.0]]}).tolist()
    [1]
    """
    v = as_tensor_variable(x)
    nll, _ = _nll_rows(v, y_idx, "crossentropy_softmax_max_and_argmax_1hot")
    sm = _softmax(v, axis=-1)
    return nll, sm, tm.max(sm, axis=-1), argmax(v, axis=-1)


def h_softmax(x: Any, batch_size: Any, n_outputs: int, n_classes: int, n_outputs_per_class: int,
              W1: Any, b1: Any, W2: Any, b2: Any, target: Any = None) -> TensorVariable:
    """Two-level hierarchical softmax: a softmax over classes times one within the class.

    The ``n_outputs`` outputs are split into ``n_classes`` groups of
    ``n_outputs_per_class`` (the last group may be partly unused).  Output ``k``
    is in group ``k // n_outputs_per_class`` at place ``k % n_outputs_per_class``, and

        p(k | x) = softmax(x W1 + b1)[group] * softmax(x W2[group] + b2[group])[place]

    Parameters
    ----------
    x
        Matrix ``(batch_size, n_in)``.
    batch_size
        The number of rows of ``x`` (kept for Theano's signature; ``x.shape[0]`` is used).
    n_outputs, n_classes, n_outputs_per_class
        Sizes; ``n_classes * n_outputs_per_class >= n_outputs``.
    W1, b1
        ``(n_in, n_classes)`` and ``(n_classes,)``: the class level.
    W2, b2
        ``(n_classes, n_in, n_outputs_per_class)`` and ``(n_classes, n_outputs_per_class)``.
    target
        None: all probabilities, ``(batch_size, n_outputs)``.  An integer vector
        of outputs: the probability of each row's target only, ``(batch_size,)``
        (training, where only that one is needed: the output-level softmax is
        computed for the target's group alone).

    Examples
    --------
    >>> import numpy as np
    >>> import theon.tensor as T
    >>> rng = np.random.default_rng(0)
    >>> x = T.dmatrix("x")
    >>> W1, b1 = rng.normal(size=(4, 3)), np.zeros(3)
    >>> W2, b2 = rng.normal(size=(3, 4, 2)), np.zeros((3, 2))
    >>> p = h_softmax(x, 5, 6, 3, 2, W1, b1, W2, b2).eval({x: rng.normal(size=(5, 4))})
    >>> p.shape, bool(np.allclose(p.sum(axis=1), 1.0))
    ((5, 6), True)
    """
    from theon.tensor.blas import dot, einsum
    from theon.tensor.reshaping import reshape
    from theon.tensor.subtensor import getitem

    if n_classes * n_outputs_per_class < n_outputs:
        raise ValueError(f"h_softmax: {n_classes} classes of {n_outputs_per_class} outputs "
                         f"hold fewer than n_outputs={n_outputs}")
    xv = as_tensor_variable(x)
    w1 = as_tensor_variable(W1)
    w2 = as_tensor_variable(W2)
    bias2 = as_tensor_variable(b2)
    class_probs = _softmax(dot(xv, w1) + b1, axis=-1)  # (batch, n_classes)
    if target is None:
        # (batch, n_classes, per): every group's softmax, times its class probability
        act = einsum("bi,cio->bco", xv, w2) + bias2
        probs = _softmax(act, axis=-1) * class_probs.dimshuffle(0, 1, "x")
        flat = reshape(probs, (xv.shape[0], n_classes * n_outputs_per_class))
        return getitem(flat, (slice(None), slice(0, n_outputs)))
    tgt = as_tensor_variable(target)
    _check_int(tgt, "h_softmax", "target")
    group = tgt // n_outputs_per_class
    place = tgt % n_outputs_per_class
    rows = arange(xv.shape[0])
    act = einsum("bi,bio->bo", xv, w2[group]) + bias2[group]  # (batch, per)
    within = _softmax(act, axis=-1)
    out: TensorVariable = within[rows, place] * class_probs[rows, group]
    return out
