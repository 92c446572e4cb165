"""NumPy kernels of the convolution Ops: im2col + one GEMM per group, col2im.

The spatial dimensions are generic (2 for ``conv2d``, 3 for ``conv3d``).  All
three kernels compute *correlations*; the Ops flip the kernel for a true
convolution.  For ``G`` groups of ``Cg`` input and ``Og`` output channels, a
kernel of ``T`` taps and ``N`` images of ``P`` output pixels, the images are
first copied to the layout ``(C, *padded, N)`` (batch last, zero padding
included), so that every strided copy below moves runs of ``N`` (or more)
contiguous numbers rather than short image rows:

- the columns of the input are one array ``(G, Cg * T, P * N)``, one copy of a
  strided view (``columns``);
- the forward output is ``matmul(W (G, Og, Cg * T), cols)``: one GEMM per group,
  returned as an ``(N, O, *out)`` view of the ``(O, *out, N)`` result;
- the gradient of the kernel is ``matmul(gz (G, Og, P * N), cols^T)``;
- the gradient of the input is ``matmul(W^T (G, T * Cg, Og), gz)`` added back
  tap by tap into the padded input (col2im): one strided add per tap.

>>> import numpy as np
>>> x = np.arange(16.0).reshape(1, 1, 4, 4)
>>> w = np.ones((1, 1, 2, 2))
>>> corr_forward(x, w, ((0, 0), (0, 0)), (1, 1), (1, 1), 1)[0, 0].tolist()
[[10.0, 14.0, 18.0], [26.0, 30.0, 34.0], [42.0, 46.0, 50.0]]
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

Pads = Sequence[tuple[int, int]]

__all__ = ["batch_last", "columns", "corr_forward", "corr_grad_inputs", "corr_grad_weights"]


def _inner(spatial: Sequence[int], pads: Pads) -> tuple[slice, ...]:
    return tuple(slice(lo, lo + n) for n, (lo, _) in zip(spatial, pads, strict=True))


def batch_last(x: np.ndarray, pads: Pads) -> np.ndarray:
    """``x (N, C, *spatial)`` as a contiguous ``(C, *padded, N)`` array, zero padded."""
    moved = np.moveaxis(x, 0, -1)
    if not any(lo or hi for lo, hi in pads):
        return np.ascontiguousarray(moved)
    spatial = x.shape[2:]
    padded = tuple(n + lo + hi for n, (lo, hi) in zip(spatial, pads, strict=True))
    out = np.zeros((x.shape[1], *padded, x.shape[0]), dtype=x.dtype)
    out[(slice(None), *_inner(spatial, pads))] = moved
    return out


def _out_lengths(padded: Sequence[int], k: Sequence[int], s: Sequence[int],
                 d: Sequence[int]) -> tuple[int, ...]:
    return tuple((n - ((kk - 1) * dd + 1)) // ss + 1 for n, kk, ss, dd in zip(padded, k, s, d,
                                                                           strict=True))


def columns(xt: np.ndarray, groups: int, k: Sequence[int], s: Sequence[int],
            d: Sequence[int], out: Sequence[int]) -> np.ndarray:
    """im2col of a ``batch_last`` input ``(C, *padded, N)``: ``(G, C/G * prod(k), prod(out) * N)``.

    Row ``(c, taps...)``, column ``(pixel..., n)`` holds ``xt[g*Cg + c, pixel * s + taps * d, n]``.
    """
    c, n = xt.shape[0], xt.shape[-1]
    cg = c // groups
    st = xt.strides
    sp = st[1:-1]
    view = as_strided(
        xt,
        shape=(groups, cg, *k, *out, n),
        strides=(cg * st[0], st[0], *(a * b for a, b in zip(sp, d, strict=True)),
                 *(a * b for a, b in zip(sp, s, strict=True)), st[-1]),
        writeable=False,
    )
    return view.reshape(groups, cg * int(np.prod(k)), int(np.prod(out)) * n)


def corr_forward(x: np.ndarray, w: np.ndarray, pads: Pads, s: Sequence[int],
                 d: Sequence[int], groups: int) -> np.ndarray:
    """Grouped, strided, dilated correlation of ``x (N, C, ...)`` with ``w (O, C/G, ...)``."""
    n = x.shape[0]
    o = w.shape[0]
    k = w.shape[2:]
    padded = [m + lo + hi for m, (lo, hi) in zip(x.shape[2:], pads, strict=True)]
    out = _out_lengths(padded, k, s, d)
    if min(out, default=1) <= 0 or n == 0 or o == 0:
        return np.zeros((n, o, *(max(m, 0) for m in out)), dtype=x.dtype)
    cols = columns(batch_last(x, pads), groups, k, s, d, out)
    res = np.matmul(w.reshape(groups, o // groups, -1), cols)  # (G, Og, P * N)
    return np.moveaxis(res.reshape(o, *out, n), -1, 0)


def corr_grad_weights(x: np.ndarray, gz: np.ndarray, k: Sequence[int], pads: Pads,
                      s: Sequence[int], d: Sequence[int], groups: int) -> np.ndarray:
    """The gradient of ``sum(gz * corr_forward(x, w))`` with respect to ``w``: ``(O, C/G, *k)``."""
    n, c = x.shape[:2]
    o = gz.shape[1]
    out = gz.shape[2:]
    if min(out, default=1) <= 0 or n == 0:
        return np.zeros((o, c // groups, *k), dtype=x.dtype)
    cols = columns(batch_last(x, pads), groups, k, s, d, out)  # (G, K, P * N)
    gzt = np.moveaxis(gz, 0, -1).reshape(groups, o // groups, -1)  # (G, Og, P * N)
    gw: np.ndarray = np.matmul(gzt, cols.transpose(0, 2, 1))  # (G, Og, K)
    return gw.reshape(o, c // groups, *k)


def corr_grad_inputs(w: np.ndarray, gz: np.ndarray, spatial: Sequence[int], pads: Pads,
                     s: Sequence[int], d: Sequence[int], groups: int) -> np.ndarray:
    """The gradient of ``sum(gz * corr_forward(x, w))`` with respect to ``x`` (col2im).

    ``spatial`` is the spatial shape of ``x``; the result is ``(N, C, *spatial)``.
    """
    n, o = gz.shape[:2]
    out = tuple(gz.shape[2:])
    cg = w.shape[1]
    c = cg * groups
    k = tuple(w.shape[2:])
    taps = int(np.prod(k))
    og = o // groups
    padded = tuple(m + lo + hi for m, (lo, hi) in zip(spatial, pads, strict=True))
    if min(out, default=1) <= 0 or n == 0 or c == 0:
        return np.zeros((n, c, *spatial), dtype=gz.dtype)
    gzt = np.moveaxis(gz, 0, -1).reshape(groups, og, -1)  # (G, Og, P * N)
    wt = w.reshape(groups, og, cg, taps).transpose(0, 3, 2, 1).reshape(groups, taps * cg, og)
    dcols = np.matmul(wt, gzt).reshape(groups, taps, cg, *out, n)
    acc = np.zeros((groups, cg, *padded, n), dtype=dcols.dtype)
    everything: Any = slice(None)
    for i, tap in enumerate(itertools.product(*(range(kk) for kk in k))):
        where = tuple(slice(t * dd, t * dd + ss * (m - 1) + 1, ss)
                      for t, dd, ss, m in zip(tap, d, s, out, strict=True))
        acc[(everything, everything, *where)] += dcols[:, i]
    res = acc.reshape(c, *padded, n)[(everything, *_inner(spatial, pads))]
    return np.moveaxis(res, -1, 0)
