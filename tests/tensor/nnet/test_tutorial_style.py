"""``theon.tensor.nnet`` used as the Theano deep-learning tutorials use ``theano.tensor.nnet``.

The code below is written as the tutorials write it (``import theon.tensor as T``,
``T.nnet.softmax``, shared parameters, ``theon.grad``, SGD ``updates``), on small
synthetic data of the tutorials' shapes, and must train: the cost falls.
"""

from __future__ import annotations

import numpy as np
import pytest

import theon
import theon.tensor as T


class LogisticRegression:
    """The tutorial's multi-class logistic regression layer."""

    def __init__(self, input, n_in, n_out):  # the tutorial's argument names
        self.W = theon.shared(np.zeros((n_in, n_out), dtype=theon.config.floatX), name="W",
                              borrow=True)
        self.b = theon.shared(np.zeros((n_out,), dtype=theon.config.floatX), name="b",
                              borrow=True)
        self.p_y_given_x = T.nnet.softmax(T.dot(input, self.W) + self.b)
        self.y_pred = T.argmax(self.p_y_given_x, axis=1)
        self.params = [self.W, self.b]
        self.input = input

    def negative_log_likelihood(self, y):
        return -T.mean(T.log(self.p_y_given_x)[T.arange(y.shape[0]), y])

    def errors(self, y):
        return T.mean(T.neq(self.y_pred, y))


def _blobs(rng, n, n_in, n_out, spread=3.0):
    centers = rng.normal(size=(n_out, n_in)) * spread
    y = rng.integers(0, n_out, size=n)
    x = centers[y] + rng.normal(size=(n, n_in))
    return x.astype(theon.config.floatX), y.astype("int32")


def test_logistic_regression_sgd_cost_falls():
    rng = np.random.default_rng(1234)
    xv, yv = _blobs(rng, 200, 20, 4)
    x = T.matrix("x")
    y = T.ivector("y")
    classifier = LogisticRegression(input=x, n_in=20, n_out=4)
    cost = classifier.negative_log_likelihood(y)
    g_W = theon.grad(cost=cost, wrt=classifier.W)
    g_b = theon.grad(cost=cost, wrt=classifier.b)
    learning_rate = 0.1
    updates = [(classifier.W, classifier.W - learning_rate * g_W),
               (classifier.b, classifier.b - learning_rate * g_b)]
    train_model = theon.function(inputs=[x, y], outputs=cost, updates=updates)
    test_model = theon.function(inputs=[x, y], outputs=classifier.errors(y))
    costs = [float(train_model(xv[i:i + 20], yv[i:i + 20])) for _ in range(5)
             for i in range(0, 200, 20)]
    assert np.isfinite(costs).all()
    assert costs[0] == pytest.approx(np.log(4))  # zero weights: uniform prediction
    assert np.mean(costs[-10:]) < 0.25 * costs[0]
    assert float(test_model(xv, yv)) < 0.1
    # the cost and gradient agree with a NumPy computation at the trained weights
    W, b = classifier.W.get_value(), classifier.b.get_value()
    z = xv @ W + b
    z = z - z.max(axis=1, keepdims=True)
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    want = -np.mean(np.log(p[np.arange(200), yv]))
    got = theon.function([x, y], cost)(xv, yv)
    np.testing.assert_allclose(got, want, rtol=1e-10)
    gW = theon.function([x, y], g_W)(xv, yv)
    np.testing.assert_allclose(gW, xv.T @ (p - np.eye(4)[yv]) / 200, rtol=1e-8, atol=1e-12)


def test_logistic_regression_with_huge_logits_stays_finite():
    """Badly scaled inputs give logits near 1e3: the NLL and its gradient stay finite."""
    rng = np.random.default_rng(5)
    xv, yv = _blobs(rng, 64, 10, 3)
    xv = xv * 100
    x, y = T.matrix("x"), T.ivector("y")
    clf = LogisticRegression(x, 10, 3)
    clf.W.set_value(rng.normal(size=(10, 3)).astype(theon.config.floatX))
    cost = clf.negative_log_likelihood(y)
    f = theon.function([x, y], [cost, *theon.grad(cost, clf.params)])
    c, gW, gb = f(xv, yv)
    assert np.isfinite(c) and np.isfinite(gW).all() and np.isfinite(gb).all()
    assert c > 100  # confidently wrong somewhere: a large but finite cost


@pytest.mark.parametrize("activation", ["tanh", "sigmoid", "relu", "elu", "softplus"])
def test_mlp_with_nnet_activations_and_crossentropy_trains(activation):
    rng = np.random.default_rng(99)
    xv, yv = _blobs(rng, 120, 8, 3, spread=1.5)
    act = T.tanh if activation == "tanh" else getattr(T.nnet, activation)
    x, y = T.matrix("x"), T.ivector("y")
    W1 = theon.shared(rng.uniform(-0.5, 0.5, size=(8, 16)), name="W1")
    b1 = theon.shared(np.zeros(16), name="b1")
    W2 = theon.shared(np.zeros((16, 3)), name="W2")
    b2 = theon.shared(np.zeros(3), name="b2")
    hidden = act(T.dot(x, W1) + b1)
    p_y = T.nnet.softmax(T.dot(hidden, W2) + b2)
    cost = T.nnet.categorical_crossentropy(p_y, y).mean() + 1e-4 * (W1 ** 2).sum()
    params = [W1, b1, W2, b2]
    grads = theon.grad(cost, params)
    train = theon.function([x, y], cost, updates=[(p, p - 0.2 * g) for p, g in zip(params, grads)])
    costs = [float(train(xv, yv)) for _ in range(60)]
    assert np.isfinite(costs).all()
    assert costs[-1] < 0.5 * costs[0], costs[::10]


def test_binary_classifier_with_sigmoid_crossentropy_trains():
    rng = np.random.default_rng(3)
    xv = rng.normal(size=(100, 5))
    yv = (xv @ np.array([1.0, -2.0, 0.5, 0.0, 1.5]) > 0).astype("float64")
    x, t = T.dmatrix("x"), T.dvector("t")
    w = theon.shared(np.zeros(5), name="w")
    p = T.nnet.sigmoid(T.dot(x, w))
    cost = T.nnet.binary_crossentropy(p, t).mean()
    gw = theon.grad(cost, w)
    train = theon.function([x, t], cost, updates=[(w, w - 1.0 * gw)])
    costs = [float(train(xv, yv)) for _ in range(100)]
    assert costs[0] == pytest.approx(np.log(2))
    assert costs[-1] < 0.3 * costs[0]
    w.set_value(w.get_value() * 1000)  # saturated: log(sigmoid) is computed stably
    c, g = theon.function([x, t], [cost, gw])(xv, yv)
    assert np.isfinite(c) and np.isfinite(g).all()
