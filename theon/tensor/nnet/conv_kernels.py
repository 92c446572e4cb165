"""NumPy kernels of the convolution Ops: im2col + one GEMM per group, col2im.

The spatial dimensions are generic (2 for ``conv2d``, 3 for ``conv3d``).  All
three kernels compute *correlations*; the Ops flip the kernel for a true
convolution.  Layouts, for ``G`` groups of ``Cg`` input and ``Og`` output
channels, a kernel of ``k`` taps, ``N`` images of ``P`` output pixels:

- the columns of the input are one array ``(G, Cg * prod(k), N * P)``, built by
  one copy of a strided view of the (padded) input (``columns``);
- the forward output is ``matmul(W (G, Og, K), cols)``: ``(G, Og, N * P)``, one
  GEMM per group, returned as an ``(N, O, *out)`` view;
- the gradient of the kernel is ``matmul(gz (G, Og, N * P), cols^T)``;
- the gradient of the input is ``matmul(W^T, gz)`` scattered back (col2im) by one
  strided add per kernel tap.

>>> import numpy as np
>>> x = np.arange(16.0).reshape(1, 1, 4, 4)
>>> w = np.ones((1, 1, 2, 2))
>>> corr_forward(x, w, ((0, 0), (0, 0)), (1, 1), (1, 1), 1)[0, 0].tolist()
[[10.0, 14.0, 18.0], [26.0, 30.0, 34.0], [42.0, 46.0, 50.0]]
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
from numpy.lib.stride_tricks import as_strided

Pads = Sequence[tuple[int, int]]

__all__ = ["columns", "corr_forward", "corr_grad_inputs", "corr_grad_weights", "pad_spatial"]


def pad_spatial(x: np.ndarray, pads: Pads) -> np.ndarray:
    """``x`` with zeros added around its trailing ``len(pads)`` dimensions (no copy if none)."""
    if not any(lo or hi for lo, hi in pads):
        return x
    nd = len(pads)
    lead = x.shape[: x.ndim - nd]
    spatial = x.shape[x.ndim - nd :]
    out = np.zeros(lead + tuple(n + lo + hi for n, (lo, hi) in zip(spatial, pads, strict=True)),
                   dtype=x.dtype)
    inner = tuple(slice(lo, lo + n) for n, (lo, _) in zip(spatial, pads, strict=True))
    out[(Ellipsis, *inner)] = x
    return out


def _out_lengths(padded: Sequence[int], k: Sequence[int], s: Sequence[int],
                 d: Sequence[int]) -> tuple[int, ...]:
    return tuple((n - ((kk - 1) * dd + 1)) // ss + 1 for n, kk, ss, dd in zip(padded, k, s, d,
                                                                           strict=True))


def columns(xp: np.ndarray, groups: int, k: Sequence[int], s: Sequence[int],
            d: Sequence[int], out: Sequence[int]) -> np.ndarray:
    """im2col of a padded input ``(N, C, *spatial)``: ``(G, C/G * prod(k), N * prod(out))``.

    Row ``(c, taps...)``, column ``(n, pixel...)`` holds
    ``xp[n, g*Cg + c, pixel * s + taps * d]``.
    """
    n, c = xp.shape[:2]
    cg = c // groups
    st = xp.strides
    sp = st[2:]
    view = as_strided(
        xp,
        shape=(groups, cg, *k, n, *out),
        strides=(cg * st[1], st[1], *(a * b for a, b in zip(sp, d, strict=True)), st[0],
                 *(a * b for a, b in zip(sp, s, strict=True))),
        writeable=False,
    )
    return view.reshape(groups, cg * int(np.prod(k)), n * int(np.prod(out)))


def corr_forward(x: np.ndarray, w: np.ndarray, pads: Pads, s: Sequence[int],
                 d: Sequence[int], groups: int) -> np.ndarray:
    """Grouped, strided, dilated correlation of ``x (N, C, ...)`` with ``w (O, C/G, ...)``."""
    xp = pad_spatial(x, pads)
    n = x.shape[0]
    o = w.shape[0]
    k = w.shape[2:]
    out = _out_lengths(xp.shape[2:], k, s, d)
    if min(out, default=1) <= 0 or n == 0 or o == 0:
        return np.zeros((n, o, *(max(m, 0) for m in out)), dtype=x.dtype)
    cols = columns(xp, groups, k, s, d, out)
    wm = w.reshape(groups, o // groups, -1)
    res = np.matmul(wm, cols)  # (G, Og, N * P)
    return res.reshape(o, n, *out).swapaxes(0, 1)


def corr_grad_weights(x: np.ndarray, gz: np.ndarray, k: Sequence[int], pads: Pads,
                      s: Sequence[int], d: Sequence[int], groups: int) -> np.ndarray:
    """The gradient of ``sum(gz * corr_forward(x, w))`` with respect to ``w``: ``(O, C/G, *k)``."""
    xp = pad_spatial(x, pads)
    n, c = x.shape[:2]
    o = gz.shape[1]
    out = gz.shape[2:]
    if min(out, default=1) <= 0 or n == 0:
        return np.zeros((o, c // groups, *k), dtype=x.dtype)
    cols = columns(xp, groups, k, s, d, out)  # (G, K, NP)
    gzm = gz.swapaxes(0, 1).reshape(groups, o // groups, -1)  # (G, Og, NP)
    gw = np.matmul(gzm, cols.transpose(0, 2, 1))  # (G, Og, K)
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
    padded = tuple(m + lo + hi for m, (lo, hi) in zip(spatial, pads, strict=True))
    if min(out, default=1) <= 0 or n == 0 or c == 0:
        return np.zeros((n, c, *spatial), dtype=gz.dtype)
    gzm = gz.swapaxes(0, 1).reshape(groups, o // groups, -1)  # (G, Og, NP)
    wm = w.reshape(groups, o // groups, -1)  # (G, Og, K)
    dcols = np.matmul(wm.transpose(0, 2, 1), gzm)  # (G, K, NP)
    dcols = dcols.reshape(c, *k, n, *out)
    acc = np.zeros((c, n, *padded), dtype=dcols.dtype)
    for taps in itertools.product(*(range(kk) for kk in k)):
        where = tuple(slice(t * dd, t * dd + ss * (m - 1) + 1, ss)
                      for t, dd, ss, m in zip(taps, d, s, out, strict=True))
        acc[(slice(None), slice(None), *where)] += dcols[(slice(None), *taps)]
    inner = tuple(slice(lo, lo + m) for m, (lo, _) in zip(spatial, pads, strict=True))
    return acc[(slice(None), slice(None), *inner)].swapaxes(0, 1)
