"""``StepDotSum``: ``sum_t A[t].T @ B[t]``, the product a pushed-out accumulator becomes.

:func:`~theon.scan.pushout.scan_pushout_acc` turns an accumulator
``acc_t = acc_{t-1} + dot(a_t.T, b_t)`` into one product over the steps:
with ``A`` of shape ``(n, r, k)`` and ``B`` of shape ``(n, r, m)``,

    sum_t A[t].T @ B[t]  =  A'.T @ B'      (A' = A as (n r, k), B' = B as (n r, m)),

the rows of all steps stacked: a matrix product whose inner length is ``n r``.
It is an :class:`~theon.tensor.blas.Einsum` ``"trk,trm->km"`` (its gradient,
shape and backend rules are Einsum's); only its ``perform`` differs.  NumPy's
``einsum`` runs it in its own loops, and ``sum(matmul(A.T, B), 0)`` makes ``n``
small products and an ``(n, k, m)`` temporary.  ``perform`` instead runs the
flat product in chunks of whole steps, each one BLAS call accumulated into the
result: a chunk has at most :data:`CHUNK_MACS` multiply-adds, small enough for
OpenBLAS to run it on the calling thread (a larger product starts its worker
threads, which stall badly when another process holds the other cores) and
large enough to run at the BLAS's full speed.  A chunk whose steps cannot be
flattened without a copy (a reversed view, the usual case in a backward loop)
is copied, one chunk at a time, so the copy stays in cache.

>>> import numpy as np, theon.tensor as tt
>>> A, B = tt.dtensor3("A"), tt.dtensor3("B")
>>> a, b = np.arange(12.0).reshape(3, 2, 2), np.ones((3, 2, 1))
>>> step_dot_sum(A, B).eval({A: a, B: b}).tolist()
[[30.0], [36.0]]
>>> sum(x.T @ y for x, y in zip(a, b)).tolist()
[[30.0], [36.0]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply
from theon.tensor.blas import Einsum
from theon.tensor.type import tensor_type
from theon.tensor.variable import TensorVariable

__all__ = ["CHUNK_MACS", "StepDotSum", "chunked_step_dot_sum", "step_dot_sum"]

#: Multiply-adds per BLAS call of :class:`StepDotSum` (measured on 2 AVX2 cores with
#: NumPy's OpenBLAS: 64 x 64 outputs over 128 rows, 2**19, ran on one thread and at
#: full speed; 256 rows started the worker threads and took 2-3 times longer).
CHUNK_MACS = 1 << 19


def chunked_step_dot_sum(a: Any, b: Any, dtype: Any, macs: int | None = None) -> Any:
    """``sum_t a[t].T @ b[t]`` for arrays ``a`` (n, r, k), ``b`` (n, r, m), as ``dtype``,
    by BLAS products over chunks of whole steps of at most ``macs`` multiply-adds.

    >>> a, b = np.ones((5, 2, 3)), np.ones((5, 2, 4))
    >>> chunked_step_dot_sum(a[::-1], b, np.float64, macs=1).tolist()[0]
    [10.0, 10.0, 10.0, 10.0]
    """
    n, r, k = a.shape
    m = b.shape[2]
    if n == 0 or r == 0:
        return np.zeros((k, m), dtype=dtype)
    if a.strides[0] < 0 and b.strides[0] < 0:
        a, b = a[::-1], b[::-1]  # the same pairs of steps, both read forwards
    per = max(1, (CHUNK_MACS if macs is None else macs) // max(1, r * k * m))
    acc: Any = None
    for s in range(0, n, per):
        e = min(n, s + per)
        d = np.dot(a[s:e].reshape(-1, k).T, b[s:e].reshape(-1, m))
        if acc is None:
            acc = d if d.dtype == dtype else d.astype(dtype)
        else:
            acc += d
    return acc


class StepDotSum(Einsum):
    """``Einsum("trk,trm->km")`` computed by chunked BLAS products (module docstring)."""

    SUBSCRIPTS = "trk,trm->km"

    def __init__(self, subscripts: str = SUBSCRIPTS) -> None:
        if subscripts != self.SUBSCRIPTS:
            raise ValueError(f"StepDotSum computes {self.SUBSCRIPTS!r}, not {subscripts!r}")
        super().__init__(subscripts)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        dtype = tensor_type(node.outputs[0]).numpy_dtype
        output_storage[0][0] = chunked_step_dot_sum(inputs[0], inputs[1], dtype)

    def __str__(self) -> str:
        return "StepDotSum"


_step_dot_sum = StepDotSum()


def step_dot_sum(a: Any, b: Any) -> TensorVariable:
    """``sum_t a[t].T @ b[t]`` for ``a`` (n, r, k) and ``b`` (n, r, m): a (k, m) matrix."""
    return _step_dot_sum(a, b)
