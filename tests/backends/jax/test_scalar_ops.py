"""Every scalar Op lifted by Elemwise, in mode="JAX", against the reference VM.

For each op and each dtype combination it accepts (float64, float32, int64, int8,
uint8, bool, complex128 and mixes), on random values in the op's usual domain
and on the edge values of ``tests/backends/py/test_ops.py`` (signed zeros,
infinities, nan, overflow).  dtypes and shapes must be equal; values equal for
integers and booleans, within a few ulp for floats (XLA's transcendental
functions are not NumPy's).  Where NumPy's result is an artifact of its
implementation (the int64 minimum // -1, out-of-range float to int casts) the
comparison is skipped (``_defined``); integer division by zero gives 0, as in NumPy.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax", reason="mode='JAX' needs jax (pip install 'theon[jax]')")

import theon
import theon.tensor as tt
from tests.backends.jax.helpers import RTOL, run_both
from tests.backends.py.test_ops import OPS, _combos, _grid, _node
from theon.scalar.basic import Cast
from theon.scalar.type import get_scalar_type

CASTS = [Cast(get_scalar_type(d)) for d in ("float64", "float32", "int64", "int8", "bool")]


def _random_values(dtypes, rng, n=64):
    out = []
    for d in dtypes:
        kind = np.dtype(d).kind
        if kind == "f":
            v = rng.uniform(0.05, 0.95, n) * rng.choice([-1, 1], n) * rng.choice([1, 3], n)
        elif kind == "c":
            v = rng.normal(size=n) + 1j * rng.normal(size=n)
        elif kind == "b":
            v = rng.random(n) > 0.5
        elif kind == "u":
            v = rng.integers(1, 7, n)
        else:
            v = rng.integers(1, 7, n) * rng.choice([-1, 1], n)
        out.append(np.asarray(v).astype(d))
    return out


def _defined(op, args, want):
    """Where NumPy's value is defined (not an implementation artifact), elementwise."""
    name = str(op)
    ok = np.ones(np.shape(want), dtype=bool)
    if name in ("int_div", "mod", "true_div") or name.startswith("convert_to"):
        ints = [a for a in args if a.dtype.kind in "iub"]
        if name in ("int_div", "mod") and len(args) == 2 and ints:
            ok &= ~((args[0] == np.iinfo(args[0].dtype).min) & (args[1] == -1)) \
                if args[0].dtype.kind == "i" else True
        if name.startswith("convert_to") and np.dtype(want.dtype).kind in "iu":
            a = args[0]
            if a.dtype.kind in "fc":  # out-of-range or nan float -> int is undefined in C
                info = np.iinfo(want.dtype)
                with np.errstate(all="ignore"):
                    ok &= np.isfinite(a) & (np.real(a) >= info.min) & (np.real(a) <= info.max)
            elif a.dtype.kind in "iu" and np.dtype(want.dtype).itemsize < a.dtype.itemsize:
                pass  # wrapping is defined for ints
    if name in ("left_shift", "right_shift"):
        width = np.dtype(want.dtype).itemsize * 8
        ok &= (args[1] >= 0) & (args[1] < width)
    if name in ("psi", "gamma", "tri_gamma"):  # poles: SciPy gives +-inf, jax nan
        a = np.real(args[0]).astype(np.float64)
        ok &= ~((a <= 0) & (a == np.floor(a)))
    if name in ("pow",) and all(a.dtype.kind in "iu" for a in args):
        ok &= args[1] >= 0
    return ok


