"""The core tensor Ops: ``DimShuffle``, ``Elemwise`` (a lifted scalar op) and ``CAReduce``.

Broadcasting is static, as in Theano/PyTensor: a dimension broadcasts only when
its static length is 1 (``broadcastable``).  Inputs of fewer dimensions get
leading length-1 axes through ``DimShuffle``, as seed 002 shows for ``x * 2.``.

>>> import theon.tensor as tt
>>> x = tt.dmatrix("x")
>>> y = x * 2.0
>>> y.owner.op.name
'Elemwise{mul,no_inplace}'
>>> str(y.owner.inputs[1].owner.op), str(y.owner.inputs[1].owner.inputs[0])
('DimShuffle{x,x}', 'TensorConstant{2.0}')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from theon.graph.basic import Apply, Variable
from theon.graph.fg import describe
from theon.graph.null_type import DisconnectedType, NullType, disconnected_type
from theon.scalar.type import get_scalar_type
from theon.tensor.arguments import as_int_tuple, int_value, reduction_axes
from theon.tensor.basic import (
    TensorOp,
    _floatx,
    as_tensor_variable,
    constant,
    is_weak_scalar,
    weak_constant_dtype,
)
from theon.tensor.elemwise_grad import constant_zero_factor, grad_template, plain_elemwise
from theon.tensor.type import TensorType, discrete_dtypes, tensor_type
from theon.tensor.ufunc_safety import out_ok
from theon.tensor.variable import TensorConstant, TensorVariable

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["DimShuffle", "Elemwise", "FrozenDict", "fill_like", "plain_elemwise", "sum_to_type"]


class FrozenDict(dict[Any, Any]):
    """An immutable, hashable dict (for Op props such as ``inplace_pattern``).

    >>> d = FrozenDict({0: 1})
    >>> hash(d) == hash(FrozenDict({0: 1}))
    True
    """

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted(self.items())))

    def _immutable(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("FrozenDict is immutable")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _immutable  # type: ignore[assignment]

    def __reduce__(self) -> Any:
        return (FrozenDict, (dict(self),))


_INT_CONSTS: dict[int, TensorConstant] = {}


def int_constant(k: int) -> TensorConstant:
    """A cached int64 0-d constant (for shapes).

    >>> int_constant(3).data
    array(3)
    """
    c = _INT_CONSTS.get(k)
    if c is None:
        c = constant(np.int64(k))
        if len(_INT_CONSTS) < 256:
            _INT_CONSTS[k] = c
    return c


# DimShuffle --------------------------------------------------------------------------
class DimShuffle(TensorOp):
    """Reorder dimensions, insert broadcastable ones (``'x'``) and drop length-1 ones.

    Parameters
    ----------
    input_ndim
        Number of dimensions of the input.
    new_order
        For each output dimension, the input dimension it comes from, or ``'x'``
        for a new length-1 dimension.  Input dimensions left out are dropped and
        must have static length 1.

    The output is a view of the input.

    >>> import theon.tensor as tt
    >>> v = tt.dvector("v")
    >>> DimShuffle(1, ("x", 0))(v).type
    TensorType(float64, shape=(1, None))
    """

    __props__ = ("input_ndim", "new_order")
    view_map = {0: [0]}
    #: PyTensor's C-backend attribute, read by classes written for it (PyMC's
    #: MeasurableDimShuffle resolves it with :meth:`get_path` when it is defined); theon has
    #: no C code, so it names no file
    c_func_file: str = ""

    @classmethod
    def get_path(cls, f: Path) -> Path:
        """``f`` made absolute relative to this class's source directory (PyTensor's
        C-backend helper; see :attr:`c_func_file`)."""
        import inspect
        from pathlib import Path

        return f if f.is_absolute() else (Path(inspect.getfile(cls)).parent / f).resolve()

    def __init__(self, input_ndim: int, new_order: Sequence[int | str]) -> None:
        order: list[int | str] = []
        for o in new_order:
            if isinstance(o, str) and o == "x":
                order.append("x")
                continue
            k = int_value(o)
            if k is None:
                raise TypeError(f"DimShuffle entries are ints or 'x', got {o!r} in "
                                f"{tuple(new_order)!r}")
            if not 0 <= k < input_ndim:
                raise ValueError(
                    f"DimShuffle: entry {k} of {tuple(new_order)} is not an input dimension "
                    f"(the input has {input_ndim})"
                )
            order.append(k)
        kept = [o for o in order if o != "x"]
        if len(set(kept)) != len(kept):
            raise ValueError(f"DimShuffle: {tuple(new_order)} uses an input dimension twice")
        self.input_ndim = int(input_ndim)
        self.new_order = tuple(order)
        self.drop = tuple(i for i in range(input_ndim) if i not in kept)
        self.shuffle = tuple(kept)
        self.augment = tuple(k for k, o in enumerate(order) if o == "x")
        # perform: squeeze the dropped axes, transpose what is left, index in new axes
        rank = {d: r for r, d in enumerate(sorted(kept))}
        perm = tuple(rank[d] for d in kept)
        self._perm = None if perm == tuple(range(len(perm))) else perm
        self._expand = (
            tuple(None if o == "x" else slice(None) for o in order) if self.augment else None
        )
        self.name = "DimShuffle{" + ",".join(str(o) for o in order) + "}"

    @property
    def is_transpose_only(self) -> bool:
        """Whether it only permutes dimensions."""
        return not self.drop and not self.augment

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        t = x.type
        if t.ndim != self.input_ndim:
            raise TypeError(
                f"{self} expects a {self.input_ndim}-d input, got {describe(x)} with "
                f"{t.ndim} dimensions"
            )
        for d in self.drop:
            if t.shape[d] != 1:
                raise ValueError(
                    f"{self} drops dimension {d} of {describe(x)}, but its static length is "
                    f"{t.shape[d]}, not 1"
                )
        shape = tuple(1 if o == "x" else t.shape[o] for o in self.new_order)
        return Apply(self, [x], [TensorType(t.dtype, shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        x = inputs[0]
        if self.drop:
            x = x.squeeze(axis=self.drop)
        if self._perm is not None:
            x = x.transpose(self._perm)
        if self._expand is not None:
            x = x[self._expand]
        output_storage[0][0] = x

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Any]]) -> list[Any]:
        (ish,) = input_shapes
        one = int_constant(1)
        return [tuple(ish[o] if isinstance(o, int) else one for o in self.new_order)]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        (x,) = inputs
        if tensor_type(x).dtype in discrete_dtypes:
            return [disconnected_type()]
        gz = as_tensor_variable(output_grads[0])
        loose = [a for a in self.augment if gz.type.shape[a] != 1]
        if loose:
            from theon.tensor.math import sum as _sum

            gz = _sum(gz, axis=loose, keepdims=True)
        order: list[int | str] = ["x"] * self.input_ndim
        for pos, o in enumerate(self.new_order):
            if isinstance(o, int):  # (not "x")
                order[o] = pos
        g = DimShuffle(gz.type.ndim, order)(gz)
        return [_cast_like(g, x)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0])]


def _cast_like(g: Variable, x: Variable) -> Variable:
    """``g`` cast to ``x``'s dtype when they differ."""
    if tensor_type(g).dtype != tensor_type(x).dtype:
        from theon.tensor.basic import cast

        g_complex = tensor_type(g).dtype.startswith("complex")
        if g_complex and not tensor_type(x).dtype.startswith("complex"):
            from theon.tensor.math import real

            g = real(g)
        return cast(g, tensor_type(x).dtype)
    return g


