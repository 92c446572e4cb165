"""What the linalg Ops share: the base class, failure handling, batching, masks.

Every core Op of :mod:`theon.tensor.linalg` works on matrices (and vectors), names
its NumPy generalized-ufunc signature in ``gufunc_signature`` and is applied
through :func:`apply_op`, which batches it over leading dimensions.

A failing factorization or solve (a singular or non-positive-definite input) raises
:class:`numpy.linalg.LinAlgError` naming the input; the linker adds the node and the
line where it was built.  Built with ``on_error='nan'``, the Op returns outputs
filled with NaN instead (samplers reject such a point rather than stop).

SciPy is imported when an Op first runs, never by ``import theon.tensor.linalg``.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Variable
from theon.graph.fg import describe
from theon.graph.op import Op
from theon.scalar.type import upcast
from theon.tensor.basic import as_tensor_variable, cast
from theon.tensor.type import TensorType, tensor_type
from theon.tensor.variable import TensorVariable

__all__ = [
    "LinalgOp",
    "apply_op",
    "vectorize_linalg",
    "as_float",
    "BandPart",
    "band_mask",
    "band_masks",
    "band_part",
    "check_matrix",
    "check_square",
    "float_dtype",
    "mT",
    "scipy_linalg",
]

_ON_ERROR = ("raise", "nan")
_SCIPY: list[Any] = []


def scipy_linalg() -> Any:
    """``scipy.linalg``, imported on the first call (not by importing theon)."""
    if not _SCIPY:
        import scipy.linalg

        _SCIPY.append(scipy.linalg)
    return _SCIPY[0]


def float_dtype(*dtypes: str) -> str:
    """The float dtype results of inputs of ``dtypes`` have: float32 stays float32,
    integers and booleans become float64."""
    out = upcast(*dtypes)
    if out.startswith(("int", "uint")) or out == "bool":
        return "float64"
    if out == "float16":
        return "float32"
    return out


def as_float(x: Any, dtype: str) -> TensorVariable:
    """``x`` as a tensor of ``dtype`` (cast when it differs)."""
    v = as_tensor_variable(x)
    return v if v.type.dtype == dtype else cast(v, dtype)


def check_matrix(x: Variable, what: str, ndims: tuple[int, ...] = (2,)) -> None:
    """Raise a TypeError naming ``x`` unless it has one of ``ndims`` dimensions."""
    if tensor_type(x).ndim not in ndims:
        want = " or ".join(str(n) for n in ndims)
        raise TypeError(f"{what} takes a tensor of {want} dimensions, got {describe(x)}")


def check_square(x: Variable, what: str) -> None:
    """Raise a TypeError unless ``x`` is a matrix, a ValueError if it is known not square."""
    check_matrix(x, what)
    m, n = tensor_type(x).shape[-2:]
    if m is not None and n is not None and m != n:
        raise ValueError(f"{what} needs a square matrix, got {describe(x)}")


def mT(x: Any) -> TensorVariable:
    """The matrix transpose of the last two axes (batch axes stay)."""
    from theon.tensor.reshaping import swapaxes

    return swapaxes(x, -1, -2)


def band_mask(x: TensorVariable, lower: int | None, upper: int | None, dtype: str
              ) -> TensorVariable:
    """A ``(m, n)`` 0/1 matrix of ``dtype``: 1 where ``-lower <= j - i <= upper`` (a
    bound of None is unlimited); it broadcasts against ``x``'s batch axes."""
    import theon.tensor.math as tm
    from theon.tensor.creation import arange

    i = arange(x.shape[-2])[:, None]
    j = arange(x.shape[-1])[None, :]
    d = j - i
    cond: Any = None
    if lower is not None:
        cond = tm.ge(d, -lower)
    if upper is not None:
        c2 = tm.le(d, upper)
        cond = c2 if cond is None else tm.and_(cond, c2)
    assert cond is not None
    return cast(cond, dtype)


