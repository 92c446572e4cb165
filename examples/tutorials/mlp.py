"""A multilayer perceptron: the Theano tutorial's ``mlp.py``.

Written against the Theano API; the only change is the import (``theano`` ->
``theon``) and the synthetic MNIST-shaped data (``_data.py``) instead of the download.
"""

from __future__ import annotations

import numpy
from _data import mnist_like
from logistic_sgd import LogisticRegression, shared_dataset

import theon
import theon.tensor as T


class HiddenLayer(object):
    def __init__(self, rng, input, n_in, n_out, W=None, b=None, activation=T.tanh):
        self.input = input
        if W is None:
            W_values = numpy.asarray(
                rng.uniform(low=-numpy.sqrt(6.0 / (n_in + n_out)),
                            high=numpy.sqrt(6.0 / (n_in + n_out)), size=(n_in, n_out)),
                dtype=theon.config.floatX,
            )
            if activation == theon.tensor.nnet.sigmoid:
                W_values *= 4
            W = theon.shared(value=W_values, name="W", borrow=True)
        if b is None:
            b_values = numpy.zeros((n_out,), dtype=theon.config.floatX)
            b = theon.shared(value=b_values, name="b", borrow=True)
        self.W = W
        self.b = b
        lin_output = T.dot(input, self.W) + self.b
        self.output = lin_output if activation is None else activation(lin_output)
        self.params = [self.W, self.b]


class MLP(object):
    def __init__(self, rng, input, n_in, n_hidden, n_out):
        self.hiddenLayer = HiddenLayer(rng=rng, input=input, n_in=n_in, n_out=n_hidden,
                                       activation=T.tanh)
        self.logRegressionLayer = LogisticRegression(input=self.hiddenLayer.output,
                                                     n_in=n_hidden, n_out=n_out)
        self.L1 = abs(self.hiddenLayer.W).sum() + abs(self.logRegressionLayer.W).sum()
        self.L2_sqr = (self.hiddenLayer.W ** 2).sum() + (self.logRegressionLayer.W ** 2).sum()
        self.negative_log_likelihood = self.logRegressionLayer.negative_log_likelihood
        self.errors = self.logRegressionLayer.errors
        self.params = self.hiddenLayer.params + self.logRegressionLayer.params
        self.input = input


def test_mlp(learning_rate=0.01, L1_reg=0.00, L2_reg=0.0001, n_epochs=5, batch_size=20,
             n_hidden=100, n_train=400):
    train_set_x, train_set_y = shared_dataset(mnist_like(n_train, seed=1))
    n_train_batches = train_set_x.get_value(borrow=True).shape[0] // batch_size

    index = T.lscalar()
    x = T.matrix("x")
    y = T.ivector("y")
    rng = numpy.random.RandomState(1234)
    classifier = MLP(rng=rng, input=x, n_in=28 * 28, n_hidden=n_hidden, n_out=10)
    cost = (classifier.negative_log_likelihood(y) + L1_reg * classifier.L1
            + L2_reg * classifier.L2_sqr)
    gparams = [T.grad(cost, param) for param in classifier.params]
    updates = [(param, param - learning_rate * gparam)
               for param, gparam in zip(classifier.params, gparams)]
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
    return {"costs": epoch_costs}


if __name__ == "__main__":
    print("epoch costs:", ["%.4f" % c for c in test_mlp()["costs"]])