def _compare_all(op, cases, where):
    """Run every (dtypes, args) case of ``op`` in one graph (one compile), compare each.

    Returns how many cases were compared."""
    ins, outs, slices, kept = [], [], [], []
    for dtypes, args in cases:
        g = _node(op, dtypes, (None,))
        if g is None:
            continue
        slices.append((len(outs), len(outs) + len(g[1])))
        ins += g[0]
        outs += g[1]
        kept.append((dtypes, args))
    if not kept:
        return 0
    values = [a for _, args in kept for a in args]
    got, want = run_both(ins, outs, values)
    if isinstance(want, Exception):  # NumPy refuses some case (negative integer powers):
        return sum(_compare_all(op, [c], where) for c in kept) if len(kept) > 1 else 0
    assert not isinstance(got, Exception), f"{where}: JAX raised {got!r}"
    for (dtypes, args), (lo, hi) in zip(kept, slices):
        for k in range(lo, hi):
            gv, wv = got[k], want[k]
            msg = f"{op}{dtypes} {where} output {k - lo}"
            assert gv.dtype == wv.dtype and gv.shape == wv.shape, (msg, gv.dtype, wv.dtype)
            ok = _defined(op, args, wv)
            gv, wv = gv[ok], wv[ok]
            if wv.dtype.kind in "fc":
                rtol = RTOL[wv.dtype.name] * (1e3 if str(op) in SLOPPY else 1)
                np.testing.assert_allclose(gv, wv, rtol=rtol, atol=rtol * 1e-2,
                                           equal_nan=True, err_msg=msg)
            else:
                np.testing.assert_array_equal(gv, wv, err_msg=msg)
    return len(kept)


#: ops whose XLA implementation is less accurate than SciPy's in float64 (still ~1e-8)
SLOPPY = {"gamma", "psi", "polygamma", "erfinv", "erfcinv", "tri_gamma"}


@pytest.mark.parametrize("op", OPS + CASTS, ids=str)
def test_elemwise_random_values_match_vm(op):
    rng = np.random.default_rng(0)
    cases = []
    for dtypes in _combos(op):
        args = _random_values(dtypes, rng)
        if str(op) == "polygamma":
            args = [np.abs(a).astype(a.dtype) for a in args]
        cases.append((dtypes, args))
    tested = _compare_all(op, cases, "on random values")
    assert tested or str(op) == "polygamma"


#: (op, reason): edge values where XLA and NumPy disagree and both are defensible
EDGE_KNOWN: dict[str, str] = {
    "pow": "0 ** complex: XLA gives nan+nanj, NumPy 0",
    "gammaln": "gammaln(-inf): jax gives inf, SciPy -inf",
    "psi": "digamma at the poles 0 and -0: jax gives nan, SciPy -inf/inf",
    "polygamma": "polygamma at the poles (x <= 0 integers): jax gives nan, SciPy -inf",
    "arcsinh": "complex arcsinh on the branch cut (-0-2.5j): the sign of the real part",
    # SciPy computed on the host (jax has these functions not): the callback runs on an
    # XLA thread, which flushes subnormal numbers to zero (docs/jax.md), and SciPy's
    # iv(0, 710) overflows to inf there, gammainccinv(710, 1e-300) moves 1e-11
    "iv": "iv(0, 710) on an XLA thread (subnormals flushed): inf, SciPy 3.3e306",
    "gammainccinv": "gammainccinv(710, 1e-300) on an XLA thread (subnormals flushed): "
                    "1.1e-11 relative from SciPy's",
}


@pytest.mark.parametrize("op", OPS + CASTS, ids=str)
def test_elemwise_edge_values_match_vm(op):
    if str(op) in EDGE_KNOWN:
        pytest.skip(EDGE_KNOWN[str(op)])
    cases = [(d, [np.asarray(a) for a in _grid(d)]) for d in _combos(op)]
    assert _compare_all(op, cases, "on edge values") or str(op) == "polygamma"