def _expand_to(x: Variable, ndim: int) -> Variable:
    """``x`` with leading broadcastable dimensions up to ``ndim``."""
    n = tensor_type(x).ndim
    if n == ndim:
        return x
    op = _EXPAND_OPS.get((n, ndim))
    if op is None:
        op = _EXPAND_OPS[(n, ndim)] = DimShuffle(n, ("x",) * (ndim - n) + tuple(range(n)))
    return op(x)


_EXPAND_OPS: dict[tuple[int, int], DimShuffle] = {}


def fill_like(model: Variable, value: Any) -> TensorVariable:
    """``value`` broadcast to the shape of ``model`` (keeping ``value``'s dtype).

    >>> import theon.tensor as tt
    >>> fill_like(tt.dmatrix("m"), tt.constant(1.0)).type
    TensorType(float64, shape=(None, None))
    """
    from theon.tensor.math import second

    return second(model, value)


def sum_to_type(g: Variable, x: Variable) -> Variable:
    """Reduce a broadcast gradient ``g`` to the shape and dtype of ``x`` (unbroadcast).

    Sums over the dimensions where ``x`` has static length 1 and ``g`` may not,
    and fills ``g`` out when it is smaller than ``x``.

    >>> import theon.tensor as tt
    >>> g, b = tt.dmatrix("g"), tt.drow("b")
    >>> sum_to_type(g, b).type
    TensorType(float64, shape=(1, None))
    """
    if g.type is x.type:  # the common case: nothing to reduce, fill or cast
        return g
    nd = tensor_type(x).ndim
    gt = tensor_type(g)
    if gt.ndim > nd:
        from theon.tensor.math import sum as _sum

        lead = gt.ndim - nd
        g = _sum(g, axis=tuple(range(lead)))
        gt = tensor_type(g)
    axes = [d for d in range(gt.ndim) if tensor_type(x).shape[d] == 1 and gt.shape[d] != 1]
    if axes:
        from theon.tensor.math import sum as _sum

        g = _sum(g, axis=axes, keepdims=True)
        gt = tensor_type(g)
    if gt.ndim < nd or any(
        xs != 1 and gs == 1
        for xs, gs in zip(tensor_type(x).shape, tensor_type(_expand_to(g, nd)).shape)
    ):
        g = fill_like(x, g)
    return _cast_like(g, x)


