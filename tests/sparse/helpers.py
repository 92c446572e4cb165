"""Shared helpers of the sparse tests: random matrices with empty rows, NumPy-loop
references (independent of scipy.sparse's arithmetic), and a run on both linkers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

import theon
from theon.compile.mode import Mode

VM = Mode(linker="vm")
DENSITIES = (0.0, 0.15, 0.6)
FORMATS = ("csr", "csc")


def rand_sparse(
    shape: tuple[int, int], density: float, fmt: str = "csr", dtype: str = "float64",
    seed: int = 0, low: float = -2.0, high: float = 2.0,
) -> Any:
    """A random matrix whose row 1 and column 0 are empty (when it has them), entries in
    [low, high) away from zero."""
    rng = np.random.default_rng(seed)
    mask = rng.random(shape) < density
    if shape[0] > 1:
        mask[1, :] = False
    if shape[1] > 1:
        mask[:, 0] = False
    vals = rng.uniform(low, high, size=shape)
    vals = np.where(np.abs(vals) < 0.1, 0.5, vals)
    dense = np.where(mask, vals, 0.0).astype(dtype)
    return getattr(sp, f"{fmt}_matrix")(dense)


def loop_dense(m: Any) -> np.ndarray:
    """The dense matrix of a CSR/CSC matrix, read from its arrays by a Python loop."""
    out = np.zeros(m.shape, dtype=m.dtype)
    for major in range(len(m.indptr) - 1):
        for k in range(m.indptr[major], m.indptr[major + 1]):
            minor = m.indices[k]
            i, j = (major, minor) if m.format == "csr" else (minor, major)
            out[i, j] += m.data[k]
    return out


def loop_entries(m: Any) -> list[tuple[int, int, float]]:
    """``(row, col, value)`` of each stored entry, by a Python loop."""
    out = []
    for major in range(len(m.indptr) - 1):
        for k in range(m.indptr[major], m.indptr[major + 1]):
            minor = int(m.indices[k])
            i, j = (major, minor) if m.format == "csr" else (minor, major)
            out.append((i, j, float(m.data[k])))
    return out


def pattern(m: Any) -> set[tuple[int, int]]:
    return {(i, j) for i, j, _ in loop_entries(m)}


def as_dense(v: Any) -> np.ndarray:
    return loop_dense(v) if sp.issparse(v) else np.asarray(v)


def run_both(inputs: Sequence[Any], out: Any, args: Sequence[Any]) -> Any:
    """The output on the default linker, checked equal to the reference VM's."""
    a = theon.function(list(inputs), out, on_unused_input="ignore")(*args)
    b = theon.function(list(inputs), out, mode=VM, on_unused_input="ignore")(*args)
    for u, w in zip(a, b) if isinstance(a, list) else [(a, b)]:
        assert type(u) is type(w)
        if sp.issparse(u):
            assert u.format == w.format and u.dtype == w.dtype
        np.testing.assert_array_equal(as_dense(u), as_dense(w))
    return a