def _same_with_zero_signs(got, want):
    """Equal values (nan == nan) and dtypes, and each zero of the same sign."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)
    if want.dtype.kind in "fc":
        for g, w in ((got.real, want.real), (got.imag, want.imag)):
            num = ~np.isnan(w)
            np.testing.assert_array_equal(np.signbit(g[num]), np.signbit(w[num]))


@pytest.mark.parametrize("dtype", ["int64", "int32", "int8", "uint8", "bool"])
def test_integer_floor_div_and_mod_by_zero_give_numpys_zero(dtype):
    """Issue 29, item 11: XLA's ``[1, -7, 0] // 0`` is ``[-2, -2, -1]``; NumPy and the
    default mode give 0, and so must mode="JAX" (for ``%`` too)."""
    x, y = tt.tensor(dtype, shape=(None,), name="x"), tt.tensor(dtype, shape=(None,), name="y")
    a = np.array([1, -7, 0, 5, -128, 127]).astype(dtype)
    b = np.array([0, 0, 0, 3, 0, -1]).astype(dtype)
    with np.errstate(all="ignore"):
        want = [np.floor_divide(a, b), np.remainder(a, b), a // 0, a % 0]
    for mode in ("JAX", None):
        got = theon.function([x, y], [x // y, x % y, x // 0, x % 0], mode=mode)(a, b)
        for g, w in zip(got, want):
            _same_with_zero_signs(g, w)
    if dtype == "int64":  # the repro
        f = theon.function([x, y], x // y, mode="JAX")
        assert f(np.array([1, -7, 0]), np.zeros(3, "int64")).tolist() == [0, 0, 0]


def test_product_with_a_boolean_keeps_numpys_signed_zero_and_nan():
    """Issue 29, item 11: XLA simplifies ``x * float(b)`` to ``where(b, x, 0)``, losing
    the sign of ``-2.0 * False`` (and the nan of ``inf * False``), so that
    ``-1.5 // (x * False)`` was -inf where NumPy and the default mode give +inf."""
    x, b = tt.dvector("x"), tt.tensor("bool", shape=(None,), name="b")
    z = tt.tensor("complex128", shape=(None,), name="z")
    xv = np.array([-2.0, 2.0, np.inf, np.nan, -0.0, 1e308, -3.0])
    bv = np.array([False, True, False, False, True, False, False])
    zv = np.array([-2 + 3j, 1j, np.inf, complex(1, np.inf), -0.0, 1e308 + 1e308j, -1 - 1j])
    outs = [-1.5 // (x * b), 1.5 % (x * b), x * b, b * x, b * x * 10.0, (x * 10.0) * b,
            b * b * x, z * b, b * z, -1.5 // (x * False), x * False]
    with np.errstate(all="ignore"):
        want = [-1.5 // (xv * bv), 1.5 % (xv * bv), xv * bv, bv * xv, bv * xv * 10.0,
                (xv * 10.0) * bv, bv * bv * xv, zv * bv, bv * zv, -1.5 // (xv * False),
                xv * False]
    for mode in ("JAX", None):
        got = theon.function([x, b, z], outs, mode=mode)(xv, bv, zv)
        for k, (g, w) in enumerate(zip(got, want)):
            try:
                _same_with_zero_signs(g, w)
            except AssertionError as e:
                raise AssertionError(f"mode={mode}, output {k}: {g} vs NumPy {w}") from e
    assert got[0][0] == np.inf  # the repro: -1.5 // (-2.0 * False)


def test_float_floor_div_and_mod_zeros_have_numpys_sign():
    """A zero quotient has the sign of ``x / y`` and a zero remainder the sign of ``y``
    in NumPy (XLA's ``-1.5 // -2.0`` and ``-4.0 % 2.0`` are -0.0)."""
    x, y = tt.dvector("x"), tt.dvector("y")
    a = np.array([-1.5, 1.5, -4.0, 4.0, 0.0, -0.0, 5.0, -5.0, np.inf, 3.0, -3.0, 0.0])
    b = np.array([-2.0, -2.0, 2.0, -2.0, -2.0, 2.0, np.inf, np.inf, 5.0, 0.0, -0.0, 0.0])
    with np.errstate(all="ignore"):
        want = [a // b, a % b]
    for mode in ("JAX", None):
        for g, w in zip(theon.function([x, y], [x // y, x % y], mode=mode)(a, b), want):
            _same_with_zero_signs(g, w)


def test_subnormals_are_flushed_to_zero_as_docs_jax_md_says():
    """docs/jax.md, "Differences from NumPy": XLA on the CPU flushes subnormals to zero
    (``sign(5e-324)`` is 0, NumPy's 1); the default mode keeps NumPy's value."""
    x = tt.dvector("x")
    v = np.array([5e-324, 1e-310, 1e-300])
    got = theon.function([x], [tt.sgn(x), x * 2.0], mode="JAX")(v)
    assert got[0].tolist() == [0.0, 0.0, 1.0] and got[1].tolist() == [0.0, 0.0, 2e-300]
    ref = theon.function([x], [tt.sgn(x), x * 2.0])(v)
    np.testing.assert_array_equal(ref[0], np.sign(v))
    np.testing.assert_array_equal(ref[1], v * 2.0)
