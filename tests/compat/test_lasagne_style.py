"""A Lasagne-style program written the Theano way, without Lasagne: a small CNN with batch
normalization (running averages as updates), Theano 0.7's ``downsample.max_pool_2d``,
spatial pyramid pooling (windows from the input's run-time shape) and patch features
(``images2neibs``), trained by Nesterov momentum; and a recurrent layer whose hidden state's
gradient is clipped (``grad_clip``) inside ``scan``, trained by Adagrad.  Each trains on
synthetic data and its cost falls."""

from collections import OrderedDict

import numpy as np

import theon as theano
import theon.tensor as T
from theon.tensor.nnet import bn
from theon.tensor.nnet.neighbours import images2neibs
from theon.tensor.signal import downsample, pool

floatX = "float64"


def _shared(rng, *shape, scale=0.1):
    return theano.shared((rng.standard_normal(shape) * scale).astype(floatX))


def nesterov_momentum(cost, params, lr, momentum=0.9):
    updates = OrderedDict()
    for p, g in zip(params, theano.grad(cost, params), strict=True):
        v = theano.shared(np.zeros_like(p.get_value()))
        new_v = momentum * v - lr * g
        updates[v] = new_v
        updates[p] = p + momentum * new_v - lr * g
    return updates


def adagrad(cost, params, lr):
    updates = OrderedDict()
    for p, g in zip(params, theano.grad(cost, params), strict=True):
        acc = theano.shared(np.zeros_like(p.get_value()))
        new_acc = acc + g**2
        updates[acc] = new_acc
        updates[p] = p - lr * g / T.sqrt(new_acc + 1e-6)
    return updates


def _images(rng, n):
    """Two classes: a bright square in the top-left or bottom-right corner."""
    y = rng.integers(0, 2, size=n)
    x = rng.normal(0.0, 0.3, size=(n, 1, 8, 8))
    for k, c in enumerate(y):
        r = slice(0, 4) if c == 0 else slice(4, 8)
        x[k, 0, r, r] += 1.0
    return x.astype(floatX), y.astype("int32")


def test_cnn_with_batchnorm_pyramid_pooling_and_patches_trains():
    rng = np.random.default_rng(0)
    x, y = T.tensor4("x"), T.ivector("y")
    W = _shared(rng, 4, 1, 3, 3, scale=0.3)
    gamma, beta = theano.shared(np.ones(4)), theano.shared(np.zeros(4))
    mean, var = theano.shared(np.zeros(4)), theano.shared(np.ones(4))
    conv = T.nnet.conv2d(x, W, border_mode="half")
    normed, _, _, new_mean, new_var = bn.batch_normalization_train(
        conv, gamma, beta, "spatial", 1e-4, 0.1, mean, var)
    h = T.nnet.relu(normed)
    pooled = downsample.max_pool_2d(h, (2, 2), ignore_border=True)
    # a pyramid of 1x1 and 2x2 bins, the windows computed from the run-time shape
    levels = []
    for bins in (1, 2):
        ws = (pooled.shape[2] // bins, pooled.shape[3] // bins)
        levels.append(pool.pool_2d(pooled, ws=ws, ignore_border=True).flatten(2))
    # patch features: each 4x4 patch of the input summed (images2neibs rows)
    patches = images2neibs(x, (4, 4)).sum(axis=1).reshape((x.shape[0], 4))
    features = T.concatenate([*levels, patches], axis=1)
    Wd, bd = _shared(rng, 4 * 5 + 4, 2), theano.shared(np.zeros(2))
    prob = T.nnet.softmax(T.dot(features, Wd) + bd)
    cost = T.nnet.categorical_crossentropy(prob, y).mean()
    params = [W, gamma, beta, Wd, bd]
    updates = nesterov_momentum(cost, params, lr=0.05)
    updates[mean], updates[var] = new_mean, new_var
    train = theano.function([x, y], cost, updates=updates)
    test_out = bn.batch_normalization_test(conv, gamma, beta, mean, var, "spatial")
    predict = theano.function([x], test_out)

    xs, ys = _images(rng, 64)
    costs = [float(train(xs[k:k + 16], ys[k:k + 16])) for _ in range(8) for k in (0, 16, 32, 48)]
    assert np.mean(costs[-4:]) < 0.6 * np.mean(costs[:4]), costs
    # the running averages followed the batch statistics of the convolution's output
    conv_f = theano.function([x], conv)(xs)
    assert np.allclose(mean.get_value(), conv_f.mean(axis=(0, 2, 3)), atol=0.1)
    assert np.all(var.get_value() > 0)
    assert np.isfinite(predict(xs)).all()


def test_recurrent_layer_with_gradient_clipping_trains():
    """Sum of a masked sequence (Lasagne's recurrent example), hidden state clipped."""
    rng = np.random.default_rng(1)
    n_hidden, length, batch = 8, 10, 20
    x, mask, target = T.tensor3("x"), T.matrix("mask"), T.vector("target")
    W_in, W_hid = _shared(rng, 2, n_hidden, scale=0.5), _shared(rng, n_hidden, n_hidden)
    b, W_out = theano.shared(np.zeros(n_hidden)), _shared(rng, n_hidden, 1, scale=0.5)

    def step(x_t, m_t, h_prev, W_hid):
        h = T.tanh(T.dot(x_t, W_in) + T.dot(h_prev, W_hid) + b)
        h = theano.gradient.grad_clip(h, -1.0, 1.0)
        return T.switch(m_t.dimshuffle(0, "x"), h, h_prev)

    h0 = T.zeros((x.shape[0], n_hidden))
    hs, _ = theano.scan(step, sequences=[x.dimshuffle(1, 0, 2), mask.T], outputs_info=[h0],
                        non_sequences=[W_hid])
    prediction = T.dot(hs[-1], W_out).flatten()
    cost = T.mean((prediction - target) ** 2)
    train = theano.function([x, mask, target], cost,
                            updates=adagrad(cost, [W_in, W_hid, b, W_out], lr=0.1))

    def data():
        values = rng.uniform(0, 1, size=(batch, length))
        marks = np.zeros((batch, length))
        marks[np.arange(batch), rng.integers(0, length // 2, size=batch)] = 1
        marks[np.arange(batch), rng.integers(length // 2, length, size=batch)] = 1
        m = np.ones((batch, length))
        return np.stack([values, marks], axis=-1), m, (values * marks).sum(axis=1)

    costs = [float(train(*data())) for _ in range(300)]
    assert np.mean(costs[-10:]) < 0.5 * np.mean(costs[:10]), costs