# Elemwise ------------------------------------------------------------------------------
_scalar_type = get_scalar_type


def _weak_constant(x: Any, dtype: str) -> TensorConstant:
    """``constant(x, dtype=dtype)`` for a Python number, without the general checks."""
    try:
        data = np.array(x, dtype=dtype)
    except (OverflowError, TypeError, ValueError):
        return constant(x, dtype=dtype)  # the general path, for its errors
    data.setflags(write=False)
    return TensorConstant(TensorType(data.dtype, ()), data)


# entries kept per Elemwise in its cache of output types (a bound on memory)
_OUT_TYPES_LIMIT = 1024


class Elemwise(TensorOp):
    """A scalar op applied elementwise to arrays, with broadcasting.

    Parameters
    ----------
    scalar_op
        The :class:`theon.scalar.ScalarOp` to lift.
    inplace_pattern
        ``{output index: input index}``: outputs computed into (overwriting) an
        input's buffer.  That input must have the output's type.

    Python numbers among the inputs become constants with NumPy 2's weak-scalar
    dtype rules; inputs of fewer dimensions are DimShuffle'd to the largest rank.

    >>> from theon import scalar as ts
    >>> import theon.tensor as tt
    >>> add = Elemwise(ts.add)
    >>> add(tt.fvector("a"), 1.5).type
    TensorType(float32, shape=(None,))
    """

    __props__ = ("scalar_op", "inplace_pattern")

    def __init__(
        self, scalar_op: Any, inplace_pattern: Mapping[int, int] | None = None,
        name: str | None = None,
    ) -> None:
        self.scalar_op = scalar_op
        pattern = FrozenDict({int(k): int(v) for k, v in (inplace_pattern or {}).items()})
        self.inplace_pattern = pattern
        self.destroy_map = {o: [i] for o, i in pattern.items()}
        if name is None:
            if not pattern:
                name = f"Elemwise{{{scalar_op},no_inplace}}"
            elif dict(pattern) == {0: 0}:
                name = f"Elemwise{{{scalar_op},inplace}}"
            else:
                name = f"Elemwise{{{scalar_op}}}{sorted(pattern.items())}"
        self.name = name
        self.nin = getattr(scalar_op, "nin", -1)
        self.nout = getattr(scalar_op, "nout", 1)
        exact = getattr(scalar_op, "ufunc_exact", True)
        # perform calls only an exact ufunc: not reading another one leaves SciPy's
        # (theon.scalar.table.scipy_ufunc) unloaded until the op computes
        ufunc = getattr(scalar_op, "ufunc", None) if exact else None
        self._ufunc: Any = ufunc  # a ufunc (NumPy's or SciPy's) or None; set when _direct
        self._ufunc_nin = getattr(ufunc, "nin", None) if isinstance(ufunc, np.ufunc) else None
        self._is_np_ufunc = isinstance(ufunc, np.ufunc) and exact
        # a plain ufunc of fixed arity: perform calls it directly
        self._direct = self._ufunc is not None and self.nin >= 0 and self._ufunc_nin == self.nin
        # output types per tuple of (same-rank) input types: make_node's result depends
        # only on them, and TensorTypes are interned, so lookups are cheap
        self._out_types: dict[tuple[TensorType, ...], tuple[TensorType, ...]] = {}

    def __reduce__(self) -> Any:
        return (Elemwise, (self.scalar_op, dict(self.inplace_pattern)))

    # building -----------------------------------------------------------------------
    def make_node(self, *inputs: Any) -> Apply:
        key: list[Any] = []
        for x in inputs:
            if not isinstance(x, Variable) or type(x.type) is not TensorType:
                break
            key.append(x.type)
        else:
            out_types = self._out_types.get(tuple(key))
            if out_types is not None:
                return Apply(self, inputs, [t() for t in out_types])
        return self._make_node_slow(inputs)

    def _make_node_slow(self, inputs: Sequence[Any]) -> Apply:
        """The general case of :meth:`make_node` (wraps, expands and checks its inputs)."""
        if self.nin >= 0 and len(inputs) != self.nin:
            raise TypeError(f"{self} takes {self.nin} inputs, got {len(inputs)}")
        if not inputs:
            raise TypeError(f"{self} needs at least one input")
        tens: list[Any] = []
        weak = False
        for i, x in enumerate(inputs):
            if is_weak_scalar(x):
                tens.append(None)
                weak = True
            else:
                try:
                    tens.append(as_tensor_variable(x))
                except TypeError as e:
                    raise TypeError(self._bad_input(inputs, i, e)) from None
        if weak:
            self._wrap_weak(inputs, tens)
        ndims = [t.type.ndim for t in tens]
        nd = max(ndims)
        if ndims.count(nd) != len(ndims):
            tens = [_expand_to(t, nd) for t in tens]
        key = tuple([t.type for t in tens])
        out_types = self._out_types.get(key)
        if out_types is None:
            out_types = self._output_types(tens, nd)
            if len(self._out_types) < _OUT_TYPES_LIMIT and all(
                type(t) is TensorType for t in key
            ):
                self._out_types[key] = out_types
        return Apply(self, tens, [t() for t in out_types])

    def _bad_input(self, inputs: Sequence[Any], i: int, e: Exception) -> str:
        """The message for input ``i``, which is not a tensor, naming the other inputs."""
        others = [describe(x) if isinstance(x, Variable) else repr(x)
                  for k, x in enumerate(inputs) if k != i]
        with_ = f" (with {', '.join(others)})" if others else ""
        return (f"{self}: input {i}, {type(inputs[i]).__name__} {inputs[i]!r}, is not a "
                f"tensor, a number or an array{with_}: {e}")

    def _output_types(self, tens: Sequence[Any], nd: int) -> tuple[TensorType, ...]:
        """Output types for same-rank tensor inputs ``tens`` (raises when undefined)."""
        out_shape = self._broadcast_shape(tens, nd)
        try:
            out_stypes = self.scalar_op.output_types(
                *[_scalar_type(t.type.dtype) for t in tens]
            )
        except TypeError as e:
            ins = ", ".join(describe(t) for t in tens)
            raise TypeError(f"{self} cannot be applied to {ins}: {e}") from None
        for o, i in self.inplace_pattern.items():
            it = tens[i].type
            if it.dtype != out_stypes[o].dtype or any(
                s == 1 and so != 1 for s, so in zip(it.shape, out_shape)
            ):
                raise TypeError(
                    f"{self}: output {o} cannot overwrite input {i} {describe(tens[i])}: the "
                    f"output has dtype {out_stypes[o].dtype} and shape {out_shape}"
                )
        return tuple(TensorType(st.dtype, out_shape) for st in out_stypes)

    def _wrap_weak(self, inputs: Sequence[Any], tens: list[Any]) -> None:
        """Turn the Python numbers among ``inputs`` into constants (NEP 50 dtypes)."""
        sop = self.scalar_op
        no_prom = getattr(sop, "no_promote_inputs", ())
        overflow_ok = bool(getattr(sop, "weak_overflow_ok", False))
        strong = [t.type.dtype for i, t in enumerate(tens) if t is not None and i not in no_prom]
        for i, x in enumerate(inputs):
            if tens[i] is not None:
                continue
            ctx = [] if i in no_prom else strong
            try:
                dt = weak_constant_dtype(x, ctx, overflow_ok)
            except OverflowError as e:
                loop_dt = self._loop_dtype(inputs, tens, i)
                if loop_dt is None:
                    raise OverflowError(f"{self}: {e}") from None
                dt = loop_dt
            if not ctx and type(x) is float:
                dt = _floatx()
            tens[i] = _weak_constant(x, dt)

    def _loop_dtype(self, inputs: Sequence[Any], tens: list[Any], i: int) -> str | None:
        """The dtype NumPy's ufunc loop gives weak input ``i`` when it does not fit the
        promoted integer dtype (``int8_array / 300`` computes in float64); None if it must fail."""
        ufunc = getattr(self.scalar_op, "ufunc", None)
        if not isinstance(ufunc, np.ufunc) or ufunc.nin != len(inputs):
            return None
        spec: list[Any] = [
            type(x) if t is None else np.dtype(t.type.dtype) for x, t in zip(inputs, tens)
        ]
        try:
            loop = ufunc.resolve_dtypes(tuple(spec) + (None,) * ufunc.nout)
        except (TypeError, ValueError):
            return None
        dt = loop[i]
        if dt.kind in "iu":
            return None
        return str(dt)

    def _broadcast_shape(self, tens: Sequence[Any], nd: int) -> tuple[int | None, ...]:
        """Static output shape; raises ``ValueError`` naming both shapes when incompatible."""
        shapes: list[tuple[int | None, ...]] = [t.type.shape for t in tens]
        if len(shapes) == 1 or all(s == shapes[0] for s in shapes):
            return shapes[0]
        out: list[int | None] = []
        for d in range(nd):
            known: int | None = None
            known_i = -1
            any_none = False
            for i, s in enumerate(shapes):
                v = s[d]
                if v is None:
                    any_none = True
                elif v != 1:
                    if known is None:
                        known, known_i = v, i
                    elif v != known:
                        raise ValueError(
                            f"{self}: cannot broadcast input {known_i} {describe(tens[known_i])} "
                            f"of static shape {shapes[known_i]} with input {i} "
                            f"{describe(tens[i])} of static shape {s} (dimension {d}: "
                            f"{known} vs {v})"
                        )
            out.append(known if known is not None else (None if any_none else 1))
        return tuple(out)

    # computing -------------------------------------------------------------------------
    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        # No np.errstate here: it costs microseconds per call.  NumPy's inf/nan results
        # are the semantics; linkers may silence floating-point warnings once per call.
        pattern = self.inplace_pattern
        if pattern and self._is_np_ufunc and len(inputs) == self._ufunc_nin and all(
            out_ok(self._ufunc, inputs[i]) for i in pattern.values()
        ):
            outs = tuple(inputs[pattern[o]] if o in pattern else None for o in range(self.nout))
            try:
                res = self._ufunc(*inputs, out=outs)
            except ValueError:
                self.refuse_runtime_broadcast(node, inputs)
                raise
        elif self._direct:
            # (also an inplace ufunc not proven safe on a strided buffer: the result is
            # computed out of place and copied into the buffer below)
            res = self._ufunc(*inputs)
        elif self._ufunc is not None and len(inputs) == self._ufunc_nin:
            res = self._ufunc(*inputs)
        else:
            res = self.scalar_op.impl(*inputs)
        if self.nout == 1:
            r = res
            dt = tensor_type(node.outputs[0]).numpy_dtype
            if type(r) is not np.ndarray or r.dtype != dt:
                r = np.asarray(r, dtype=dt)
            if pattern:
                buf = inputs[pattern[0]]
                if r is not buf:
                    if r.shape != buf.shape:
                        self.refuse_runtime_broadcast(node, inputs)
                    buf[...] = r
                    r = buf
            if len(inputs) > 1:
                shp = r.shape
                for a in inputs:
                    if a.shape != shp:
                        r = self._broadcast_result(node, inputs, r)
                        break
            output_storage[0][0] = r
            return
        for o, (cell, r, var) in enumerate(zip(output_storage, res, node.outputs)):
            dt = tensor_type(var).numpy_dtype
            if type(r) is not np.ndarray or r.dtype != dt:
                r = np.asarray(r, dtype=dt)
            if o in pattern:
                buf = inputs[pattern[o]]
                if r is not buf:
                    if r.shape != buf.shape:
                        self.refuse_runtime_broadcast(node, inputs)
                    buf[...] = r
                    r = buf
            shp = r.shape
            for a in inputs:
                if a.shape != shp:
                    r = self._broadcast_result(node, inputs, r)
                    break
            cell[0] = r

    def _broadcast_result(self, node: Apply, inputs: Sequence[Any], r: np.ndarray) -> np.ndarray:
        """Check the runtime broadcast, and give ``r`` the full shape if the op ignored an input."""
        full = np.broadcast_shapes(*(a.shape for a in inputs))
        self._check_runtime_broadcast(node, inputs, full)
        if r.shape != full:  # e.g. a Composite whose outputs do not read every input
            r = np.broadcast_to(r, full).copy()
        return r

    def refuse_runtime_broadcast(self, node: Apply, inputs: Sequence[Any]) -> None:
        """Raise :meth:`_check_runtime_broadcast`'s error if ``inputs`` broadcast where
        ``node``'s types do not declare it; return if they don't (then another error stands).

        For results written into an input's buffer: NumPy refuses one whose shape is not
        the broadcast shape before theon's check after the call could name the input.
        """
        try:
            full = np.broadcast_shapes(*(np.shape(a) for a in inputs))
        except ValueError:
            return  # no broadcast at all: NumPy's error names the shapes
        try:
            self._check_runtime_broadcast(node, [np.asarray(a) for a in inputs], full)
        except ValueError as err:
            raise err from None

    def _check_runtime_broadcast(
        self, node: Apply, inputs: Sequence[Any], out_shape: tuple[int, ...]
    ) -> None:
        """Refuse broadcasting along a dimension not declared broadcastable (static shape)."""
        for k, (v, a) in enumerate(zip(node.inputs, inputs)):
            if a.shape == out_shape:
                continue
            for d, (s, r, o) in enumerate(zip(tensor_type(v).shape, a.shape, out_shape)):
                if r != o and s != 1:
                    raise ValueError(
                        f"{self}: input {k} {describe(v)} has shape {a.shape} at runtime, which "
                        f"broadcasts along dimension {d} to {out_shape}, but its type does not "
                        f"declare that dimension broadcastable.  A function's arguments may "
                        f"broadcast so (it compiles a variant for their lengths of 1); a value "
                        f"computed in the graph, or a shared variable, must say it: give it "
                        f"static length 1 (e.g. shape=(1, ...), specify_broadcastable or "
                        f"x.dimshuffle(...)) to broadcast"
                    )

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Any]]) -> list[Any]:
        out_t = tensor_type(node.outputs[0])
        shape: list[Any] = []
        for d in range(out_t.ndim):
            pick = None
            for v, sh in zip(node.inputs, input_shapes):
                if tensor_type(v).shape[d] != 1:
                    pick = sh[d]
                    break
            shape.append(int_constant(1) if pick is None else pick)
        return [tuple(shape)] * len(node.outputs)

    # derivatives ------------------------------------------------------------------------
    def _partials(
        self,
        inputs: Sequence[Variable],
        outputs: Sequence[Variable],
        output_grads: Sequence[Variable],
    ) -> list[Any]:
        """The scalar op's L_op translated to Elemwise graphs (before unbroadcasting)."""
        t_og: list[Variable] = []
        for o, g in zip(outputs, output_grads):
            if g is None or isinstance(g.type, (DisconnectedType, NullType)):
                g = fill_like(o, constant(0, dtype=tensor_type(o).dtype))
            else:
                g = as_tensor_variable(g)
            t_og.append(g)
        template = grad_template(
            self.scalar_op,
            tuple(tensor_type(x).dtype for x in inputs),
            tuple(tensor_type(g).dtype for g in t_og),
        )
        return template.instantiate([*inputs, *outputs, *t_og])

    def L_op(
        self,
        inputs: Sequence[Variable],
        outputs: Sequence[Variable],
        output_grads: Sequence[Variable],
    ) -> list[Any]:
        from theon.tensor.broadcast_grad import broadcast_grad, may_broadcast

        partials = self._partials(inputs, outputs, output_grads)
        out_shape = tensor_type(outputs[0]).shape
        zero_factor = constant_zero_factor(self.scalar_op, inputs)
        res: list[Any] = []
        for i, (x, g) in enumerate(zip(inputs, partials)):
            if g is None:
                res.append(disconnected_type())
            elif zero_factor is not None and zero_factor != i and g is not None \
                    and tensor_type(x).dtype not in discrete_dtypes:
                # d(c * x)/dx = c, identically 0: no term, whatever the incoming gradient
                # (an infinite one would otherwise make 0 * inf = nan; PyTensor's
                # canonicalizer folds the product to 0 there too)
                res.append(fill_like(x, constant(0, dtype=tensor_type(g).dtype)))
            elif isinstance(g.type, (DisconnectedType, NullType)):
                res.append(g)
            elif tensor_type(x).dtype in discrete_dtypes:
                res.append(disconnected_type())
            elif may_broadcast(x, inputs, len(out_shape)):
                res.append(broadcast_grad(g, x))  # decided for the compiled types
            else:
                res.append(sum_to_type(g, x))
        return res

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        return self.L_op(inputs, self(*inputs, return_list=True), output_grads)

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        outs = self(*inputs, return_list=True)
        results: list[Any] = []
        for j, out in enumerate(outs):
            ograds: list[Any] = [
                fill_like(o, constant(1 if k == j else 0, dtype=tensor_type(o).dtype))
                for k, o in enumerate(outs)
            ]
            partials = self._partials(inputs, outs, ograds)
            from theon.scalar.basic import jvp_from_partials
            from theon.tensor.math import add, mul

            total = jvp_from_partials(partials, eval_points, mul, add)
            if total is not None and not isinstance(total.type, NullType):
                total = _cast_like(total, out)
                if tensor_type(total).shape != tensor_type(out).shape:
                    total = fill_like(out, total)
            results.append(total)
        return results


