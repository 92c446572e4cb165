"""complex, complex_from_polar, angle (issue 35) against NumPy; the Complex Op's
infer_shape and gradient (theon's convention: re gets the real part of the output's
gradient, im its imaginary part)."""

import numpy as np
import pytest

import theon.tensor as tt
from tests.tensor.nscheck import EXTREMES, check, check_shape
from theon.gradient import verify_grad
from theon.tensor.complex import Complex

rng = np.random.default_rng(352)


def _np_complex(r, i, dtype):
    out = np.empty(np.broadcast_shapes(np.shape(r), np.shape(i)), dtype=dtype)
    out.real, out.imag = r, i
    return out


@pytest.mark.parametrize(("dr", "di", "want"), [
    ("float64", "float64", "complex128"), ("float32", "float32", "complex64"),
    ("float32", "float64", "complex128"), ("int32", "int32", "complex128"),
    ("int8", "float32", "complex64")])
def test_complex_values_and_dtypes(dr, di, want):
    r = tt.vector("r", dtype=dr)
    i = tt.matrix("i", dtype=di)
    with np.errstate(all="ignore"):
        rv = (EXTREMES if dr.startswith("float") else np.arange(14)).astype(dr)
        iv = np.stack([rv[::-1], rv]).astype(di)
        ref = _np_complex(rv, iv, want)
    out = tt.complex(r, i)
    assert out.dtype == want
    check([r, i], out, [rv, iv], ref)
    check_shape(out, [r, i], [rv, iv])


def test_complex_keeps_infinities():
    r = tt.dscalar("r")
    check([r], tt.complex(r, np.inf), [1.0], np.complex128(complex(1.0, np.inf)))


def test_complex_refuses_complex_parts():
    with pytest.raises(TypeError, match="must be real"):
        Complex()(tt.zvector("z"), tt.dvector("d"))
    with pytest.raises(ValueError, match="do not broadcast"):
        Complex()(tt.tensor("a", shape=(2,)), tt.tensor("b", shape=(3,)))


def test_complex_grads():
    rv, iv = rng.normal(size=(2, 3)), rng.normal(size=(1, 3))
    verify_grad(lambda a, b: tt.abs(tt.complex(a, b)) ** 3, [rv, iv], rng=rng)
    verify_grad(lambda a, b: tt.real(tt.complex(a, b)) * tt.imag(tt.complex(a, b)) ** 2,
                [rv, iv], rng=rng)


def test_complex_from_polar():
    m, t = tt.dvector("m"), tt.dvector("t")
    mv, tv = rng.uniform(0.5, 2, size=5), rng.uniform(-3, 3, size=5)
    check([m, t], tt.complex_from_polar(m, t), [mv, tv], mv * np.exp(1j * tv), rtol=1e-15,
          atol=1e-15)
    assert tt.complex_from_polar(tt.fvector("a"), tt.fvector("b")).dtype == "complex64"
    verify_grad(lambda a, b: tt.real(tt.complex_from_polar(a, b)) +
                2 * tt.imag(tt.complex_from_polar(a, b)), [mv, tv], rng=rng)


@pytest.mark.parametrize("dtype", ["complex128", "complex64", "float64", "float32", "int8",
                                   "int64"])
@pytest.mark.parametrize("deg", [False, True])
def test_angle(dtype, deg):
    z = tt.vector("z", dtype=dtype)
    with np.errstate(all="ignore"):
        if dtype.startswith("complex"):
            zv = _np_complex(EXTREMES, EXTREMES[::-1], dtype)
        elif dtype.startswith("float"):
            zv = EXTREMES.astype(dtype)
        else:
            zv = np.arange(-3, 4).astype(dtype)
        ref = np.angle(zv, deg=deg)
    check([z], tt.angle(z, deg=deg), [zv], ref, rtol=1e-6 if ref.dtype != "float64" else 1e-15)


def test_angle_grad():
    rv, iv = rng.uniform(0.5, 2, size=4), rng.uniform(-2, 2, size=4)
    verify_grad(lambda a, b: tt.angle(tt.complex(a, b)), [rv, iv], rng=rng)
