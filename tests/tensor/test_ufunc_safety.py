"""Every entry of the strided-``out=`` table is proven against NumPy's out-of-place result.

A ufunc listed in ``STRIDED_OUT_SAFE`` may write into a non-contiguous array that
is also one of its inputs (an inplace Elemwise on a Subtensor view,
``IncSubtensor``'s ``np.add``).  Here each listed ufunc, for every dtype of its
listed kinds that has a loop keeping that dtype, runs with ``out=`` each input in
turn on many stride patterns (columns of every width 1..17, reversed, every
other element, transposed, 3-d) and must give, bit for bit, what it gives out of
place (bit for bit; nans of either sign are equal).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from theon.tensor.ufunc_safety import STRIDED_OUT_SAFE, out_ok, strided_out_safe

_DTYPES = {
    "b": ["bool"],
    "i": ["int8", "int16", "int32", "int64"],
    "u": ["uint8", "uint16", "uint32", "uint64"],
    "f": ["float16", "float32", "float64"],
    "c": ["complex64", "complex128"],
}

# (name, view of a fresh base array): every view is non-contiguous but one
_PATTERNS: list[tuple[str, Callable[[Any], Any], tuple[int, ...]]] = [
    *[(f"col{c}", lambda a, c=c: a[:, c // 2], (5 + 32 * (c % 2), c)) for c in range(1, 18)],
    ("reversed", lambda a: a[::-1], (41,)),
    ("every_other", lambda a: a[::2], (83,)),
    ("every_third_reversed", lambda a: a[::-3], (100,)),
    ("transposed", lambda a: a[:, ::2].T, (6, 9)),
    ("col_block", lambda a: a[:, 1:4], (7, 8)),
    ("strided_2d", lambda a: a[::2, ::3], (9, 16)),
    ("3d", lambda a: a[:, 2, ::2], (5, 4, 10)),
]

_SPECIAL = {
    "f": [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e30, 0.5, -0.5, 1.0, -1.0],
}


def _values(shape: tuple[int, ...], dtype: str, rng: np.random.Generator) -> np.ndarray:
    """Random values of ``dtype`` with the kind's special values mixed in."""
    kind = np.dtype(dtype).kind
    a = rng.normal(size=shape) * 3
    with np.errstate(over="ignore"):
        return _typed(a, dtype, kind, rng)


def _typed(a: np.ndarray, dtype: str, kind: str, rng: np.random.Generator) -> np.ndarray:
    if kind == "b":
        return a > 0
    if kind in "iu":
        a = np.round(a) + (4 if kind == "u" else 0)
        return np.clip(a, 0 if kind == "u" else -8, 60).astype(dtype)
    flat = a.reshape(-1)
    special = np.array(_SPECIAL["f"])
    k = min(len(special), flat.size // 3)
    flat[rng.choice(flat.size, k, replace=False)] = rng.choice(special, k)
    if kind == "c":
        b = rng.normal(size=a.shape)
        return (a + 1j * b).astype(dtype)
    return a.astype(dtype)


def _cases() -> list[Any]:
    out = []
    for ufunc, kinds in STRIDED_OUT_SAFE.items():
        for kind in kinds:
            for dt in _DTYPES[kind]:
                try:
                    loop = ufunc.resolve_dtypes((np.dtype(dt),) * ufunc.nin + (None,) * ufunc.nout)
                except (TypeError, ValueError):
                    continue
                if loop[ufunc.nin] != np.dtype(dt):
                    continue  # no loop keeping the dtype: never written in place
                out.append(pytest.param(ufunc, dt, id=f"{ufunc.__name__}-{dt}"))
    return out


_ULPS = 4  # NumPy's SIMD and scalar loops of one function differ by an ulp or two


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal: integers exactly; floats within a few ulps where finite (NumPy's loops for
    contiguous and strided arrays round differently), else the same inf, nan or zero."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind not in "fc":
        return bool(np.array_equal(a, b))
    if a.dtype.kind == "c":
        return _same(a.real.copy(), b.real.copy()) and _same(a.imag.copy(), b.imag.copy())
    with np.errstate(all="ignore"):
        fin = np.isfinite(a) & np.isfinite(b)
        close = np.abs(a - b) <= _ULPS * np.spacing(np.maximum(np.abs(a), np.abs(b)))
        same = (a == b) & (np.signbit(a) == np.signbit(b)) | np.isnan(a) & np.isnan(b)
    return bool(np.all(np.where(fin & (a != 0) & (b != 0), close, same)))


@pytest.mark.parametrize("ufunc, dtype", _cases())
def test_listed_ufunc_is_right_on_a_strided_output(ufunc: np.ufunc, dtype: str) -> None:
    rng = np.random.default_rng(20261125)
    for name, view, shape in _PATTERNS:
        for pos in range(ufunc.nin):
            base = _values(shape, dtype, rng)
            v = view(base)
            assert v.flags.forc == (name == "col1"), name
            args = [_values(v.shape, dtype, rng) for _ in range(ufunc.nin)]
            args[pos] = v
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                try:
                    ref = ufunc(*args)
                except (ValueError, TypeError, ZeroDivisionError):
                    continue  # e.g. integers to negative integer powers
                ref0 = ref[0] if ufunc.nout > 1 else ref
                ufunc(*args, out=(v,) + (None,) * (ufunc.nout - 1))
            assert _same(v, ref0), (name, pos)


@pytest.mark.parametrize("ydtype", ["float32", "float64", "int64"])
def test_add_with_a_cast_operand_on_a_strided_output(ydtype: str) -> None:
    """IncSubtensor's ``np.add(sub, y, out=sub, casting="same_kind")``: ``y`` of another dtype."""
    rng = np.random.default_rng(7)
    for name, view, shape in _PATTERNS:
        base = _values(shape, "float32", rng)
        v = view(base)
        y = _values(v.shape, ydtype, rng)
        with np.errstate(all="ignore"):
            ref = np.add(v, y).astype("float32")
            np.add(v, y, out=v, casting="same_kind")
        assert _same(v, ref), name


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "complex128"])
def test_copy_into_a_strided_array(dtype: str) -> None:
    """The fallback of an unlisted ufunc copies a new result into the buffer: copies are right."""
    rng = np.random.default_rng(8)
    for name, view, shape in _PATTERNS:
        v = view(_values(shape, dtype, rng))
        r = _values(v.shape, dtype, rng)
        v[...] = r
        assert _same(v, r), name


def test_unlisted_ufuncs_are_not_safe() -> None:
    assert not strided_out_safe(np.negative, "float64")
    assert not strided_out_safe(np.square, "complex128")
    assert strided_out_safe(np.square, "float32")
    v = np.zeros((5, 8))[:, 3]
    assert not out_ok(np.negative, v) and out_ok(np.negative, np.zeros(5))
    assert out_ok(np.negative, np.zeros((3, 4)).T)  # Fortran-contiguous


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "complex128"])
def test_add_at_on_a_strided_array(dtype: str) -> None:
    """AdvancedIncSubtensor accumulates with ``np.add.at`` into a buffer that may be a view."""
    rng = np.random.default_rng(9)
    for name, view, shape in _PATTERNS:
        v = view(_values(shape, dtype, rng))
        ref = v.copy()
        idx = tuple(rng.integers(0, n, size=12) for n in v.shape)
        y = _values((12,), dtype, rng)
        with np.errstate(all="ignore"):
            np.add.at(v, idx, y)
            np.add.at(ref, idx, y)
        assert _same(v, ref), name
