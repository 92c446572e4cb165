"""Pooling whose window size, stride and padding are inputs of the graph.

``pool_2d(x, ws=k, stride=s, pad=p)`` with a symbolic ``k``, ``s`` or ``p`` (Lasagne's
spatial pyramid pooling computes its windows from the input's shape) gives a
:class:`PoolParams` node: the :mod:`~theon.tensor.signal.pool` Op named by ``base``
(``'Pool'``, ``'MaxPoolGrad'``, ``'MaxPoolGradGrad'`` or ``'AveragePoolGrad'``) with
``ws``, ``stride`` and ``pad`` as three more inputs, integer vectors of ``ndim``
entries.  At run time it builds that Op from their values and runs it, so the results
are those of the constant Op; its gradients are the same family's, with the same
parameter inputs.  Once the parameters are constants of the graph (constant folding
of static lengths), the rewrite ``local_pool_params_constant`` puts the constant Op
in (which ``mode="JAX"`` needs: under ``jax.jit`` the windows must be known when
tracing).

>>> import numpy as np
>>> import theon, theon.tensor as tt
>>> from theon.tensor.signal.pool import pool_2d
>>> x, k = tt.dmatrix("x"), tt.lscalar("k")
>>> f = theon.function([x, k], pool_2d(x, ws=(k, k), ignore_border=True))
>>> f(np.arange(16.0).reshape(4, 4), 2).tolist()
[[5.0, 7.0], [13.0, 15.0]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Variable
from theon.graph.fg import describe
from theon.graph.null_type import disconnected_type
from theon.graph.op import Op
from theon.link.registry import register_linker_backend as _register_linker_backend
from theon.rewriting.db import register_rewrite_module as _register_rewrite_module
from theon.tensor import math as tm
from theon.tensor.basic import as_tensor_variable, cast, switch
from theon.tensor.signal.pool import (
    MODES,
    AveragePoolGrad,
    MaxPoolGrad,
    MaxPoolGradGrad,
    Pool,
    _PoolBase,
)
from theon.tensor.type import TensorType

__all__ = ["PoolParams", "param_vector", "symbolic_out_len"]

#: The constant-parameter Op each ``base`` names, and how many tensor inputs it takes.
BASES: dict[str, tuple[type[_PoolBase], int]] = {
    "Pool": (Pool, 1),
    "MaxPoolGrad": (MaxPoolGrad, 3),
    "MaxPoolGradGrad": (MaxPoolGradGrad, 3),
    "AveragePoolGrad": (AveragePoolGrad, 2),
}


def param_vector(value: Any, nd: int, what: str, fn: str) -> Variable:
    """``value`` (one int or ``nd`` of them, symbolic or not) as an int64 vector."""
    if isinstance(value, Variable) and getattr(value.type, "ndim", 0) == 1:
        v = as_tensor_variable(value)
    else:
        items = value if isinstance(value, list | tuple | np.ndarray) else (value,) * nd
        v = as_tensor_variable([as_tensor_variable(i) for i in items]) if any(
            isinstance(i, Variable) for i in items) else as_tensor_variable(list(items))
    if v.type.ndim != 1 or v.type.dtype[:3] not in ("int", "uin"):
        raise TypeError(f"{fn}: {what} must be {nd} integers, got {describe(v)}")
    if v.type.shape[0] not in (None, nd):
        raise ValueError(f"{fn}: {what} must have {nd} entries, got {describe(v)}")
    return cast(v, "int64")  # (a shared int64 vector is itself)


def symbolic_out_len(n: Any, ws: Any, st: Any, pad: Any, ignore_border: bool) -> Any:
    """The number of windows along a dimension, as a graph (``pool._out_len`` for
    symbolic window, stride and padding)."""
    if ignore_border:
        return tm.maximum((n + 2 * pad - ws) // st + 1, 0)
    return switch(tm.ge(st, ws), (n - 1) // st + 1,
                  tm.maximum((n - 1 - ws + st) // st, 0) + 1)


class PoolParams(Op):
    """A pooling Op (``base``) taking ``ws``, ``stride`` and ``pad`` as its last three
    inputs (int64 vectors of ``ndim`` entries)."""

    __props__ = ("base", "ignore_border", "mode", "ndim")

    def __init__(self, base: str, ignore_border: bool, mode: str, ndim: int) -> None:
        if base not in BASES:
            raise ValueError(f"PoolParams: base must be one of {tuple(BASES)}, got {base!r}")
        if mode == "average":
            mode = "average_inc_pad"
        if mode not in MODES:
            raise ValueError(f"PoolParams: mode must be one of {MODES}, got {mode!r}")
        if ndim not in (1, 2, 3):
            raise ValueError(f"PoolParams: ndim must be 1, 2 or 3, got {ndim!r}")
        self.base, self.ignore_border, self.mode, self.ndim = base, bool(ignore_border), mode, ndim

    def __str__(self) -> str:
        return f"PoolParams{{{self.base}, ignore_border={self.ignore_border}, mode={self.mode!r}}}"

    @property
    def n_tensors(self) -> int:
        return BASES[self.base][1]

    def constant_op(self, ws: Any, stride: Any, pad: Any) -> _PoolBase:
        """The ``base`` Op with these parameter values (its checks raise on bad ones)."""
        cls = BASES[self.base][0]
        return cls(tuple(int(v) for v in np.asarray(ws).reshape(-1)),
                   tuple(int(v) for v in np.asarray(stride).reshape(-1)),
                   tuple(int(v) for v in np.asarray(pad).reshape(-1)),
                   self.ignore_border, self.mode, self.ndim)

    def make_node(self, *inputs: Any) -> Apply:
        k = self.n_tensors
        if len(inputs) != k + 3:
            raise TypeError(f"{self}: takes {k} tensors and ws, stride, pad; got "
                            f"{len(inputs)} inputs")
        tensors = [as_tensor_variable(v) for v in inputs[:k]]
        for t in tensors:
            if t.type.ndim < self.ndim:
                raise TypeError(f"{self}: the input needs at least {self.ndim} dimensions, "
                                f"got {describe(t)}")
        params = [param_vector(v, self.ndim, what, str(self))
                  for v, what in zip(inputs[k:], ("ws", "stride", "pad"), strict=True)]
        x = tensors[0]
        if self.base == "Pool":
            shape = x.type.shape[: x.type.ndim - self.ndim] + (None,) * self.ndim
            out = TensorType(x.type.dtype, shape=shape)()
        elif self.base == "MaxPoolGradGrad":
            out = tensors[1].type()
        else:
            out = TensorType(tensors[-1].type.dtype, shape=x.type.shape)()
        return Apply(self, [*tensors, *params], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        k = self.n_tensors
        op = self.constant_op(*inputs[k:])
        op.perform(node, inputs[:k], output_storage)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Any]]) -> list[Any]:
        if self.base == "MaxPoolGradGrad":
            return [tuple(input_shapes[1])]
        if self.base != "Pool":
            return [tuple(input_shapes[0])]
        shape = input_shapes[0]
        ws, st, pad = node.inputs[1:4]
        lead = tuple(shape[: len(shape) - self.ndim])
        spatial = shape[len(shape) - self.ndim:]
        return [lead + tuple(
            symbolic_out_len(n, ws[i], st[i], pad[i], self.ignore_border)  # type: ignore[index]
            for i, n in enumerate(spatial))]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        k = self.n_tensors
        first = {"Pool": [True], "MaxPoolGrad": [False, False, True],
                 "MaxPoolGradGrad": [False, False, True],
                 "AveragePoolGrad": [False, True]}[self.base]
        assert len(first) == k
        return [[c] for c in first] + [[False]] * 3

    def _sibling(self, base: str) -> PoolParams:
        return PoolParams(base, self.ignore_border, self.mode, self.ndim)

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list[Any]:
        k = self.n_tensors
        params = list(inputs[k:])
        (g,) = output_grads
        none = [disconnected_type() for _ in range(3)]
        if self.base == "Pool":
            if self.mode == "max":
                return [self._sibling("MaxPoolGrad")(inputs[0], outputs[0], g, *params), *none]
            return [self._sibling("AveragePoolGrad")(inputs[0], g, *params), *none]
        if self.base == "AveragePoolGrad":
            return [disconnected_type(), self._sibling("Pool")(g, *params), *none]
        other = "MaxPoolGradGrad" if self.base == "MaxPoolGrad" else "MaxPoolGrad"
        x, maxout = inputs[0], inputs[1]
        return [disconnected_type(), disconnected_type(),
                self._sibling(other)(x, maxout, g, *params), *none]


# the rewrite that puts the constant Op in once the parameters are constants
_register_rewrite_module("theon.tensor.rewriting.pool")
# the JAX rule (the constant parameters of a traced graph)
_register_linker_backend("jax", "theon.backends.jax.nnet")
