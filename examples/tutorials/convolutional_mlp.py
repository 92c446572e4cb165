"""LeNet: the Theano tutorial's ``convolutional_mlp.py``.

Written against the Theano API (``conv2d`` from ``theano.tensor.nnet``, ``pool_2d``
from ``theano.tensor.signal.pool``); the only change is the import (``theano`` ->
``theon``) and the synthetic MNIST-shaped data (``_data.py``) instead of the download.
"""

from __future__ import annotations

import numpy
from _data import mnist_like
from logistic_sgd import LogisticRegression, shared_dataset
from mlp import HiddenLayer

import theon
import theon.tensor as T
from theon.tensor.nnet import conv2d
from theon.tensor.signal import pool


class LeNetConvPoolLayer(object):
    def __init__(self, rng, input, filter_shape, image_shape, poolsize=(2, 2)):
        assert image_shape[1] == filter_shape[1]
        self.input = input
        fan_in = numpy.prod(filter_shape[1:])
        fan_out = filter_shape[0] * numpy.prod(filter_shape[2:]) // numpy.prod(poolsize)
        W_bound = numpy.sqrt(6.0 / (fan_in + fan_out))
        self.W = theon.shared(
            numpy.asarray(rng.uniform(low=-W_bound, high=W_bound, size=filter_shape),
                          dtype=theon.config.floatX),
            borrow=True,
        )
        b_values = numpy.zeros((filter_shape[0],), dtype=theon.config.floatX)
        self.b = theon.shared(value=b_values, borrow=True)
        conv_out = conv2d(input=input, filters=self.W, filter_shape=filter_shape,
                          input_shape=image_shape)
        pooled_out = pool.pool_2d(input=conv_out, ws=poolsize, ignore_border=True)
        self.output = T.tanh(pooled_out + self.b.dimshuffle("x", 0, "x", "x"))
        self.params = [self.W, self.b]
        self.input = input


def evaluate_lenet5(learning_rate=0.1, n_epochs=3, nkerns=(20, 50), batch_size=20,
                    n_train=200):
    rng = numpy.random.RandomState(23455)
    train_set_x, train_set_y = shared_dataset(mnist_like(n_train, seed=6))
    n_train_batches = train_set_x.get_value(borrow=True).shape[0] // batch_size

    index = T.lscalar()
    x = T.matrix("x")
    y = T.ivector("y")
    layer0_input = x.reshape((batch_size, 1, 28, 28))
    layer0 = LeNetConvPoolLayer(rng, input=layer0_input, image_shape=(batch_size, 1, 28, 28),
                                filter_shape=(nkerns[0], 1, 5, 5), poolsize=(2, 2))
    layer1 = LeNetConvPoolLayer(rng, input=layer0.output,
                                image_shape=(batch_size, nkerns[0], 12, 12),
                                filter_shape=(nkerns[1], nkerns[0], 5, 5), poolsize=(2, 2))
    layer2_input = layer1.output.flatten(2)
    layer2 = HiddenLayer(rng, input=layer2_input, n_in=nkerns[1] * 4 * 4, n_out=500,
                         activation=T.tanh)
    layer3 = LogisticRegression(input=layer2.output, n_in=500, n_out=10)
    cost = layer3.negative_log_likelihood(y)
    params = layer3.params + layer2.params + layer1.params + layer0.params
    grads = T.grad(cost, params)
    updates = [(param_i, param_i - learning_rate * grad_i)
               for param_i, grad_i in zip(params, grads)]
    train_model = theon.function(
        [index], cost, updates=updates,
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
    print("epoch costs:", ["%.4f" % c for c in evaluate_lenet5()["costs"]])
