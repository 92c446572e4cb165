"""Must show: the Theano tutorial's denoising autoencoder (``theano`` renamed to ``theon``)
trains with binomial corruption from ``RandomStreams`` / ``MRG_RandomStreams``.

Written as the tutorial writes it; ``T.nnet.sigmoid`` is spelled ``T.sigmoid`` (theon has
no ``nnet`` module yet) and ``T.grad`` is ``theano.grad``.
"""

from __future__ import annotations

from typing import Any

import numpy
import pytest

import theon as theano
import theon.tensor as T
from theon.sandbox.rng_mrg import MRG_RandomStreams
from theon.tensor.shared_randomstreams import RandomStreams


class dA:  # the tutorial's name
    def __init__(self, numpy_rng: Any, theano_rng: Any, input: Any, n_visible: int,
                 n_hidden: int) -> None:
        initial_W = numpy.asarray(
            numpy_rng.uniform(
                low=-4 * numpy.sqrt(6.0 / (n_hidden + n_visible)),
                high=4 * numpy.sqrt(6.0 / (n_hidden + n_visible)),
                size=(n_visible, n_hidden),
            ),
            dtype=theano.config.floatX,
        )
        self.W = theano.shared(value=initial_W, name="W", borrow=True)
        self.b = theano.shared(numpy.zeros(n_hidden, dtype=theano.config.floatX), name="b",
                               borrow=True)
        self.b_prime = theano.shared(numpy.zeros(n_visible, dtype=theano.config.floatX),
                                     name="bvis", borrow=True)
        self.W_prime = self.W.T  # tied weights
        self.theano_rng = theano_rng
        self.x = input
        self.params = [self.W, self.b, self.b_prime]

    def get_corrupted_input(self, input: Any, corruption_level: float) -> Any:
        return self.theano_rng.binomial(size=input.shape, n=1, p=1 - corruption_level,
                                        dtype=theano.config.floatX) * input

    def get_hidden_values(self, input: Any) -> Any:
        return T.sigmoid(T.dot(input, self.W) + self.b)

    def get_reconstructed_input(self, hidden: Any) -> Any:
        return T.sigmoid(T.dot(hidden, self.W_prime) + self.b_prime)

    def get_cost_updates(self, corruption_level: float, learning_rate: float) -> Any:
        tilde_x = self.get_corrupted_input(self.x, corruption_level)
        y = self.get_hidden_values(tilde_x)
        z = self.get_reconstructed_input(y)
        L = -T.sum(self.x * T.log(z) + (1 - self.x) * T.log(1 - z), axis=1)
        cost = T.mean(L)
        gparams = theano.grad(cost, self.params)
        updates = [(param, param - learning_rate * gparam)
                   for param, gparam in zip(self.params, gparams)]
        return cost, updates


def _synthetic_data(rng: numpy.random.RandomState) -> Any:
    """Binary vectors from 4 prototypes with 5% of the bits flipped."""
    protos = rng.binomial(1, 0.5, size=(4, 20))
    rows = protos[rng.randint(0, 4, size=200)]
    flips = rng.binomial(1, 0.05, size=rows.shape)
    return numpy.abs(rows - flips).astype(theano.config.floatX)


@pytest.mark.parametrize("streams", [RandomStreams, MRG_RandomStreams])
def test_denoising_autoencoder_trains(streams: Any) -> None:
    numpy_rng = numpy.random.RandomState(123)
    theano_rng = streams(numpy_rng.randint(2**30))
    train_set_x = theano.shared(_synthetic_data(numpy_rng), borrow=True)
    batch_size = 20
    index = T.lscalar()
    x = T.matrix("x")
    da = dA(numpy_rng=numpy_rng, theano_rng=theano_rng, input=x, n_visible=20, n_hidden=8)
    cost, updates = da.get_cost_updates(corruption_level=0.3, learning_rate=0.1)
    train_da = theano.function(
        [index], cost, updates=updates,
        givens={x: train_set_x[index * batch_size:(index + 1) * batch_size]},
    )
    costs = [float(train_da(i % 10)) for i in range(20)]
    assert all(numpy.isfinite(costs))
    assert numpy.mean(costs[-5:]) < 0.9 * numpy.mean(costs[:5]), costs
    # the corruption is fresh at each call: the same batch, same weights, other costs
    f = theano.function([index], cost, givens={x: train_set_x[index * 20:(index + 1) * 20]})
    assert f(0) != f(0)
