"""A denoising autoencoder: the Theano tutorial's ``dA.py``.

Written against the Theano API (``RandomStreams`` from
``theano.tensor.shared_randomstreams``, binomial corruption); the only change is the
import (``theano`` -> ``theon``) and the synthetic MNIST-shaped data.
"""

from __future__ import annotations

import numpy
from _data import mnist_like

import theon
import theon.tensor as T
from theon.tensor.shared_randomstreams import RandomStreams


class dA(object):
    def __init__(self, numpy_rng, theano_rng=None, input=None, n_visible=784, n_hidden=500,
                 W=None, bhid=None, bvis=None):
        self.n_visible = n_visible
        self.n_hidden = n_hidden
        if not theano_rng:
            theano_rng = RandomStreams(numpy_rng.randint(2 ** 30))
        if not W:
            initial_W = numpy.asarray(
                numpy_rng.uniform(low=-4 * numpy.sqrt(6.0 / (n_hidden + n_visible)),
                                  high=4 * numpy.sqrt(6.0 / (n_hidden + n_visible)),
                                  size=(n_visible, n_hidden)),
                dtype=theon.config.floatX,
            )
            W = theon.shared(value=initial_W, name="W", borrow=True)
        if not bvis:
            bvis = theon.shared(value=numpy.zeros(n_visible, dtype=theon.config.floatX),
                                borrow=True)
        if not bhid:
            bhid = theon.shared(value=numpy.zeros(n_hidden, dtype=theon.config.floatX),
                                name="b", borrow=True)
        self.W = W
        self.b = bhid
        self.b_prime = bvis
        self.W_prime = self.W.T
        self.theano_rng = theano_rng
        if input is None:
            self.x = T.dmatrix(name="input")
        else:
            self.x = input
        self.params = [self.W, self.b, self.b_prime]

    def get_corrupted_input(self, input, corruption_level):
        return self.theano_rng.binomial(size=input.shape, n=1, p=1 - corruption_level,
                                        dtype=theon.config.floatX) * input

    def get_hidden_values(self, input):
        return T.nnet.sigmoid(T.dot(input, self.W) + self.b)

    def get_reconstructed_input(self, hidden):
        return T.nnet.sigmoid(T.dot(hidden, self.W_prime) + self.b_prime)

    def get_cost_updates(self, corruption_level, learning_rate):
        tilde_x = self.get_corrupted_input(self.x, corruption_level)
        y = self.get_hidden_values(tilde_x)
        z = self.get_reconstructed_input(y)
        L = -T.sum(self.x * T.log(z) + (1 - self.x) * T.log(1 - z), axis=1)
        cost = T.mean(L)
        gparams = T.grad(cost, self.params)
        updates = [(param, param - learning_rate * gparam)
                   for param, gparam in zip(self.params, gparams)]
        return (cost, updates)


def test_dA(learning_rate=0.1, training_epochs=5, batch_size=20, n_train=200, n_hidden=100):
    data, _ = mnist_like(n_train, seed=3)
    train_set_x = theon.shared(numpy.asarray(data, dtype=theon.config.floatX), borrow=True)
    n_train_batches = train_set_x.get_value(borrow=True).shape[0] // batch_size
    index = T.lscalar()
    x = T.matrix("x")
    rng = numpy.random.RandomState(123)
    theano_rng = RandomStreams(rng.randint(2 ** 30))
    da = dA(numpy_rng=rng, theano_rng=theano_rng, input=x, n_visible=28 * 28,
            n_hidden=n_hidden)
    cost, updates = da.get_cost_updates(corruption_level=0.3, learning_rate=learning_rate)
    train_da = theon.function(
        [index], cost, updates=updates,
        givens={x: train_set_x[index * batch_size: (index + 1) * batch_size]},
    )
    epoch_costs = []
    for _epoch in range(training_epochs):
        epoch_costs.append(float(numpy.mean([train_da(i) for i in range(n_train_batches)])))
    return {"costs": epoch_costs}


if __name__ == "__main__":
    print("epoch costs:", ["%.2f" % c for c in test_dA()["costs"]])
