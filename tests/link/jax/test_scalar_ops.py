"""Every scalar Op lifted by Elemwise, in mode="JAX", against the reference VM.

For each op and each dtype combination it accepts (float64, float32, int64, int8,
uint8, bool, complex128 and mixes), on random values in the op's usual domain
and on the edge values of ``tests/link/test_pyfunc_ops.py`` (signed zeros,
infinities, nan, overflow).  dtypes and shapes must be equal; values equal for
integers and booleans, within a few ulp for floats (XLA's transcendental
functions are not NumPy's).  Where NumPy's result is an artifact of its
implementation (integer division by zero, out-of-range float to int casts) the
comparison is skipped, as listed in ``UNDEFINED``.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax", reason="mode='JAX' needs jax (pip install 'theon[jax]')")

from tests.link.jax.helpers import RTOL, run_both
from tests.link.test_pyfunc_ops import OPS, _combos, _grid, _node
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
            ok &= args[1] != 0  # integer division by zero: NumPy gives 0, XLA another value
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
    "mul": "XLA simplifies x * float(b) for a boolean b into a select: False * inf is 0 "
           "(NumPy: nan)",
    "pow": "0 ** complex: XLA gives nan+nanj, NumPy 0",
    "gammaln": "gammaln(-inf): jax gives inf, SciPy -inf",
    "psi": "digamma at the poles 0 and -0: jax gives nan, SciPy -inf/inf",
    "polygamma": "polygamma at the poles (x <= 0 integers): jax gives nan, SciPy -inf",
    "arcsinh": "complex arcsinh on the branch cut (-0-2.5j): the sign of the real part",
}


@pytest.mark.parametrize("op", OPS + CASTS, ids=str)
def test_elemwise_edge_values_match_vm(op):
    if str(op) in EDGE_KNOWN:
        pytest.skip(EDGE_KNOWN[str(op)])
    cases = [(d, [np.asarray(a) for a in _grid(d)]) for d in _combos(op)]
    assert _compare_all(op, cases, "on edge values") or str(op) == "polygamma"
