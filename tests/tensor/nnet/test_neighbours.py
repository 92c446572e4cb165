"""images2neibs / neibs2images against a patch-by-patch loop (Theano's semantics), their
gradients by finite differences, infer_shape, and mode='JAX' against the default mode."""

import numpy as np
import pytest

import theon
import theon.tensor as T
from tests.tensor.core_checks import check_infer_shape
from theon.gradient import verify_grad
from theon.tensor.nnet.neighbours import Images2NeibsGrad, images2neibs, neibs2images


def ref_images2neibs(x, shape, step, mode):
    """One patch element at a time: the position it reads, wrapped or zero outside."""
    c, d = shape
    sx, sy = step
    b, ch, h, w = x.shape

    def grid(n, k, s):
        if mode == "wrap_centered":
            return -(-n // s), k // 2
        if mode == "half":
            return (n - k % 2) // s + 1, k // 2
        if mode == "full":
            return (n + k - 2) // s + 1, k - 1
        return (n - k) // s + 1, 0

    gh, sh = grid(h, c, sx)
    gw, sw = grid(w, d, sy)
    rows = []
    for n in range(b):
        for s in range(ch):
            for a in range(gh):
                for q in range(gw):
                    row = []
                    for i in range(c):
                        for j in range(d):
                            r, t = a * sx + i - sh, q * sy + j - sw
                            if mode == "wrap_centered":
                                r, t = r % h, t % w
                            inside = 0 <= r < h and 0 <= t < w
                            row.append(x[n, s, r, t] if inside else 0.0)
                    rows.append(row)
    return np.array(rows).reshape(-1, c * d)


# (image shape, neib_shape, neib_step, mode)
CASES = [
    ((2, 3, 4, 6), (2, 3), None, "valid"),
    ((1, 2, 5, 7), (3, 3), (1, 2), "valid"),
    ((2, 1, 5, 7), (2, 3), (2, 2), "ignore_borders"),
    ((1, 2, 4, 4), (2, 2), (3, 3), "ignore_borders"),
    ((1, 2, 5, 6), (3, 3), (1, 1), "wrap_centered"),
    ((2, 1, 5, 7), (3, 5), (2, 3), "wrap_centered"),
    ((1, 2, 5, 6), (3, 2), (1, 2), "half"),
    ((2, 1, 4, 5), (3, 3), (1, 1), "half"),
    ((1, 2, 7, 4), (3, 2), (3, 2), "half"),  # patches side by side, over the zero padding
    ((1, 2, 4, 5), (2, 3), (1, 1), "full"),
    ((1, 1, 4, 4), (3, 2), (1, 2), "full"),
]


def _value(shape):
    return np.random.default_rng(42).normal(size=shape)


@pytest.mark.parametrize(("shape", "neib", "step", "mode"), CASES)
def test_images2neibs_matches_loop(shape, neib, step, mode):
    x = T.dtensor4("x")
    y = images2neibs(x, neib, step, mode=mode)
    xv = _value(shape)
    got = theon.function([x], y)(xv)
    np.testing.assert_array_equal(got, ref_images2neibs(xv, neib, step or neib, mode))
    check_infer_shape(y, [x], [xv])


@pytest.mark.parametrize(("shape", "neib", "step", "mode"), CASES)
def test_images2neibs_grad(shape, neib, step, mode):
    verify_grad(lambda x: images2neibs(x, neib, step, mode=mode), [_value(shape)], rng=1)


@pytest.mark.parametrize("mode", ["valid", "wrap_centered", "full"])
def test_images2neibs_grad_of_grad(mode):
    """The gradient Op is linear in the output gradient; its own gradient is images2neibs."""
    xv = _value((1, 2, 5, 5))
    x = theon.shared(xv)
    neib, step = (3, 3), (1, 2)
    rows = theon.function([], images2neibs(x, neib, step, mode=mode))().shape
    gz = np.random.default_rng(3).normal(size=rows)
    verify_grad(lambda g: Images2NeibsGrad(mode)(g, x, neib, step), [gz], rng=2)


def test_symbolic_neib_shape():
    x = T.dtensor4("x")
    k = T.lscalar("k")
    y = images2neibs(x, T.stack([k, k]), (1, 1), mode="half")
    xv = _value((1, 1, 5, 5))
    np.testing.assert_array_equal(theon.function([x, k], y)(xv, 3),
                                  ref_images2neibs(xv, (3, 3), (1, 1), "half"))
    check_infer_shape(y, [x, k], [xv, 3])


@pytest.mark.parametrize("mode", ["valid", "ignore_borders"])
def test_neibs2images_inverts(mode):
    x = T.dtensor4("x")
    shape = (2, 3, 4, 6) if mode == "valid" else (2, 3, 5, 7)
    xv = _value(shape)
    back = neibs2images(images2neibs(x, (2, 3), mode=mode), (2, 3), x.shape, mode=mode)
    got = theon.function([x], back)(xv)
    want = xv.copy()
    if mode == "ignore_borders":
        want[:, :, 4:, :] = 0
        want[:, :, :, 6:] = 0
    np.testing.assert_array_equal(got, want)
    verify_grad(lambda z: neibs2images(z, (2, 3), shape, mode=mode),
                [_value((2 * 3 * 2 * 2, 6))], rng=4)


def test_bad_input_errors():
    x = T.dtensor4("x")
    with pytest.raises(TypeError, match="4-d"):
        images2neibs(T.dmatrix("m"), (2, 2))
    with pytest.raises(ValueError, match="mode must be one of"):
        images2neibs(x, (2, 2), mode="same")
    with pytest.raises(TypeError, match="neib_shape"):
        images2neibs(x, (2.0, 2.0))
    f = theon.function([x], images2neibs(x, (2, 2)))
    with pytest.raises(ValueError, match="not consistent"):
        f(_value((1, 1, 5, 4)))
    g = theon.function([x], images2neibs(x, (2, 2), (1, 1), mode="wrap_centered"))
    with pytest.raises(ValueError, match="odd"):
        g(_value((1, 1, 5, 5)))
    with pytest.raises(NotImplementedError, match="neibs2images"):
        neibs2images(T.dmatrix("z"), (2, 2), (1, 1, 4, 4), mode="half")
    h = theon.function([x], neibs2images(images2neibs(x, (2, 2), mode="ignore_borders"),
                                         (2, 2), x.shape))
    with pytest.raises(Exception, match="multiples"):
        h(_value((1, 1, 5, 4)))


def test_module_path():
    assert T.nnet.neighbours.images2neibs is images2neibs
    assert T.nnet.images2neibs is images2neibs
    from theon.tensor.nnet import neighbours

    assert neighbours.neibs2images is neibs2images


@pytest.mark.parametrize(("shape", "neib", "step", "mode"), CASES[::2])
def test_jax_matches_default(shape, neib, step, mode):
    pytest.importorskip("jax")
    x = T.dtensor4("x")
    y = images2neibs(x, neib, step, mode=mode)
    outs = [y, theon.grad((y**3).sum(), x)]
    xv = _value(shape)
    want = theon.function([x], outs)(xv)
    got = theon.function([x], outs, mode="JAX")(xv)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-12, atol=1e-12)
