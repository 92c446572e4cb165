"""JAX rules for the tensor Ops of ``theon.tensor`` (and the gradient markers of
``theon.gradient.ops`` and the blas Ops of the rewrites).

Each rule gives a function of JAX arrays returning exactly what the Op's
``perform`` gives: values, shape and dtype (results are cast to the output
type's dtype where jax's promotion differs).

Shapes must be static under ``jax.jit``.  An Op taking a shape (``Alloc``,
``Reshape``, ``Eye``, ``ARange``, ...) reads it from its output type when the
type knows it, else from its shape input, which is concrete at trace time when
the graph computes it from its inputs' shapes (the linker evaluates shape
arithmetic with NumPy while tracing).  A shape that depends on a run-time value
(an argument, a ``Nonzero``) raises :class:`DynamicShapeError` naming the node.

Registered by ``theon.tensor`` for the ``"jax"`` linker; jax is imported when a
rule runs.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from theon.backends.jax.diagonal import eye_mask, is_diagonal_index
from theon.backends.jax.scalar import scalar_node_fn, sigmoid_of, softplus_of
from theon.graph.basic import Apply
from theon.link.jax.dispatch import (
    DynamicShapeError,
    jax_funcify,
    jax_scalar_funcify,
    set_jax_inputs,
)
from theon.tensor.advanced_subtensor import AdvancedIncSubtensor, AdvancedSubtensor
from theon.tensor.alloc_diag import AddDiag, AllocDiag
from theon.tensor.basic import ScalarFromTensor, TensorFromScalar
from theon.tensor.blas import Dot, Einsum, MatMul
from theon.tensor.broadcast_grad import BroadcastGrad
from theon.tensor.creation import Alloc, AllocEmpty, ARange, Eye, Linspace, SumToShape
from theon.tensor.elemwise import CAReduce, DimShuffle, Elemwise
from theon.tensor.extra_ops import CumOp, Nonzero, Repeat
from theon.tensor.joining import Join, Split, static_axis
from theon.tensor.math import Second
from theon.tensor.recurrence import LinearRecurrence
from theon.tensor.reduction import Argmax, _Logical, _MaxMin
from theon.tensor.reshaping import Reshape
from theon.tensor.shape import MakeVector, Shape, Shape_i, SpecifyShape, Unbroadcast
from theon.tensor.sort import ArgSort, PutAlongAxis, Sort, TakeAlongAxis
from theon.tensor.special import LogSoftmax, Softmax
from theon.tensor.subtensor import SYM, IncSubtensor, SliceLength, Subtensor, slice_parts
from theon.tensor.type import tensor_type

__all__ = ["DynamicShapeError"]

Fn = Callable[..., Any]


def _jnp() -> Any:
    import jax.numpy as jnp

    return jnp


def _out_dtype(node: Apply, k: int = 0) -> str:
    return tensor_type(node.outputs[k]).dtype


def _static_shape(node: Apply, k: int = 0) -> tuple[int, ...] | None:
    shape = tensor_type(node.outputs[k]).shape
    known = [s for s in shape if s is not None]
    return tuple(known) if len(known) == len(shape) else None


def _as_int(v: Any, node: Apply, what: str) -> int:
    """A concrete Python int from ``v`` (a NumPy value, or a concrete JAX array)."""
    try:
        return operator.index(np.asarray(v).item()) if not isinstance(v, int) else v
    except Exception:
        try:
            return int(v)
        except Exception:
            raise DynamicShapeError(
                f"mode='JAX': {what} is computed from a run-time value, so its shape is "
                f"not static under jax.jit (give the input a static shape, or compute "
                f"the shape from input shapes)"
            ) from None


def _ints(vals: Sequence[Any], node: Apply, what: str) -> tuple[int, ...]:
    return tuple(_as_int(v, node, what) for v in vals)


def _cast(x: Any, dtype: str) -> Any:
    jnp = _jnp()
    x = jnp.asarray(x)
    return x if x.dtype == dtype else x.astype(dtype)


# elementwise -----------------------------------------------------------------------
def _of_negation(op: Elemwise, node: Apply) -> Fn | None:
    """``sigmoid(-z)`` or ``softplus(-z)`` as a function of ``z`` (reading ``z``), so that
    XLA shares their ``exp(-|z|)`` with ``sigmoid(z)``/``softplus(z)`` (a logistic
    loss and its gradient have all four); None for other nodes."""
    from theon.scalar.rowops import Sigmoid, Softplus

    core = {Sigmoid: sigmoid_of, Softplus: softplus_of}.get(type(op.scalar_op))
    if core is None or len(node.inputs) != 1:
        return None
    owner = node.inputs[0].owner
    if owner is None or not isinstance(owner.op, Elemwise) \
            or type(owner.op.scalar_op).__name__ != "Neg":
        return None
    z = owner.inputs[0]
    dt = _out_dtype(node)
    if tensor_type(z).dtype != dt:
        return None

    def f(zv: Any) -> Any:
        return _cast(core(zv, -1), dt)

    set_jax_inputs(f, [z])
    return f


@jax_funcify.register(Elemwise)
def _elemwise(op: Elemwise, node: Apply, **kw: Any) -> Fn:
    jnp = _jnp()
    through_neg = _of_negation(op, node)
    if through_neg is not None:
        return through_neg
    fn = scalar_node_fn(op.scalar_op, list(node.outputs))
    n_out = len(node.outputs)

    def f(*args: Any) -> Any:
        res = fn(*args)
        # an output that reads only some inputs still has the broadcast shape of all
        target = jnp.broadcast_shapes(*(jnp.shape(a) for a in args)) if args else ()
        res = [r if r.shape == target else jnp.broadcast_to(r, target) for r in res]
        return res[0] if n_out == 1 else tuple(res)

    return f


@jax_scalar_funcify.register(Second)
def _second(op: Second) -> Fn:
    jnp = _jnp()
    return lambda x, y: jnp.broadcast_to(y, jnp.broadcast_shapes(jnp.shape(x), jnp.shape(y)))


@jax_funcify.register(DimShuffle)
def _dimshuffle(op: DimShuffle, node: Apply, **kw: Any) -> Fn:
    jnp = _jnp()
    kept = [o for o in op.new_order if o != "x"]
    drop = tuple(d for d in range(op.input_ndim) if d not in kept)
    perm = [sorted(kept).index(o) for o in kept]
    new_axes = tuple(k for k, o in enumerate(op.new_order) if o == "x")

    def f(x: Any) -> Any:
        y = jnp.squeeze(x, drop) if drop else x
        if perm != sorted(perm):
            y = jnp.transpose(y, perm)
        return jnp.expand_dims(y, new_axes) if new_axes else y

    return f


# reductions ------------------------------------------------------------------------
_REDUCERS = {"add": "sum", "mul": "prod", "maximum": "max", "minimum": "min",
             "and_": "all", "or_": "any", "logical_and": "all", "logical_or": "any"}


@jax_funcify.register(CAReduce)
def _careduce(op: CAReduce, node: Apply, **kw: Any) -> Fn:
    jnp = _jnp()
    name = getattr(op.scalar_op, "name", "")
    dt = _out_dtype(node)
    axis = op.axis
    initial = op.initial
    in_dtype = tensor_type(node.inputs[0]).dtype
    if name in ("and_", "or_", "xor") and in_dtype != "bool":
        red = {"and_": jnp.bitwise_and, "or_": jnp.bitwise_or, "xor": jnp.bitwise_xor}[name]
        import jax

        def bitwise(x: Any) -> Any:
            axes = tuple(range(x.ndim)) if axis is None else axis
            ident = {"and_": -1, "or_": 0, "xor": 0}[name]
            return _cast(jax.lax.reduce(x.astype(dt), np.array(ident, dt), red, axes), dt)

        return bitwise
    if name not in _REDUCERS:
        from theon.link.jax.dispatch import MissingJAXRule

        raise MissingJAXRule(op)
    fn = getattr(jnp, _REDUCERS[name])

    def f(x: Any) -> Any:
        kwargs: dict[str, Any] = {"axis": axis}
        if name in ("add", "mul"):
            kwargs["dtype"] = dt
        if initial is not None:
            kwargs["initial"] = initial
        return _cast(fn(x, **kwargs), dt)

    return f


@jax_funcify.register(_Logical)
def _logical(op: _Logical, node: Apply, **kw: Any) -> Fn:
    jnp = _jnp()
    fn = jnp.all if type(op).__name__ == "All" else jnp.any
    axis = op.axis
    return lambda x: fn(x, axis=axis)


@jax_funcify.register(_MaxMin)
def _maxmin(op: _MaxMin, node: Apply, **kw: Any) -> Fn:
    return _careduce(op, node)


@jax_funcify.register(Argmax)
def _argmax(op: Argmax, node: Apply, **kw: Any) -> Fn:
    jnp = _jnp()
    fn = jnp.argmax if op.kind == "max" else jnp.argmin
    axis = op.axis
    nd = tensor_type(node.inputs[0]).ndim

    def f(x: Any) -> Any:
        if axis is None or len(axis) == nd:
            return fn(jnp.reshape(x, (-1,))).astype("int64")
        if len(axis) == 1:
            return fn(x, axis=axis[0]).astype("int64")
        keep = [d for d in range(nd) if d not in axis]
        y = jnp.transpose(x, keep + list(axis))
        y = jnp.reshape(y, tuple(x.shape[d] for d in keep) + (-1,))
        return fn(y, axis=-1).astype("int64")

    return f


# shapes ----------------------------------------------------------------------------
@jax_funcify.register(Shape)
def _shape(op: Shape, node: Apply, **kw: Any) -> Fn:
    return lambda x: np.asarray(np.shape(x), dtype="int64")


@jax_funcify.register(Shape_i)
def _shape_i(op: Shape_i, node: Apply, **kw: Any) -> Fn:
    i = op.i
    return lambda x: np.asarray(np.shape(x)[i], dtype="int64")


@jax_funcify.register(MakeVector)
def _make_vector(op: MakeVector, node: Apply, **kw: Any) -> Fn:
    jnp = _jnp()
    dt = op.dtype

    def f(*xs: Any) -> Any:
        if all(isinstance(x, (np.ndarray, np.generic, int, float)) for x in xs):
            return np.array(xs, dtype=dt).reshape(len(xs))
        return jnp.stack([_cast(x, dt) for x in xs]) if xs else jnp.zeros((0,), dt)

    return f


@jax_funcify.register(SpecifyShape)
def _specify_shape(op: SpecifyShape, node: Apply, **kw: Any) -> Fn:
    def f(x: Any, *dims: Any) -> Any:
        it = iter(dims)
        for d, spec in enumerate(op.specified):
            if spec:
                v = next(it)
                try:
                    want = int(v)
                except Exception:
                    continue  # a traced length: jax checks shapes itself
                if x.shape[d] != want:
                    raise AssertionError(
                        f"SpecifyShape: dimension {d} of an array of shape {x.shape} "
                        f"is not {want}"
                    )
        return x

    return f


@jax_funcify.register(Unbroadcast)
def _unbroadcast(op: Unbroadcast, node: Apply, **kw: Any) -> Fn:
    return lambda x: x


@jax_funcify.register(SliceLength)
def _slice_length(op: SliceLength, node: Apply, **kw: Any) -> Fn:
    def f(n: Any, *parts: Any) -> Any:
        it = iter(parts)
        vals = [_as_int(next(it), node, "a slice bound") if p == SYM else p for p in op.slc]
        length = len(range(*slice(*vals).indices(_as_int(n, node, "a length"))))
        return np.asarray(length, dtype="int64")

    return f


@jax_funcify.register(TensorFromScalar)
def _tensor_from_scalar(op: TensorFromScalar, node: Apply, **kw: Any) -> Fn:
    dt = _out_dtype(node)
    return lambda x: np.asarray(x, dtype=dt) if isinstance(x, (np.ndarray, np.generic)) \
        else _cast(x, dt)


@jax_funcify.register(ScalarFromTensor)
def _scalar_from_tensor(op: ScalarFromTensor, node: Apply, **kw: Any) -> Fn:
    return lambda x: x


# creation --------------------------------------------------------------------------
@jax_funcify.register(Alloc)
def _alloc(op: Alloc, node: Apply, **kw: Any) -> Fn:
    jnp = _jnp()
    dt = _out_dtype(node)
    static = _static_shape(node)

    def f(v: Any, *shp: Any) -> Any:
        shape = static if static is not None else _ints(shp, node, "the shape of an Alloc")
        return jnp.broadcast_to(_cast(v, dt), shape)

    return f


@jax_funcify.register(AllocEmpty)
def _alloc_empty(op: AllocEmpty, node: Apply, **kw: Any) -> Fn:
    """``jnp.empty`` (XLA gives zeros: an unset buffer is never read)."""
    jnp = _jnp()
    static = _static_shape(node)

    def f(*shp: Any) -> Any:
        shape = static if static is not None else _ints(shp, node, "the shape of an AllocEmpty")
        return jnp.empty(shape, dtype=op.dtype)

    return f


@jax_funcify.register(ARange)
def _arange(op: ARange, node: Apply, **kw: Any) -> Fn:
    jnp = _jnp()
    dt = op.dtype

    def f(start: Any, stop: Any, step: Any) -> Any:
        vals: list[Any] = []
        for v in (start, stop, step):
            try:
                vals.append(np.asarray(v)[()])
            except Exception:
                raise DynamicShapeError(
                    "mode='JAX': the bounds of an arange are run-time values, so its "
                    "length is not static under jax.jit"
                ) from None
        return jnp.asarray(np.arange(*vals, dtype=dt))

    return f


@jax_funcify.register(Linspace)
def _linspace(op: Linspace, node: Apply, **kw: Any) -> Fn:
    jnp = _jnp()

    def f(a: Any, b: Any, n: Any) -> Any:
        num = _as_int(n, node, "the length of a linspace")
        res = jnp.linspace(a, b, num, endpoint=op.endpoint)
        return _cast(res, op.dtype)

    return f


@jax_funcify.register(Eye)
def _eye(op: Eye, node: Apply, **kw: Any) -> Fn:
    jnp = _jnp()

    def f(n: Any, m: Any, k: Any) -> Any:
        nn, mm, kk = _ints((n, m, k), node, "the shape of an eye")
        return jnp.eye(nn, mm, kk, dtype=op.dtype)

    return f


@jax_funcify.register(SumToShape)
def _sum_to_shape(op: SumToShape, node: Apply, **kw: Any) -> Fn:
    jnp = _jnp()
    dt = _out_dtype(node)
    static = _static_shape(node)

    def f(g: Any, shp: Any) -> Any:
        target = static if static is not None else _ints(
            list(np.asarray(shp)) if _concrete(shp) else _fail(node), node, "a shape")
        lead = g.ndim - len(target)
        if lead:
            g = jnp.sum(g, axis=tuple(range(lead)), dtype=dt)
        axes = tuple(d for d, s in enumerate(target) if s == 1 and g.shape[d] != 1)
        if axes:
            g = jnp.sum(g, axis=axes, keepdims=True, dtype=dt)
        return _cast(g, dt)

    return f


def _concrete(v: Any) -> bool:
    return isinstance(v, (np.ndarray, np.generic, int, float))


def _fail(node: Apply) -> Any:
    raise DynamicShapeError(
        "mode='JAX': a shape is a run-time value here, which jax.jit cannot trace"
    )


@jax_funcify.register(AllocDiag)
def _alloc_diag(op: AllocDiag, node: Apply, **kw: Any) -> Fn:
    jnp = _jnp()
    dt = _out_dtype(node)
    return lambda v: _cast(jnp.diag(v), dt)


@jax_funcify.register(AddDiag)
def _add_diag(op: AddDiag, node: Apply, **kw: Any) -> Fn:
    jnp = _jnp()
    dt = _out_dtype(node)

    def f(x: Any, v: Any) -> Any:
        m, n = x.shape[-2], x.shape[-1]
        if m == n and (jnp.ndim(v) == 0 or jnp.shape(v)[-1] == n):
            # a select on an iota mask fuses with its operands; a scatter into the
            # diagonal would make XLA materialize the whole matrix first
            return _cast(jnp.where(eye_mask(n), x + jnp.expand_dims(v, -2), x), dt)
        i = jnp.arange(min(m, n))
        return _cast(x.at[..., i, i].add(v), dt)

    return f


# joining and reshaping -------------------------------------------------------------
@jax_funcify.register(Join)
def _join(op: Join, node: Apply, **kw: Any) -> Fn:
    jnp = _jnp()
    dt = _out_dtype(node)
    static = static_axis(node)

    def f(axis: Any, *xs: Any) -> Any:
        k = static if static is not None else _as_int(axis, node, "the axis of a Join")
        return _cast(jnp.concatenate([_cast(x, dt) for x in xs], axis=k), dt)

    return f


@jax_funcify.register(Split)
def _split(op: Split, node: Apply, **kw: Any) -> Fn:
    jnp = _jnp()

    static = static_axis(node)

    def f(x: Any, axis: Any, sizes: Any) -> Any:
        if not _concrete(sizes):
            _fail(node)
        k = static if static is not None else _as_int(axis, node, "the axis of a Split")
        k = k % x.ndim
        sz = [int(s) for s in np.asarray(sizes)]
        if len(sz) != op.len_splits or sum(sz) != x.shape[k] or min(sz, default=0) < 0:
            raise ValueError(
                f"Split: sizes {sz} do not add up to {x.shape[k]}, dimension "
                f"{k} of an array of shape {x.shape}"
            )
        return tuple(jnp.split(x, np.cumsum(sz)[:-1].tolist(), axis=k))

    return f


@jax_funcify.register(Reshape)
def _reshape(op: Reshape, node: Apply, **kw: Any) -> Fn:
    jnp = _jnp()
    static = _static_shape(node)

    def f(x: Any, shp: Any) -> Any:
        if static is not None:
            return jnp.reshape(x, static)
        if not _concrete(shp):
            _fail(node)
        return jnp.reshape(x, tuple(int(s) for s in np.asarray(shp)))

    return f


# products --------------------------------------------------------------------------
def _transposed(v: Any) -> Any:
    """The matrix ``v`` is the transpose of (``DimShuffle{1,0}``), or None."""
    owner = v.owner
    if owner is not None and isinstance(owner.op, DimShuffle) \
            and tuple(owner.op.new_order) == (1, 0):
        return owner.inputs[0]
    return None


def _dot_rule(node: Apply, a_pos: int, b_pos: int) -> tuple[list[Any], Fn]:
    """(the variables to read, ``dot(a, b)`` as a function of their values).

    An operand that is a transposed matrix is read untransposed and contracted along
    its other axis (``lax.dot_general``), so XLA never copies the transpose (it does
    when the product is fused with the additions of a Gemm/Gemv)."""
    import jax

    jnp = _jnp()
    dt = _out_dtype(node)
    reads = list(node.inputs)
    a_var, b_var = node.inputs[a_pos], node.inputs[b_pos]
    ta = _transposed(a_var)
    tb = _transposed(b_var) if tensor_type(b_var).ndim == 2 else None
    if ta is not None:
        reads[a_pos] = ta
    if tb is not None:
        reads[b_pos] = tb
    if ta is None and tb is None:
        return reads, lambda a, b: _cast(jnp.dot(a, b), dt)
    a_nd = tensor_type(a_var).ndim
    if ta is not None and tb is None and tensor_type(b_var).ndim == 1:
        # A^T v as v^T A: XLA's CPU kernel reads A by rows for this form (by columns
        # for A^T v, about 10% slower on a 1000 x 100 matrix)
        def vec_mat(a: Any, b: Any) -> Any:
            a, b = _cast(a, dt), _cast(b, dt)
            return jax.lax.dot_general(b, a, (((0,), (0,)), ((), ())))

        return reads, vec_mat
    ca = (0,) if ta is not None else (a_nd - 1,)
    cb = (1,) if tb is not None else (0,)

    def dot(a: Any, b: Any) -> Any:
        a, b = _cast(a, dt), _cast(b, dt)
        return jax.lax.dot_general(a, b, ((ca, cb), ((), ())))

    return reads, dot


@jax_funcify.register(Dot)
def _dot(op: Dot, node: Apply, **kw: Any) -> Fn:
    reads, dot = _dot_rule(node, 0, 1)

    def f(a: Any, b: Any) -> Any:
        return dot(a, b)

    set_jax_inputs(f, reads)
    return f


@jax_funcify.register(MatMul)
def _matmul(op: MatMul, node: Apply, **kw: Any) -> Fn:
    jnp = _jnp()
    dt = _out_dtype(node)
    return lambda a, b: _cast(jnp.matmul(a, b), dt)


@jax_funcify.register(Einsum)
def _einsum(op: Einsum, node: Apply, **kw: Any) -> Fn:
    jnp = _jnp()
    dt = _out_dtype(node)
    return lambda *xs: _cast(jnp.einsum(op.subscripts, *xs), dt)


# indexing --------------------------------------------------------------------------
def _index(idx_list: Sequence[Any], vals: Sequence[Any], node: Apply, advanced: bool
           ) -> tuple[Any, ...]:
    it = iter(vals)
    out: list[Any] = []
    for e in idx_list:
        if isinstance(e, slice):
            parts = [_as_int(next(it), node, "a slice bound") if p == SYM else p
                     for p in slice_parts(e)]
            out.append(slice(*parts))
        elif e is None:
            out.append(None)
        elif e == SYM:
            v = next(it)
            if advanced:
                out.append(v)
            else:
                out.append(int(v) if _concrete(v) else v)
        else:
            out.append(e)
    return tuple(out)


@jax_funcify.register(Subtensor)
def _subtensor(op: Subtensor, node: Apply, **kw: Any) -> Fn:
    def f(x: Any, *idx: Any) -> Any:
        return x[(*_index(op.idx_list, idx, node, False), Ellipsis)]

    return f


@jax_funcify.register(IncSubtensor)
def _inc_subtensor(op: IncSubtensor, node: Apply, **kw: Any) -> Fn:
    dt = _out_dtype(node)

    def f(x: Any, y: Any, *idx: Any) -> Any:
        at = _jnp().asarray(x).at[(*_index(op.idx_list, idx, node, False), Ellipsis)]
        y = _cast(y, dt)
        return at.set(y) if op.set_instead_of_inc else at.add(y)

    return f


@jax_funcify.register(AdvancedSubtensor)
def _adv_subtensor(op: AdvancedSubtensor, node: Apply, **kw: Any) -> Fn:
    def f(x: Any, *idx: Any) -> Any:
        index = _index(op.idx_list, idx, node, True)
        for v in index:
            if getattr(v, "dtype", None) == np.bool_ and not _concrete(v):
                raise DynamicShapeError(
                    "mode='JAX': indexing with a boolean mask computed at run time gives "
                    "a result whose length depends on the mask's values, which jax.jit "
                    "cannot trace (use switch/where instead)"
                )
        return _jnp().asarray(x)[index]

    return f


@jax_funcify.register(AdvancedIncSubtensor)
def _adv_inc_subtensor(op: AdvancedIncSubtensor, node: Apply, **kw: Any) -> Fn:
    dt = _out_dtype(node)
    jnp = _jnp()

    def f(x: Any, y: Any, *idx: Any) -> Any:
        index = _index(op.idx_list, idx, node, True)
        y = _cast(y, dt)
        x = jnp.asarray(x)
        mask = index[0] if len(index) == 1 else None
        if mask is not None and getattr(mask, "dtype", None) == np.bool_ \
                and not _concrete(mask):
            # x[mask] = y with a run-time mask: a select when y is one value
            if y.ndim != 0:
                raise DynamicShapeError(
                    "mode='JAX': writing an array through a boolean mask computed at run "
                    "time needs as many values as the mask has True entries, which jax.jit "
                    "cannot trace (write one value, or use switch/where)"
                )
            m = jnp.reshape(mask, mask.shape + (1,) * (x.ndim - mask.ndim))
            return jnp.where(m, y if op.set_instead_of_inc else x + y, x)
        if is_diagonal_index(x, index) and y.ndim <= 1:
            # x[i, i] (+)= y on the diagonal: a select on an iota mask, which fuses, where
            # a scatter would make XLA materialize x first
            yb = jnp.expand_dims(y, 0) if y.ndim == 1 else y
            return jnp.where(eye_mask(x.shape[0]), yb if op.set_instead_of_inc else x + yb, x)
        at = x.at[index]
        return at.set(y) if op.set_instead_of_inc else at.add(y)

    return f


# sorting ---------------------------------------------------------------------------
@jax_funcify.register(Sort)
def _sort(op: Sort, node: Apply, **kw: Any) -> Fn:
    jnp = _jnp()
    stable = op.kind == "stable" or op.kind == "mergesort"
    return lambda x: jnp.sort(x, axis=op.axis, stable=stable)


@jax_funcify.register(ArgSort)
def _argsort(op: ArgSort, node: Apply, **kw: Any) -> Fn:
    jnp = _jnp()
    # stable always: NumPy's default quicksort orders ties by position on small inputs
    return lambda x: jnp.argsort(x, axis=op.axis, stable=True).astype("int64")


@jax_funcify.register(TakeAlongAxis)
def _take_along(op: TakeAlongAxis, node: Apply, **kw: Any) -> Fn:
    jnp = _jnp()
    return lambda x, idx: jnp.take_along_axis(x, idx, axis=op.axis)


@jax_funcify.register(PutAlongAxis)
def _put_along(op: PutAlongAxis, node: Apply, **kw: Any) -> Fn:
    jnp = _jnp()
    dt = _out_dtype(node)

    def full_index(idx: Any) -> tuple[Any, ...]:
        nd = idx.ndim
        axis = op.axis % nd
        grids = jnp.meshgrid(*(jnp.arange(s) for s in idx.shape), indexing="ij")
        return tuple(idx if d == axis else grids[d] for d in range(nd))

    def f(*args: Any) -> Any:
        if len(args) == 2:
            values, idx = args
            out = jnp.zeros(jnp.shape(values), dt)
        else:
            out, idx, values = args
        values = jnp.broadcast_to(_cast(values, dt), idx.shape)
        at = jnp.asarray(out).at[full_index(idx)]
        return at.add(values) if op.accumulate else at.set(values)

    return f


# extra ops -------------------------------------------------------------------------
@jax_funcify.register(CumOp)
def _cumop(op: CumOp, node: Apply, **kw: Any) -> Fn:
    jnp = _jnp()
    fn = jnp.cumsum if op.mode == "add" else jnp.cumprod
    dt = _out_dtype(node)
    return lambda x: _cast(fn(x, axis=op.axis), dt)


@jax_funcify.register(Repeat)
def _repeat(op: Repeat, node: Apply, **kw: Any) -> Fn:
    jnp = _jnp()

    def f(x: Any, r: Any) -> Any:
        if not _concrete(r):
            static = _static_shape(node)
            if static is None:
                return _fail(node)
            total = static[0] if op.axis is None else static[op.axis]
            return jnp.repeat(x, r, axis=op.axis, total_repeat_length=total)
        return jnp.repeat(x, np.asarray(r), axis=op.axis)

    return f


@jax_funcify.register(Nonzero)
def _nonzero(op: Nonzero, node: Apply, **kw: Any) -> Fn:
    def f(x: Any) -> Any:
        if _concrete(x):
            return tuple(np.asarray(i, dtype="int64") for i in np.nonzero(x))
        raise DynamicShapeError(
            "mode='JAX': nonzero's result has a length that depends on the values of "
            "its input, which jax.jit cannot trace (use switch/where, or compute it "
            "outside the function)"
        )

    return f


@jax_funcify.register(Softmax)
def _softmax(op: Softmax, node: Apply, **kw: Any) -> Fn:
    import jax

    return lambda x: jax.nn.softmax(x, axis=op.axis)


@jax_funcify.register(LogSoftmax)
def _log_softmax(op: LogSoftmax, node: Apply, **kw: Any) -> Fn:
    import jax

    return lambda x: jax.nn.log_softmax(x, axis=op.axis)


@jax_funcify.register(BroadcastGrad)
def _broadcast_grad(op: BroadcastGrad, node: Apply, **kw: Any) -> Fn:
    jnp = _jnp()
    k = op.batch_ndim

    def f(g: Any, x: Any) -> Any:
        g = jnp.asarray(g)
        xs = x.shape[k:] if op.x_batched else x.shape
        lead = g.ndim - k - len(xs)
        if lead < 0:
            g = jnp.reshape(g, g.shape[:k] + (1,) * -lead + g.shape[k:])
        elif lead:
            g = jnp.sum(g, axis=tuple(range(k, k + lead)))
        axes = tuple(k + d for d in range(len(xs)) if xs[d] == 1 and g.shape[k + d] != 1)
        if axes:
            g = jnp.sum(g, axis=axes, keepdims=True)
        want = g.shape[:k] + tuple(xs)
        if g.shape != want:
            g = jnp.broadcast_to(g, want)
        return _cast(g, x.dtype)

    return f


@jax_funcify.register(LinearRecurrence)
def _linear_recurrence(op: LinearRecurrence, node: Apply, **kw: Any) -> Fn:
    import jax

    jnp = _jnp()

    def combine(left: Any, right: Any) -> Any:
        a1, b1 = left
        a2, b2 = right
        # an exact zero coefficient cuts the chain (0 * inf counts as 0)
        return a1 * a2, b2 + jnp.where(a2 == 0, 0, a2 * b1)

    def f(a: Any, b: Any) -> Any:
        if op.reverse:  # s[i] = b[i] + a[i+1] * s[i+1]: the coefficients move down by one
            n = a.shape[op.axis]
            a = jnp.concatenate([jax.lax.slice_in_dim(a, 1, n, axis=op.axis),
                                 jnp.zeros_like(jax.lax.slice_in_dim(a, 0, 1, axis=op.axis))],
                                axis=op.axis)
        _, s = jax.lax.associative_scan(combine, (a, b), reverse=op.reverse, axis=op.axis)
        return s

    return f


def _blas() -> None:
    from theon.tensor.rewriting.blas import Gemm, Gemv

    @jax_funcify.register(Gemm)
    @jax_funcify.register(Gemv)
    def _gemm(op: Any, node: Apply, **kw: Any) -> Fn:
        dt = _out_dtype(node)
        reads, dot = _dot_rule(node, 2, 3)

        def f(z: Any, a: Any, x: Any, y: Any, b: Any) -> Any:
            return _cast(b * z + a * dot(x, y), dt)

        set_jax_inputs(f, reads)
        return f


_blas()
