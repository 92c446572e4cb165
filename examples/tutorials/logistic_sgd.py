"""Logistic regression with minibatch SGD: the Theano tutorial's ``logistic_sgd.py``.

Written against the Theano API; the only change is the import (``theano`` ->
``theon``) and the synthetic MNIST-shaped data (``_data.py``) instead of the download.
"""

from __future__ import annotations

import numpy
from _data import mnist_like

import theon
import theon.tensor as T


class LogisticRegression(object):
    def __init__(self, input, n_in, n_out):
        self.W = theon.shared(value=numpy.zeros((n_in, n_out), dtype=theon.config.floatX),
                              name="W", borrow=True)
        self.b = theon.shared(value=numpy.zeros((n_out,), dtype=theon.config.floatX),
                              name="b", borrow=True)
        self.p_y_given_x = T.nnet.softmax(T.dot(input, self.W) + self.b)
        self.y_pred = T.argmax(self.p_y_given_x, axis=1)
        self.params = [self.W, self.b]
        self.input = input

    def negative_log_likelihood(self, y):
        return -T.mean(T.log(self.p_y_given_x)[T.arange(y.shape[0]), y])

    def errors(self, y):
        if y.ndim != self.y_pred.ndim:
            raise TypeError("y should have the same shape as self.y_pred",
                            ("y", y.type, "y_pred", self.y_pred.type))
        if y.dtype.startswith("int"):
            return T.mean(T.neq(self.y_pred, y))
        raise NotImplementedError()


def shared_dataset(data_xy, borrow=True):
    data_x, data_y = data_xy
    shared_x = theon.shared(numpy.asarray(data_x, dtype=theon.config.floatX), borrow=borrow)
    shared_y = theon.shared(numpy.asarray(data_y, dtype=theon.config.floatX), borrow=borrow)
    return shared_x, T.cast(shared_y, "int32")


def sgd_optimization_mnist(learning_rate=0.13, n_epochs=5, batch_size=20, n_train=400):
    train_set_x, train_set_y = shared_dataset(mnist_like(n_train, seed=1))
    test_set_x, test_set_y = shared_dataset(mnist_like(200, seed=2))
    n_train_batches = train_set_x.get_value(borrow=True).shape[0] // batch_size
    n_test_batches = test_set_x.get_value(borrow=True).shape[0] // batch_size

    index = T.lscalar()
    x = T.matrix("x")
    y = T.ivector("y")
    classifier = LogisticRegression(input=x, n_in=28 * 28, n_out=10)
    cost = classifier.negative_log_likelihood(y)

    test_model = theon.function(
        inputs=[index],
        outputs=classifier.errors(y),
        givens={
            x: test_set_x[index * batch_size: (index + 1) * batch_size],
            y: test_set_y[index * batch_size: (index + 1) * batch_size],
        },
    )
    g_W = T.grad(cost=cost, wrt=classifier.W)
    g_b = T.grad(cost=cost, wrt=classifier.b)
    updates = [(classifier.W, classifier.W - learning_rate * g_W),
               (classifier.b, classifier.b - learning_rate * g_b)]
    train_model = theon.function(
        inputs=[index],
        outputs=cost,
        updates=updates,
        givens={
            x: train_set_x[index * batch_size: (index + 1) * batch_size],
            y: train_set_y[index * batch_size: (index + 1) * batch_size],
        },
    )
    epoch_costs = []
    for _epoch in range(n_epochs):
        epoch_costs.append(float(numpy.mean([train_model(i) for i in range(n_train_batches)])))
    test_error = float(numpy.mean([test_model(i) for i in range(n_test_batches)]))
    return {"costs": epoch_costs, "test_error": test_error}


if __name__ == "__main__":
    res = sgd_optimization_mnist()
    print("epoch costs:", ["%.4f" % c for c in res["costs"]])
    print("test error: %.1f %%" % (100 * res["test_error"]))
