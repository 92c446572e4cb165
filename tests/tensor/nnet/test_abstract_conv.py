"""conv2d / conv3d and their gradient Ops against NumPy loops and SciPy; verify_grad."""

import itertools

import numpy as np
import pytest
import scipy.signal

import theon
import theon.tensor as tt
from tests.seeding import stable_seed
from tests.tensor.core_checks import check_infer_shape, run
from theon.gradient import verify_grad
from theon.tensor.nnet import abstract_conv as ac


# -- an independent reference: loops over output pixels and kernel taps ----------------------
def ref_pads(border, k, d):
    dk = [(kk - 1) * dd + 1 for kk, dd in zip(k, d, strict=True)]
    if border == "valid":
        return [(0, 0)] * len(k)
    if border == "full":
        return [(q - 1, q - 1) for q in dk]
    if border == "half":
        return [(q // 2, q // 2) for q in dk]
    if isinstance(border, int):
        return [(border, border)] * len(k)
    return [p if isinstance(p, tuple) else (p, p) for p in border]


def ref_geometry(xshape, k, border, s, d):
    pads = ref_pads(border, k, d)
    padded = [n + lo + hi for n, (lo, hi) in zip(xshape[2:], pads, strict=True)]
    out = [(n - (kk - 1) * dd - 1) // ss + 1
           for n, kk, ss, dd in zip(padded, k, s, d, strict=True)]
    return pads, padded, out


def ref_pad(x, pads):
    xp = np.zeros(x.shape[:2] + tuple(n + lo + hi for n, (lo, hi) in zip(x.shape[2:], pads)))
    inner = (slice(lo, lo + n) for n, (lo, _) in zip(x.shape[2:], pads, strict=True))
    xp[(slice(None), slice(None), *inner)] = x
    return xp


def taps_of(k):
    return list(itertools.product(*(range(kk) for kk in k)))


def at(p, t, s, d):
    return tuple(pp * ss + tt_ * dd for pp, tt_, ss, dd in zip(p, t, s, d, strict=True))


def ref_conv(x, w, border, s, d, g, flip):
    k = w.shape[2:]
    if flip:
        w = w[(slice(None), slice(None), *(slice(None, None, -1),) * len(k))]
    pads, _, out = ref_geometry(x.shape, k, border, s, d)
    xp = ref_pad(x, pads)
    o, cg = w.shape[:2]
    res = np.zeros((x.shape[0], o, *out))
    for oo in range(o):
        base = (oo // (o // g)) * cg
        for p in np.ndindex(*out):
            for t in taps_of(k):
                patch = xp[(slice(None), slice(base, base + cg), *at(p, t, s, d))]
                res[(slice(None), oo, *p)] += patch @ w[(oo, slice(None), *t)]
    return res


def ref_grad_inputs(gz, w, xshape, border, s, d, g, flip):
    k = w.shape[2:]
    if flip:
        w = w[(slice(None), slice(None), *(slice(None, None, -1),) * len(k))]
    pads, padded, out = ref_geometry(xshape, k, border, s, d)
    o, cg = w.shape[:2]
    gxp = np.zeros((xshape[0], xshape[1], *padded))
    for oo in range(o):
        base = (oo // (o // g)) * cg
        for p in np.ndindex(*out):
            for t in taps_of(k):
                where = (slice(None), slice(base, base + cg), *at(p, t, s, d))
                gxp[where] += np.outer(gz[(slice(None), oo, *p)], w[(oo, slice(None), *t)])
    inner = (slice(lo, lo + n) for n, (lo, _) in zip(xshape[2:], pads, strict=True))
    return gxp[(slice(None), slice(None), *inner)]


def ref_grad_weights(x, gz, wshape, border, s, d, g, flip):
    k = wshape[2:]
    pads, _, out = ref_geometry(x.shape, k, border, s, d)
    xp = ref_pad(x, pads)
    o, cg = wshape[:2]
    gw = np.zeros(wshape)
    for oo in range(o):
        base = (oo // (o // g)) * cg
        for p in np.ndindex(*out):
            for t in taps_of(k):
                patch = xp[(slice(None), slice(base, base + cg), *at(p, t, s, d))]
                gw[(oo, slice(None), *t)] += gz[(slice(None), oo, *p)] @ patch
    if flip:
        gw = gw[(slice(None), slice(None), *(slice(None, None, -1),) * len(k))]
    return gw


# -- seeded random configurations ---------------------------------------------------------
def random_case(i, nd=2):
    """Shapes and parameters of case ``i``: groups, strides, dilations, every border mode."""
    rng = np.random.default_rng(stable_seed("conv", nd, i))
    g = int(rng.choice([1, 1, 2, 3]))
    c, o = g * int(rng.integers(1, 3)), g * int(rng.integers(1, 3))
    k = tuple(int(v) for v in rng.integers(1, 4, size=nd))
    s = tuple(int(v) for v in rng.integers(1, 3, size=nd))
    d = tuple(int(v) for v in rng.integers(1, 3, size=nd))
    kind = ["valid", "full", "half", "int", "tuple", "pairs"][i % 6]
    border = {"int": int(rng.integers(0, 3)),
              "tuple": tuple(int(v) for v in rng.integers(0, 3, size=nd)),
              "pairs": tuple((int(a), int(b)) for a, b in rng.integers(0, 3, size=(nd, 2))),
              }.get(kind, kind)
    spatial = tuple(int((kk - 1) * dd + 1 + rng.integers(0, 4))
                    for kk, dd in zip(k, d, strict=True))
    n = int(rng.integers(1, 3))
    flip = bool(i % 2)
    x = rng.normal(size=(n, c, *spatial))
    w = rng.normal(size=(o, c // g, *k))
    return x, w, dict(border_mode=border, subsample=s, filter_dilation=d, num_groups=g,
                      filter_flip=flip)


def ref_args(kw):
    return (kw["border_mode"], kw["subsample"], kw["filter_dilation"], kw["num_groups"],
            kw["filter_flip"])


CASES = range(18)


@pytest.mark.parametrize("i", CASES)
def test_conv2d_and_its_gradient_ops_match_loops(i):
    xv, wv, kw = random_case(i)
    x, w, gz = tt.dtensor4("x"), tt.dtensor4("w"), tt.dtensor4("gz")
    y = ac.conv2d(x, w, **kw)
    out = run([x, w], y, xv, wv)
    np.testing.assert_allclose(out, ref_conv(xv, wv, *ref_args(kw)), rtol=1e-10, atol=1e-10)
    check_infer_shape(y, [x, w], [xv, wv])
    gzv = np.random.default_rng(stable_seed("gz", i)).normal(size=out.shape)
    gi = ac.conv2d_grad_wrt_inputs(gz, w, xv.shape, **kw)
    gw = ac.conv2d_grad_wrt_weights(x, gz, wv.shape, **kw)
    gi_v, gw_v = run([x, w, gz], [gi, gw], xv, wv, gzv)
    ref_gi = ref_grad_inputs(gzv, wv, xv.shape, *ref_args(kw))
    ref_gw = ref_grad_weights(xv, gzv, wv.shape, *ref_args(kw))
    np.testing.assert_allclose(gi_v, ref_gi, atol=1e-10)
    np.testing.assert_allclose(gw_v, ref_gw, atol=1e-10)
    check_infer_shape(gi, [w, gz], [wv, gzv])
    check_infer_shape(gw, [x, gz], [xv, gzv])


@pytest.mark.parametrize("i", range(6))
def test_conv3d_and_its_gradient_ops_match_loops(i):
    xv, wv, kw = random_case(i, nd=3)
    x, w, gz = tt.dtensor5("x"), tt.dtensor5("w"), tt.dtensor5("gz")
    y = ac.conv3d(x, w, **kw)
    out = run([x, w], y, xv, wv)
    np.testing.assert_allclose(out, ref_conv(xv, wv, *ref_args(kw)), atol=1e-10)
    check_infer_shape(y, [x, w], [xv, wv])
    gzv = np.random.default_rng(stable_seed("gz3", i)).normal(size=out.shape)
    gi = ac.conv3d_grad_wrt_inputs(gz, w, xv.shape, **kw)
    gw = ac.conv3d_grad_wrt_weights(x, gz, wv.shape, **kw)
    gi_v, gw_v = run([x, w, gz], [gi, gw], xv, wv, gzv)
    ref_gi = ref_grad_inputs(gzv, wv, xv.shape, *ref_args(kw))
    ref_gw = ref_grad_weights(xv, gzv, wv.shape, *ref_args(kw))
    np.testing.assert_allclose(gi_v, ref_gi, atol=1e-10)
    np.testing.assert_allclose(gw_v, ref_gw, atol=1e-10)


@pytest.mark.parametrize("mode", ["valid", "full"])
@pytest.mark.parametrize("flip", [True, False])
def test_conv2d_matches_scipy_per_channel(mode, flip):
    rng = np.random.default_rng(stable_seed("scipy", mode, flip))
    xv, wv = rng.normal(size=(2, 3, 7, 6)), rng.normal(size=(4, 3, 3, 2))
    x, w = tt.dtensor4("x"), tt.dtensor4("w")
    out = run([x, w], ac.conv2d(x, w, border_mode=mode, filter_flip=flip), xv, wv)
    fn = scipy.signal.convolve2d if flip else scipy.signal.correlate2d
    ref = np.array([[sum(fn(xv[n, c], wv[o, c], mode=mode) for c in range(3)) for o in range(4)]
                    for n in range(2)])
    np.testing.assert_allclose(out, ref, atol=1e-12)


def test_the_default_linker_agrees_with_the_reference_vm():
    xv, wv, kw = random_case(3)
    x, w = tt.dtensor4("x"), tt.dtensor4("w")
    y = ac.conv2d(x, w, **kw)
    cost = (tt.tanh(y) ** 2).sum()
    outs = [y, *theon.grad(cost, [x, w])]
    fast = theon.function([x, w], outs)(xv, wv)
    ref = theon.function([x, w], outs, mode=theon.Mode(linker="vm"))(xv, wv)
    for a, b in zip(fast, ref, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("i", [0, 1, 3, 4, 5, 8, 11])
def test_conv2d_verify_grad(i):
    xv, wv, kw = random_case(i)
    verify_grad(lambda a, b: ac.conv2d(a, b, **kw), [xv, wv], rng=np.random.default_rng(i))


@pytest.mark.parametrize("i", [0, 2, 5])
def test_conv3d_verify_grad(i):
    xv, wv, kw = random_case(i, nd=3)
    verify_grad(lambda a, b: ac.conv3d(a, b, **kw), [xv, wv], rng=np.random.default_rng(i))


@pytest.mark.parametrize("i", [1, 4, 5, 9])
def test_gradient_ops_verify_grad(i):
    """The gradients of the gradient Ops (written with the other two Ops)."""
    xv, wv, kw = random_case(i)
    x, w = tt.dtensor4("x"), tt.dtensor4("w")
    gzv = np.random.default_rng(i).normal(size=run([x, w], ac.conv2d(x, w, **kw), xv, wv).shape)
    rng = np.random.default_rng(stable_seed("gradops", i))
    verify_grad(lambda g, f: ac.conv2d_grad_wrt_inputs(g, f, xv.shape, **kw), [gzv, wv], rng=rng)
    verify_grad(lambda a, g: ac.conv2d_grad_wrt_weights(a, g, wv.shape, **kw), [xv, gzv], rng=rng)


def test_second_order_gradient():
    xv, wv, kw = random_case(2)

    def fn(a, b):
        y = ac.conv2d(a, b, **kw)
        ga, gb = theon.grad((tt.sin(y)).sum(), [a, b])
        return ga.sum() * 0.5 + (gb**2).sum()

    verify_grad(fn, [xv, wv], rng=np.random.default_rng(0))


def test_float32_stays_float32_and_mixed_dtypes_upcast():
    x, w = tt.ftensor4("x"), tt.ftensor4("w")
    y = ac.conv2d(x, w, border_mode="half")
    assert y.type.dtype == "float32"
    out = run([x, w], y, np.ones((1, 2, 4, 4), "float32"), np.ones((3, 2, 3, 3), "float32"))
    assert out.dtype == np.float32
    assert ac.conv2d(x, tt.dtensor4("w64")).type.dtype == "float64"


def test_shape_hints_give_static_shapes_and_are_checked_at_run_time():
    x, w = tt.dtensor4("x"), tt.dtensor4("w")
    y = ac.conv2d(x, w, input_shape=(8, 1, 28, 28), filter_shape=(20, 1, 5, 5))
    assert y.type.shape == (8, 20, 24, 24)
    f = theon.function([x, w], y)
    assert f(np.ones((8, 1, 28, 28)), np.ones((20, 1, 5, 5))).shape == (8, 20, 24, 24)
    with pytest.raises(ValueError, match="input_shape hint"):
        f(np.ones((8, 1, 27, 28)), np.ones((20, 1, 5, 5)))
    with pytest.raises(ValueError, match="filter_shape hint"):
        f(np.ones((8, 1, 28, 28)), np.ones((20, 1, 3, 3)))
    # partial hints: only the given entries are checked
    g = theon.function([x, w], ac.conv2d(x, w, input_shape=(None, 1, None, None)))
    assert g(np.ones((2, 1, 6, 6)), np.ones((3, 1, 2, 2))).shape == (2, 3, 5, 5)
    with pytest.raises(ValueError, match=r"input_shape hint \(None, 1, None, None\)"):
        g(np.ones((2, 2, 6, 6)), np.ones((3, 2, 2, 2)))


def test_hint_against_static_shape_and_bad_arguments_fail_at_build_time():
    x = tt.TensorType("float64", shape=(None, 3, None, None))("x")
    w = tt.dtensor4("w")
    with pytest.raises(ValueError, match="input_shape hint .* disagrees .* 'x'"):
        ac.conv2d(x, w, input_shape=(1, 2, 5, 5))
    with pytest.raises(ValueError, match="border_mode"):
        ac.conv2d(x, w, border_mode="same")
    with pytest.raises(ValueError, match="subsample"):
        ac.conv2d(x, w, subsample=(0, 1))
    with pytest.raises(TypeError, match="4 dimensions"):
        ac.conv2d(tt.dmatrix("m"), w)
    with pytest.raises(TypeError, match="float"):
        ac.conv2d(tt.itensor4("i"), w)
    with pytest.raises(ValueError, match="num_groups"):
        ac.conv2d(x, tt.TensorType("float64", shape=(4, 2, 3, 3))("w2"), num_groups=2)


def test_run_time_errors_name_the_problem():
    x, w = tt.dtensor4("x"), tt.dtensor4("w")
    f = theon.function([x, w], ac.conv2d(x, w, num_groups=2))
    with pytest.raises(ValueError, match="num_groups=2"):
        f(np.ones((1, 4, 5, 5)), np.ones((3, 2, 2, 2)))
    g = theon.function([x, w], ac.conv2d(x, w))
    with pytest.raises(ValueError, match="do not fit"):
        g(np.ones((1, 1, 2, 2)), np.ones((1, 1, 3, 3)))
    gz = tt.dtensor4("gz")
    h = theon.function([w, gz], ac.conv2d_grad_wrt_inputs(gz, w, (1, 1, 6, 6)))
    with pytest.raises(ValueError, match="output gradient has shape"):
        h(np.ones((1, 1, 3, 3)), np.ones((1, 1, 3, 3)))


def test_transposed_convolution_upsamples():
    """conv2d_grad_wrt_inputs as a layer: a stride-2 transposed convolution of ones."""
    g, w = tt.dtensor4("g"), tt.dtensor4("w")
    up = ac.conv2d_grad_wrt_inputs(g, w, (1, 1, 5, 5), filter_shape=(1, 1, 3, 3),
                                   subsample=(2, 2))
    assert up.type.shape == (1, 1, 5, 5)  # from the input_shape hint
    out = run([g, w], up, np.ones((1, 1, 2, 2)), np.ones((1, 1, 3, 3)))
    ref = np.array([[1, 1, 2, 1, 1], [1, 1, 2, 1, 1], [2, 2, 4, 2, 2],
                    [1, 1, 2, 1, 1], [1, 1, 2, 1, 1]], float)
    np.testing.assert_array_equal(out[0, 0], ref)


def test_symbolic_input_shape_for_the_transposed_convolution():
    x, g, w = tt.dtensor4("x"), tt.dtensor4("g"), tt.dtensor4("w")
    up = ac.conv2d_grad_wrt_inputs(g, w, x.shape, subsample=(2, 2))
    xv = np.zeros((1, 2, 6, 7))
    out = run([x, g, w], up, xv, np.ones((1, 3, 3, 3)), np.ones((3, 2, 2, 2)))
    assert out.shape == xv.shape


def test_ops_compare_by_their_props():
    a = ac.AbstractConv2d(border_mode="half", subsample=(2, 2))
    assert a == ac.AbstractConv2d(border_mode="half", subsample=2)
    assert hash(a) == hash(ac.AbstractConv2d(border_mode="half", subsample=(2, 2)))
    assert a != ac.AbstractConv2d(border_mode="half", subsample=(2, 1))
    assert a != ac.AbstractConv3d(border_mode="half", subsample=(2, 2, 2))
    assert ac.AbstractConv2d(border_mode=1) == ac.AbstractConv2d(border_mode=(1, 1))


def test_get_conv_output_shape():
    assert ac.get_conv_output_shape((2, 3, 9, 9), (4, 3, 3, 3), "half", (2, 2)) == (2, 4, 5, 5)
    assert ac.get_conv_output_shape((2, 3, 9, 9), (4, 3, 3, 3), "full", (1, 1), (2, 2)) == (
        2, 4, 13, 13)


def test_conv2d_transpose_is_the_input_gradient_of_a_strided_conv2d() -> None:
    """Theano's ``conv2d_transpose(x, w, shape, input_dilation=s)`` equals the gradient
    of ``conv2d(y, w, subsample=s)`` with respect to ``y`` of that shape."""
    import theon
    from theon.tensor.nnet import conv2d, conv2d_transpose

    rng = np.random.default_rng(0)
    xv, wv = rng.normal(size=(2, 3, 3, 3)), rng.normal(size=(3, 2, 3, 3))
    x, w, y = tt.dtensor4("x"), tt.dtensor4("w"), tt.dtensor4("y")
    up = conv2d_transpose(x, w, (2, 2, 7, 7), input_dilation=(2, 2)).eval({x: xv, w: wv})
    g = theon.grad((conv2d(y, w, subsample=(2, 2)) * x).sum(), y)
    np.testing.assert_allclose(up, g.eval({x: xv, w: wv, y: np.zeros((2, 2, 7, 7))}))
    assert up.shape == (2, 2, 7, 7)