# CAReduce -------------------------------------------------------------------------------
def _sum_dtype(dtype: str) -> str:
    """NumPy's default result dtype of ``sum``/``prod``: small ints widen to the platform int."""
    if dtype == "bool" or dtype in ("int8", "int16", "int32"):
        return "int64"
    if dtype in ("uint8", "uint16", "uint32"):
        return "uint64"
    return dtype


def _restore_axes(out: Variable, ndim: int, axes: Sequence[int] | None) -> TensorVariable:
    """``out`` (reduced over ``axes`` of an ``ndim``-d input; None: all) with them back as 1s."""
    red = range(ndim) if axes is None else axes
    order: list[int | str] = []
    k = 0
    for d in range(ndim):
        if d in red:
            order.append("x")
        else:
            order.append(k)
            k += 1
    return DimShuffle(tensor_type(out).ndim, order)(out)


class CAReduce(TensorOp):
    """Reduce along ``axis`` with a commutative, associative binary scalar op.

    Parameters
    ----------
    scalar_op
        The binary scalar op (``add``, ``mul``, ``maximum``, ``minimum``, ``and_``,
        ``or_``, ...) whose ufunc's ``reduce`` does the work.
    axis
        Axes to reduce (non-negative after normalization); ``None`` for all.
    dtype
        Output (and accumulator) dtype; ``None`` gives NumPy's rule.

    >>> from theon import scalar as ts
    >>> import theon.tensor as tt
    >>> CAReduce(ts.maximum, axis=(1,))(tt.dmatrix("m")).type
    TensorType(float64, shape=(None,))
    """

    __props__: tuple[str, ...] = ("scalar_op", "axis", "dtype")
    #: the result over no elements (NumPy's ``initial=``); None: reduce as NumPy does
    #: without one (Max and Min make it a parameter)
    initial: float | None = None

    def __init__(self, scalar_op: Any, axis: Any = None, dtype: Any = None) -> None:
        self.scalar_op = scalar_op
        if axis is not None:
            axis = as_int_tuple(axis, f"{type(self).__name__}: axis")
        self.axis: tuple[int, ...] | None = axis
        self.dtype: str | None = None if dtype is None else np.dtype(dtype).name
        ufunc = getattr(scalar_op, "ufunc", None)
        if not isinstance(ufunc, np.ufunc):
            raise TypeError(f"CAReduce needs a scalar op with a NumPy ufunc, got {scalar_op}")
        self._reduce = ufunc.reduce

    def __reduce__(self) -> Any:
        return (type(self), self._init_args())

    def _init_args(self) -> tuple[Any, ...]:
        return (self.scalar_op, self.axis, self.dtype)

    def __str__(self) -> str:
        label = type(self).__name__
        if type(self) is CAReduce:
            label = f"CAReduce{{{self.scalar_op}"
            inner = "" if self.axis is None else f", axis={self.axis}"
        else:
            label += "{"
            inner = f"axis={self.axis}" if self.axis is not None else "axes=None"
        if self.dtype is not None:
            inner += f", dtype={self.dtype}"
        return f"{label}{inner}}}"

    def _with_axis(self, axis: tuple[int, ...] | None) -> CAReduce:
        args = list(self._init_args())
        args[1 if type(self) is CAReduce else 0] = axis
        return type(self)(*args)

    def out_dtype(self, in_dtype: str) -> str:
        """The output dtype for an input of ``in_dtype``."""
        if self.dtype is not None:
            return self.dtype
        return in_dtype

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        nd = x.type.ndim
        if self.axis is not None:
            norm = reduction_axes(self.axis, nd, f"{self}: axis", x)
            if norm != self.axis:
                return self._with_axis(norm).make_node(x)
        axes = range(nd) if self.axis is None else self.axis
        shape = tuple(s for d, s in enumerate(x.type.shape) if d not in axes)
        return Apply(self, [x], [TensorType(self.out_dtype(x.type.dtype), shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        dt = tensor_type(node.outputs[0]).numpy_dtype
        x = inputs[0]
        if self.initial is None:
            r = self._reduce(x, axis=self.axis, dtype=dt)
        else:
            r = self._reduce(x, axis=self.axis, dtype=dt, initial=self.initial)
        if type(r) is not np.ndarray or r.dtype != dt:
            r = np.asarray(r, dtype=dt)
        output_storage[0][0] = r

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Any]]) -> list[Any]:
        (ish,) = input_shapes
        axes = range(len(ish)) if self.axis is None else self.axis
        return [tuple(s for d, s in enumerate(ish) if d not in axes)]

    def _axes(self, ndim: int) -> tuple[int, ...]:
        return tuple(range(ndim)) if self.axis is None else self.axis

    def _restore_dims(self, gz: Variable, ndim: int) -> TensorVariable:
        """``gz`` with the reduced axes put back as broadcastable dimensions."""
        return _restore_axes(gz, ndim, self._axes(ndim))

    def L_op(
        self,
        inputs: Sequence[Variable],
        outputs: Sequence[Variable],
        output_grads: Sequence[Variable],
    ) -> list[Any]:
        from theon.graph.null_type import grad_not_implemented

        return [grad_not_implemented(self, 0, inputs[0], f"no gradient for {self}")]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        return self.L_op(inputs, [self(inputs[0])], output_grads)
