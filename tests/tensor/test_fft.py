"""theon.tensor.fft (issue 35): rfft/irfft against numpy.fft.rfftn/irfftn over the axes
after the first, each norm, the Ops' infer_shape, and gradients with verify_grad (the
adjoints of the real transforms)."""

import numpy as np
import pytest

import theon.tensor as tt
from tests.tensor.core_checks import check_infer_shape
from tests.tensor.nscheck import check
from theon.gradient import verify_grad
from theon.tensor import fft

rng = np.random.default_rng(356)
SHAPES = [(2, 6), (2, 7), (3, 4, 5), (1, 3, 1, 4)]


def _pairs(spec, dtype):
    return np.stack([spec.real, spec.imag], axis=-1).astype(dtype)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("norm", [None, "ortho", "no_norm"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_rfft_irfft(shape, norm, dtype):
    x = tt.tensor("x", dtype=dtype, shape=(None,) * len(shape))
    xv = rng.normal(size=shape).astype(dtype)
    axes = tuple(range(1, len(shape)))
    np_norm = None if norm in (None, "no_norm") else norm
    tol = 1e-12 if dtype == "float64" else 2e-5
    spec = np.fft.rfftn(xv.astype("float64"), axes=axes, norm=np_norm)
    out = fft.rfft(x, norm)
    check([x], out, [xv], _pairs(spec, dtype), rtol=tol, atol=tol * 10)
    odd = shape[-1] % 2 == 1
    z = tt.tensor("z", dtype=dtype, shape=(None,) * (len(shape) + 1))
    zv = _pairs(spec, dtype)
    back = np.fft.irfftn(spec, s=shape[1:], axes=axes, norm=np_norm)
    if norm == "no_norm":
        back = back * np.prod(shape[1:])
    check([z], fft.irfft(z, norm, is_odd=odd), [zv], back.astype(dtype), rtol=tol,
          atol=tol * 10)
    check_infer_shape(fft.RFFTOp()(x), [x], [xv])
    check_infer_shape(fft.IRFFTOp(odd)(z), [z], [zv])
    check_infer_shape(fft.IRFFTOp()(z, shape[-1]), [z], [zv])


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("norm", [None, "ortho"])
def test_fft_grads(shape, norm):
    odd = shape[-1] % 2 == 1
    verify_grad(lambda v: fft.rfft(v, norm), [rng.normal(size=shape)], rng=rng)
    zshape = (*shape[:-1], shape[-1] // 2 + 1, 2)
    verify_grad(lambda v: fft.irfft(v, norm, is_odd=odd), [rng.normal(size=zshape)], rng=rng)


def test_rfft_grad_of_unknown_length_parity():
    x = tt.dmatrix("x")
    xv = rng.normal(size=(2, 5))
    import theon
    g = theon.grad((fft.rfft(x) ** 2).sum(), x)
    want = theon.function([x], g, mode="FAST_RUN")(xv)
    assert want.shape == xv.shape
    verify_grad(lambda v: (fft.rfft(v) ** 2).sum(), [xv], rng=rng)


def test_fft_errors():
    with pytest.raises(ValueError, match="batch axis"):
        fft.rfft(tt.dvector("v"))
    with pytest.raises(ValueError, match="norm"):
        fft.rfft(tt.dmatrix("m"), norm="forward")
    with pytest.raises(ValueError, match="pairs of reals"):
        fft.irfft(tt.dmatrix("m"))