class BandPart(Op):
    """``x`` with zeros outside the band ``-lower <= j - i <= upper`` of its last two axes
    (a bound of None is unlimited) and its main diagonal times ``diagonal``: ``np.tril``
    and ``np.triu`` in one pass, on matrices or stacks of them.

    The gradients of the factorizations and triangular solves keep a triangle this
    way (one pass over the data, where multiplying by a 0/1 mask built from
    ``arange`` made three full temporaries).  Linear, so its gradient is itself.
    With ``inplace`` (set by the inplace phase), the result is written into ``x``.

    >>> import theon.tensor as tt
    >>> x = tt.dmatrix("x")
    >>> band_part(x, None, 0, diagonal=0.5).eval({x: [[2.0, 3.0], [4.0, 6.0]]})
    array([[1., 0.],
           [4., 3.]])
    """

    __props__ = ("lower", "upper", "diagonal", "inplace")
    #: the inplace phase may set ``inplace`` when ``x`` is dead (theon.tensor.rewriting.inplace)
    inplace_flag = True

    def __init__(self, lower: int | None, upper: int | None, diagonal: float = 1.0,
                 inplace: bool = False) -> None:
        self.lower = None if lower is None else int(lower)
        self.upper = None if upper is None else int(upper)
        self.diagonal = float(diagonal)
        self.inplace = bool(inplace)
        if self.inplace:
            self.destroy_map = {0: [0]}

    def make_node(self, x: Any) -> Apply:
        v = as_tensor_variable(x)
        check_matrix(v, "band_part", tuple(range(2, 33)))
        return Apply(self, [v], [v.type()])

    def _keeps_diagonal(self) -> bool:
        return (self.lower is None or self.lower >= 0) and (self.upper is None or self.upper >= 0)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        (x,) = inputs
        keep, drop = band_masks(x.shape[-2], x.shape[-1], self.lower, self.upper)
        if self.inplace:
            out = x
            np.copyto(out, 0, where=drop)
        else:
            out = np.where(keep, x, x.dtype.type(0))
        if self.diagonal != 1.0 and self._keeps_diagonal():
            k = np.arange(min(out.shape[-2:]))
            out[..., k, k] *= out.dtype.type(self.diagonal)
        output_storage[0][0] = out

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        return [input_shapes[0]]

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list[Any]:
        return [band_part(output_grads[0], self.lower, self.upper, self.diagonal)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        if eval_points[0] is None:
            return [None]
        return [band_part(eval_points[0], self.lower, self.upper, self.diagonal)]

    def vectorize_node(self, node: Apply, inputs: list[Any], batched: list[bool]) -> Any:
        """Batched: the same Op (it works on the last two axes of any stack)."""
        return [band_part(inputs[0], self.lower, self.upper, self.diagonal)]


#: (m, n, lower, upper) -> (keep, drop) boolean masks of the band: the last few shapes
_BAND_MASKS: dict[tuple[int, int, int | None, int | None], tuple[np.ndarray, np.ndarray]] = {}
_BAND_LOCK = threading.Lock()


def band_masks(m: int, n: int, lower: int | None, upper: int | None
                ) -> tuple[np.ndarray, np.ndarray]:
    """The read-only (keep, drop) masks of the band ``-lower <= j - i <= upper`` of an
    ``(m, n)`` matrix (a bound of None is unlimited), cached for the last few shapes.

    >>> keep, drop = band_masks(2, 3, None, 0)
    >>> keep.astype(int).tolist(), bool((keep ^ drop).all())
    ([[1, 0, 0], [1, 1, 0]], True)
    """
    key = (m, n, lower, upper)
    got = _BAND_MASKS.get(key)
    if got is None:
        # np.tri(m, n, k): j - i <= k, compared as outer products of two ranges
        keep = np.ones((m, n), bool) if upper is None else np.tri(m, n, upper, dtype=bool)
        if lower is not None:
            keep &= ~np.tri(m, n, -lower - 1, dtype=bool)
        drop = ~keep
        keep.flags.writeable = drop.flags.writeable = False
        with _BAND_LOCK:  # (another thread may insert while the oldest is dropped)
            if len(_BAND_MASKS) >= 8:
                _BAND_MASKS.pop(next(iter(_BAND_MASKS)), None)
            got = _BAND_MASKS[key] = (keep, drop)
    return got


def band_part(x: Any, lower: int | None, upper: int | None, diagonal: float = 1.0
              ) -> TensorVariable:
    """``x`` kept on the band ``-lower <= j - i <= upper`` (None: unlimited), zeros
    elsewhere, the main diagonal times ``diagonal`` (see :class:`BandPart`).

    >>> import theon.tensor as tt
    >>> x = tt.dmatrix("x")
    >>> band_part(x, 0, 1).eval({x: [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]})
    array([[1., 2., 0.],
           [0., 5., 6.]])
    """
    out: TensorVariable = BandPart(lower, upper, diagonal)(x)
    return out


def apply_op(op: LinalgOp, *inputs: Any, keep: tuple[int, ...] = ()) -> Any:
    """``op(*inputs)`` through :class:`~theon.tensor.blockwise.Blockwise`: leading
    dimensions beyond the core ones of ``op.gufunc_signature`` are batch dimensions
    (broadcast as in NumPy); with none, the core Op's outputs.

    The inputs (but those at the positions ``keep``: integer pivots) are cast to one
    float dtype first: float32 stays float32, integers become float64.
    """
    from theon.tensor.blockwise import Blockwise, parse_signature

    core_ins, _ = parse_signature(op.gufunc_signature)
    ins = [as_tensor_variable(x) for x in inputs]
    for v, core in zip(ins, core_ins):
        if v.type.ndim < len(core):
            kind = "a matrix" if len(core) == 2 else f"{len(core)} dimension(s)"
            raise TypeError(f"{op}: needs {kind} (or a batch of them), got {describe(v)}")
    dt = float_dtype(*(v.type.dtype for i, v in enumerate(ins) if i not in keep))
    ins = [v if i in keep else as_float(v, dt) for i, v in enumerate(ins)]
    return Blockwise(op)(*ins)


def vectorize_linalg(op: Op, node: Apply, inputs: list[Any], batched: list[bool]) -> Any:
    """The batching rule of the linalg core Ops (``vectorize_graph``): the same Op over
    the new batch axis through Blockwise (no looping fallback)."""
    from theon.tensor.blockwise import Blockwise

    return Blockwise(op)(*inputs, return_list=True)


class LinalgOp(Op):
    """Base of the linalg Ops: ``on_error`` handling and the output types.

    Subclasses list ``on_error`` in ``__props__`` when they can fail.
    """

    __props__: tuple[str, ...] = ()
    gufunc_signature: str = ""
    on_error: str = "raise"
    def _set_inplace(self, inplace: bool) -> None:
        """``inplace`` (set by the inplace phase, for a class with ``inplace_flag``): the
        result is written into input ``inplace_input`` (a class attribute, 0 by default)."""
        self.inplace = bool(inplace)
        if self.inplace:
            self.destroy_map = {0: [getattr(type(self), "inplace_input", 0)]}

    def _set_on_error(self, on_error: str) -> None:
        if on_error not in _ON_ERROR:
            raise ValueError(f"on_error must be 'raise' or 'nan', got {on_error!r}")
        self.on_error = on_error

    def nan_outputs(self, node: Apply, shapes: Sequence[tuple[int, ...]],
                    output_storage: list[list[Any]]) -> None:
        """Store NaN-filled outputs of the given shapes (integer outputs get zeros)."""
        for out, shape, cell in zip(node.outputs, shapes, output_storage):
            dtype = tensor_type(out).dtype
            if dtype.startswith(("float", "complex")):
                cell[0] = np.full(shape, np.nan, dtype=dtype)
            else:
                cell[0] = np.zeros(shape, dtype=dtype)

    def raise_or_nan(self, node: Apply, shapes: Sequence[tuple[int, ...]],
                     output_storage: list[list[Any]], exc: Exception, what: str) -> None:
        """On failure: NaN outputs of ``shapes`` with ``on_error='nan'``, else raise."""
        if self.on_error == "nan":
            self.nan_outputs(node, shapes, output_storage)
            return
        raise np.linalg.LinAlgError(
            f"{self}: {what} ({exc}) for input {describe(node.inputs[0])}; build the Op "
            "with on_error='nan' to get NaN instead"
        ) from exc

    def __str__(self) -> str:
        props = [
            f"{p}={getattr(self, p)!r}" for p in self.__props__
            if not (p == "on_error" and self.on_error == "raise")
            and not (p == "inplace" and not getattr(self, p))
        ]
        return f"{type(self).__name__}{{{', '.join(props)}}}" if props else type(self).__name__


def matrix_type(dtype: str, shape: tuple[int | None, ...]) -> TensorType:
    """A ``TensorType`` of ``dtype`` and static ``shape``."""
    return TensorType(dtype, shape=shape)
