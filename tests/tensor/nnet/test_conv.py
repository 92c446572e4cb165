"""Convolution and pooling written as the Theano tutorials write them."""

import numpy as np
import pytest
import scipy.signal

import theon
import theon.tensor as T
from tests.seeding import stable_seed


def test_lenet_layer_as_in_the_theano_tutorial():
    from theon.tensor.nnet import conv2d
    from theon.tensor.signal import pool

    rng = np.random.default_rng(stable_seed("lenet"))
    filter_shape, image_shape = (4, 1, 5, 5), (8, 1, 12, 12)
    W = theon.shared(rng.uniform(-0.2, 0.2, size=filter_shape), name="W")
    b = theon.shared(np.zeros(filter_shape[0]), name="b")
    x = T.tensor4("x", dtype="float64")
    y = T.ivector("y")
    conv_out = conv2d(input=x, filters=W, filter_shape=filter_shape, input_shape=image_shape)
    pooled_out = pool.pool_2d(input=conv_out, ws=(2, 2), ignore_border=True)
    output = T.tanh(pooled_out + b.dimshuffle("x", 0, "x", "x"))
    assert output.type.shape == (8, 4, 4, 4)
    V = theon.shared(rng.normal(size=(64, 3)) * 0.1, name="V")
    p_y = T.special.softmax(T.dot(output.flatten(2), V), axis=-1)
    cost = -T.mean(T.log(p_y)[T.arange(y.shape[0]), y])
    params = [W, b, V]
    grads = theon.grad(cost, params)
    train = theon.function([x, y], cost,
                           updates=[(p, p - 0.1 * g) for p, g in zip(params, grads, strict=True)])
    xv = rng.normal(size=image_shape)
    yv = rng.integers(0, 3, size=8).astype("int32")
    costs = [float(train(xv, yv)) for _ in range(20)]
    assert costs[-1] < 0.5 * costs[0]


def test_old_conv_module_spelling_is_a_flipped_convolution():
    from theon.tensor.nnet import conv

    rng = np.random.default_rng(stable_seed("oldconv"))
    xv, wv = rng.normal(size=(2, 3, 6, 7)), rng.normal(size=(4, 3, 3, 2))
    x, w = T.dtensor4("x"), T.dtensor4("w")
    for mode in ("valid", "full"):
        y = conv.conv2d(x, w, filter_shape=(4, 3, 3, 2), image_shape=(2, 3, 6, 7),
                        border_mode=mode, unroll_kern=4)
        out = theon.function([x, w], y)(xv, wv)
        ref = np.array([[sum(scipy.signal.convolve2d(xv[n, c], wv[o, c], mode=mode)
                             for c in range(3)) for o in range(4)] for n in range(2)])
        np.testing.assert_allclose(out, ref, atol=1e-12)
    with pytest.raises(ValueError, match="'valid' or 'full'"):
        conv.conv2d(x, w, border_mode="half")
    with pytest.raises(TypeError, match="bogus"):
        conv.conv2d(x, w, bogus=1)


def test_nnet_namespace_from_theon_tensor():
    assert T.nnet.conv2d is T.nnet.abstract_conv.conv2d
    assert T.nnet.conv3d is T.nnet.abstract_conv.conv3d
    x, w = T.dtensor4("x"), T.dtensor4("w")
    y = T.nnet.conv2d(x, w, image_shape=(1, 1, 4, 4))
    assert y.owner.op.imshp == (1, 1, 4, 4)
    with pytest.raises(TypeError, match="not both"):
        T.nnet.conv2d(x, w, input_shape=(1, 1, 4, 4), image_shape=(1, 1, 4, 4))
    with pytest.raises(NotImplementedError, match="unshared"):
        T.nnet.conv2d(x, w, unshared=True)
