"""``mode="JAX"`` on convolutions (``lax.conv_general_dilated``) and pooling
(``lax.reduce_window``) and their gradient Ops, against the reference VM (the Ops'
``perform``) and SciPy."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="mode='JAX' needs jax (pip install 'theon[jax]')")

import scipy.signal  # noqa: E402

import theon  # noqa: E402
import theon.tensor as T  # noqa: E402
from theon.compile.mode import Mode  # noqa: E402
from theon.link.jax.dispatch import jax_funcify  # noqa: E402
from theon.tensor.nnet import abstract_conv as ac  # noqa: E402
from theon.tensor.nnet import conv2d  # noqa: E402
from theon.tensor.signal import pool  # noqa: E402
from theon.tensor.signal.pool import pool_2d  # noqa: E402

VM = Mode(linker="vm")
RNG = np.random.default_rng(0)


def both(ins, outs, *args):
    return (theon.function(ins, outs, mode="JAX")(*args),
            theon.function(ins, outs, mode=VM)(*args))


def assert_same(got, want, rtol=1e-10):
    if not isinstance(want, list | tuple):
        got, want = [got], [want]
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-10)


def rule_vs_perform(op, values, constants=()):
    """The node's JAX rule, jitted, against ``op.perform`` on the same values."""
    ins = [T.constant(v) if k in constants else T.as_tensor_variable(v).type()
           for k, v in enumerate(values)]
    node = op.make_node(*ins)
    cells = [[None]]
    op.perform(node, [np.asarray(v) for v in values], cells)
    with jax.enable_x64(True):
        got = np.asarray(jax.jit(jax_funcify(op, node))(*values))
    assert_same(got, cells[0][0])
    return cells[0][0]


# -- convolutions ------------------------------------------------------------------------------
def test_conv2d_is_scipys_convolution():
    x, w = T.dtensor4("x"), T.dtensor4("w")
    xv, wv = RNG.normal(size=(1, 1, 6, 7)), RNG.normal(size=(1, 1, 3, 2))
    for mode in ("valid", "full"):
        got, want = both([x, w], conv2d(x, w, border_mode=mode), xv, wv)
        assert_same(got, want)
        np.testing.assert_allclose(got[0, 0], scipy.signal.convolve2d(xv[0, 0], wv[0, 0], mode),
                                   rtol=1e-12)
    got, _ = both([x, w], conv2d(x, w, filter_flip=False), xv, wv)
    np.testing.assert_allclose(got[0, 0], scipy.signal.correlate2d(xv[0, 0], wv[0, 0], "valid"),
                               rtol=1e-12)


@pytest.mark.parametrize("border", ["valid", "half", "full", (1, 2), ((1, 0), (0, 2))])
def test_conv2d_and_its_gradients_match_the_reference(border):
    x, w = T.dtensor4("x"), T.dtensor4("w")
    y = conv2d(x, w, border_mode=border, subsample=(2, 1), filter_dilation=(1, 2),
               num_groups=2)
    cost = (y ** 2).sum()
    gx, gw = theon.grad(cost, [x, w])
    args = RNG.normal(size=(2, 4, 9, 8)), RNG.normal(size=(6, 2, 3, 3))
    got, want = both([x, w], [y, gx, gw], *args)
    assert_same(got, want)


def test_conv3d_and_second_derivative():
    x, w = T.dtensor5("x"), T.dtensor5("w")
    y = ac.conv3d(x, w, border_mode="half")
    gx = theon.grad((y ** 2).sum(), x)
    hw = theon.grad((gx ** 2).sum(), w)  # through the gradient Ops' own gradients
    args = RNG.normal(size=(1, 2, 5, 4, 5)), RNG.normal(size=(3, 2, 3, 3, 3))
    got, want = both([x, w], [y, gx, hw], *args)
    assert_same(got, want, rtol=1e-9)


def test_float32_stays_float32():
    x, w = T.ftensor4("x"), T.ftensor4("w")
    xv = RNG.normal(size=(1, 2, 5, 5)).astype("float32")
    wv = RNG.normal(size=(3, 2, 2, 2)).astype("float32")
    got, want = both([x, w], conv2d(x, w), xv, wv)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5)


_CONV_GRID = list(itertools.product(["valid", "full", "half", 1, ((1, 2), (0, 1))], [1, 2],
                                    [True, False], [1, 2], [1, 2]))


@pytest.mark.parametrize("border,sub,flip,dil,groups",
                         [_CONV_GRID[k] for k in
                          np.random.default_rng(1).choice(len(_CONV_GRID), 12, replace=False)])
def test_conv_rules_equal_perform_over_the_parameters(border, sub, flip, dil, groups):
    kw = dict(border_mode=border, subsample=sub, filter_flip=flip, filter_dilation=dil,
              num_groups=groups)
    x, w = RNG.normal(size=(2, 4, 7, 8)), RNG.normal(size=(4, 4 // groups, 3, 2))
    y = rule_vs_perform(ac.AbstractConv2d(**kw), [x, w])
    gz = RNG.normal(size=y.shape)
    rule_vs_perform(ac.AbstractConv2d_gradWeights(**kw), [x, gz, np.array([3, 2])], (2,))
    rule_vs_perform(ac.AbstractConv2d_gradInputs(**kw), [w, gz, np.array([7, 8])], (2,))


# -- pooling -----------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", pool.MODES)
@pytest.mark.parametrize("ignore_border,stride,pad", [(True, None, (0, 0)),
                                                       (False, None, (0, 0)),
                                                       (True, (1, 2), (1, 1)),
                                                       (False, (3, 1), (0, 0))])
def test_pool_2d_and_gradients_match_the_reference(mode, ignore_border, stride, pad):
    x = T.dtensor4("x")
    y = pool_2d(x, ws=(2, 3), ignore_border=ignore_border, stride=stride, pad=pad, mode=mode)
    gx = theon.grad((y ** 2).sum(), x)
    ggx = theon.grad((gx * x).sum(), x)  # MaxPoolGradGrad for max pooling
    xv = RNG.normal(size=(2, 3, 7, 8))
    xv[0, 0, :2, :3] = 1.5  # a tie in one window
    got, want = both([x], [y, gx, ggx], xv)
    assert_same(got, want)


def test_pool_3d_and_integer_average():
    x = T.dtensor3("x")
    got, want = both([x], pool.pool_3d(x, ws=(2, 2, 2), ignore_border=False),
                     RNG.normal(size=(3, 5, 4)))
    assert_same(got, want)
    i = T.imatrix("i")
    got, want = both([i], pool_2d(i, ws=(2, 2), ignore_border=True, mode="average_exc_pad"),
                     np.arange(20, dtype="int32").reshape(4, 5))
    assert_same(got, want)


def test_pool_grad_rules_equal_perform():
    x = RNG.normal(size=(2, 6, 7))
    for mode in pool.MODES:
        kw = dict(ws=(3, 2), stride=(2, 2), pad=(1, 1), ignore_border=True, mode=mode)
        y = rule_vs_perform(pool.Pool(**kw), [x])
        gz = RNG.normal(size=y.shape)
        if mode == "max":
            rule_vs_perform(pool.MaxPoolGrad(**kw), [x, y, gz])
            rule_vs_perform(pool.MaxPoolGradGrad(**kw), [x, y, RNG.normal(size=x.shape)])
        else:
            rule_vs_perform(pool.AveragePoolGrad(**kw), [x, gz])
